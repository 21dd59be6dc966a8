//! Strings and objects of a handler's result that stay where the handler made them until its
//! answer is sent.
//!
//! A page's tool or resource that returns a long string (a document, a page's text) would have
//! it copied into the engine's memory, only to be copied out again into the answer the
//! browser wire posts: two copies of the whole text (in Chromium 156 about 2 ms each way for
//! 1 MiB, in WebKitGTK 4 ms in), for a value the engine never reads. Instead the handler may
//! hold it: the result carries a short marker string in its place, and the answer, handed to
//! the sink with the held texts ([`super::Sent::Message`]), gets the string itself back where
//! the marker is — a browser wire puts the page's own JS string there, any other sink writes
//! its text.
//!
//! Holding is allowed only where the marker cannot go anywhere but into that answer: a
//! `tools/call` answered directly (not a task, whose result is kept and answered later), a
//! `resources/read` and a `prompts/get`, whose contexts carry a [`Holder`]. What is held is a
//! result that is a string, or the long `text` of an object result's text blocks and embedded
//! resources (a `CallToolResult`'s, or a prompt's messages' contents) or text contents (a
//! resource's), or a prompt message's content that is a long string. Everything between the
//! handler and the answer passes those through untouched (a string normalized into one text
//! block, one text contents or one message's text block, blocks and contents kept as they
//! are, shaped for the version; an output schema checks
//! `structuredContent` only, which holds no marker) or drops the result for an error (an
//! output schema a string result never satisfies, a timeout, a cancellation), and what is
//! dropped frees what it held. The sink looks for markers only in `text` members inside
//! `result` (never in the request's `id`, nor in a resource's `uri`, which the client's
//! request names), and an object result's strings are held only when the value read from it
//! has each marker once and no other string that reads as one ([`Holder::hold_within`]):
//! no text of a page's or a client's is taken for a marker.
//!
//! A tool's long `structuredContent` is held the same way where nothing in the engine reads it
//! (the tool has no output schema: `Holder::allow_objects`): an object result that is not a
//! `CallToolResult` whole (or the object of `{structuredContent: object}` alone), as its JSON
//! text (a held string, its one text block's) and the object ([`Holder::hold_object`]), or a
//! `CallToolResult`'s `structuredContent` beside its blocks' texts ([`Holder::hold_within`]).
//! The result carries an empty object in its place, and the sink puts the held one where the
//! result's `structuredContent` is (a version without structured content has none, and then it
//! goes nowhere). Objects of 1 MiB of JSON spent about 40 ms of a tools/call round trip of 80
//! in the engine (read, written as text twice, parsed again: Chromium 156).
//!
//! A tool with an output schema holds its structured content too, with an empty object in its
//! place as well: the schema checks the held one's JSON text (`Holder::unchecked_text`),
//! where a plain schema can without reading it into a value
//! ([`CompiledSchema::accepts_text`](super::CompiledSchema::accepts_text)); the engine reads it
//! only for a schema that cannot, or to say why the schema refuses it. It never writes it (nor
//! its text) into the answer.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::Value;

use crate::protocol::json_text::Step;

/// A string a handler kept out of the engine (the browser's: a page's JS string).
pub trait HeldText: Any {
    /// The string's text, for a sink that writes JSON text.
    fn text(&self) -> String;
    /// The string itself, for a sink that knows its type (a browser wire).
    fn as_any(&self) -> &dyn Any;
}

/// What a request's handlers hold, shared by every clone of its context. Holding is refused
/// until `Holder::allow` says the answer goes straight to the sink.
#[derive(Default)]
pub struct Holder {
    allowed: Cell<bool>,
    /// Whether a tool's object result may be held whole ([`Holder::hold_object`]): nothing
    /// between the handler and the answer reads its `structuredContent`.
    objects: Cell<bool>,
    texts: RefCell<Vec<(String, Box<dyn HeldText>)>>,
    structured: RefCell<Option<Box<dyn HeldText>>>,
    /// Whether the held `structuredContent` is for an output schema to check, until
    /// [`Holder::unchecked_text`] gives its text.
    unchecked: Cell<bool>,
}

/// The text in place of held string `index` of an answer: a noncharacter, then the index.
fn marker(index: usize) -> String {
    use std::fmt::Write;
    let mut m = String::from(MARKER_START);
    let _ = write!(m, "{index}");
    m
}

impl Holder {
    /// A holder that allows holding from the start (a request whose answer is never kept to
    /// be sent later, as a task's result is: `resources/read`, `prompts/get`).
    pub(crate) fn allowing() -> Holder {
        let h = Holder::default();
        h.allow();
        h
    }

    /// Lets handlers hold strings: the request's answer goes to the sink as soon as it is
    /// ready, with what is held.
    pub(crate) fn allow(&self) {
        self.allowed.set(true);
    }

    /// Keeps `text` until the answer is sent, and gives the marker the result carries in its
    /// place; the text back when this request may not hold strings.
    pub fn hold(&self, text: Box<dyn HeldText>) -> Result<String, Box<dyn HeldText>> {
        if !self.allowed.get() {
            return Err(text);
        }
        let mut texts = self.texts.borrow_mut();
        let m = marker(texts.len());
        texts.push((m.clone(), text));
        Ok(m)
    }

    /// Holds `texts` for a value `build` makes with their markers (in `texts`' order) in
    /// their places, and `structured`, when given, as that value's `structuredContent` (the
    /// value has an empty object there, and where an output schema reads it
    /// ([`Holder::allows_objects`] is `false`), `Holder::unchecked_text` gives its text for
    /// the check), and gives that value. A page's object result may carry any string, so what
    /// is held is kept only when the value has each marker once and no other string that reads
    /// as a marker (see [`markers_once`]); else it is given back and
    /// the answer is `None`, as it is when this request may not hold it, there is nothing to
    /// hold or `build` gives nothing: the caller then reads the result whole.
    pub fn hold_within(
        &self,
        texts: Vec<Box<dyn HeldText>>,
        structured: Option<Box<dyn HeldText>>,
        build: impl FnOnce(&[String]) -> Option<Value>,
    ) -> Option<Value> {
        // One structured content per answer: the result has one place for it.
        if !self.allows() || (structured.is_some() && self.structured.borrow().is_some()) {
            return None;
        }
        if texts.is_empty() && structured.is_none() {
            return None;
        }
        let before = self.texts.borrow().len();
        let markers: Vec<String> = texts
            .into_iter()
            .filter_map(|t| self.hold(t).ok())
            .collect();
        let in_place = |v: &Value| match v.get("structuredContent") {
            Some(Value::Object(o)) => o.is_empty(),
            _ => false,
        };
        let value = build(&markers)
            .filter(|v| markers_once(v, &markers) && (structured.is_none() || in_place(v)));
        match value {
            Some(_) => {
                self.unchecked
                    .set(!self.objects.get() && structured.is_some());
                *self.structured.borrow_mut() = structured;
            }
            None => self.texts.borrow_mut().truncate(before),
        }
        value
    }

    /// The JSON text of the held `structuredContent`, once, for a tool's output schema to
    /// check in place of the empty object the result carries ([`Holder::hold_within`]); `None`
    /// where nothing held is for a schema to check, or it has been given already. A result the
    /// check refuses is a tool error, with no `structuredContent`: the held one goes nowhere.
    pub(crate) fn unchecked_text(&self) -> Option<String> {
        if !self.unchecked.replace(false) {
            return None;
        }
        self.structured.borrow().as_ref().map(|s| s.text())
    }

    /// Lets a tool's handler hold its object result whole ([`Holder::hold_object`]): the tool
    /// has no output schema, which would read the result's `structuredContent`.
    pub(crate) fn allow_objects(&self) {
        self.objects.set(true);
    }

    /// Whether [`Holder::hold_object`] would hold.
    pub fn allows_objects(&self) -> bool {
        self.allowed.get() && self.objects.get()
    }

    /// Holds a tool's object result whole: `text`, its JSON text, as the text of the result's
    /// one text block, and `object`, the object `text` is the JSON of, as its
    /// `structuredContent` — what [`crate::server::results::call_tool_result`] makes of an
    /// object that is not a `CallToolResult` (the caller has checked that it is not one nor an
    /// input-required result), and of `{structuredContent: object}` alone. Gives the result that
    /// carries them: a marker for the text and an empty object for the structured content
    /// (see [`Holder::hold_within`]); `None` (nothing held) when this request may not hold it
    /// or has held a structured content.
    pub fn hold_object(&self, text: Box<dyn HeldText>, object: Box<dyn HeldText>) -> Option<Value> {
        self.hold_within(vec![text], Some(object), |m| {
            let mut result = serde_json::Map::with_capacity(2);
            let block = crate::server::results::text_block(m.first()?.as_str());
            result.insert("content".into(), Value::Array(vec![block]));
            result.insert(
                "structuredContent".into(),
                Value::Object(Default::default()),
            );
            Some(Value::Object(result))
        })
    }

    /// Whether holding is allowed.
    pub fn allows(&self) -> bool {
        self.allowed.get()
    }

    /// What was held, for the answer.
    pub(crate) fn take(&self) -> Held {
        Held {
            texts: HeldTexts(std::mem::take(&mut *self.texts.borrow_mut())),
            structured: self.structured.borrow_mut().take(),
        }
    }
}

/// What every marker starts with (see [`marker`]).
const MARKER_START: &str = "\u{FDD0}held ";

/// Whether each of `markers` is a string of `v` exactly once, and no other string of `v`
/// starts as a marker does (a page's string that reads as one, or one of an earlier hold's).
pub fn markers_once(v: &Value, markers: &[String]) -> bool {
    fn walk(v: &Value, markers: &[String], seen: &mut [bool]) -> bool {
        match v {
            Value::String(s) if s.starts_with(MARKER_START) => {
                match markers.iter().position(|m| m == s) {
                    Some(i) if !seen[i] => {
                        seen[i] = true;
                        true
                    }
                    _ => false,
                }
            }
            Value::Array(items) => items.iter().all(|x| walk(x, markers, seen)),
            Value::Object(map) => map.values().all(|x| walk(x, markers, seen)),
            _ => true,
        }
    }
    let mut seen = vec![false; markers.len()];
    walk(v, markers, &mut seen) && seen.iter().all(|s| *s)
}

/// Held strings, each with the marker that stands for it in a value, in the order they were
/// made: an answer's ([`Held`]) and a `tools/call`'s arguments' ([`HeldArguments`]).
#[derive(Default)]
pub struct HeldTexts(Vec<(String, Box<dyn HeldText>)>);

impl HeldTexts {
    /// The markers, in the order they were made.
    pub fn markers(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(m, _)| m.as_str())
    }

    /// The string marker `m` stands for.
    pub fn get(&self, m: &str) -> Option<&dyn HeldText> {
        self.0.iter().find(|(k, _)| k == m).map(|(_, t)| t.as_ref())
    }
}

/// The strings an answer's markers stand for ([`HeldTexts`], which it dereferences to), and
/// the `structuredContent` of a tool's object result held whole (see the module's
/// documentation). Dropping it frees them.
#[derive(Default)]
pub struct Held {
    texts: HeldTexts,
    structured: Option<Box<dyn HeldText>>,
}

impl std::ops::Deref for Held {
    type Target = HeldTexts;
    fn deref(&self) -> &HeldTexts {
        &self.texts
    }
}

impl Held {
    /// Whether the answer holds nothing.
    pub fn is_empty(&self) -> bool {
        self.texts.0.is_empty() && self.structured.is_none()
    }

    /// The `structuredContent` of the answer's result, when it is held: it goes where the
    /// result's `structuredContent` is (an empty object in its place; a version without
    /// structured content has none, and then it goes nowhere).
    pub fn structured(&self) -> Option<&dyn HeldText> {
        self.structured.as_deref()
    }

    /// Puts each held string's text in place of its marker in `message`, where [`Held::at`]
    /// allows one (the rule a browser wire follows too), and the held `structuredContent`
    /// (its JSON text read) in place of the result's.
    pub fn write_into(&self, message: &mut Value) {
        if !self.texts.0.is_empty() {
            self.replace(message, &mut Vec::new());
        }
        let at = message.pointer_mut("/result/structuredContent");
        if let (Some(s), Some(at)) = (&self.structured, at) {
            *at = crate::protocol::json_text::read(&s.text()).unwrap_or(Value::Null);
        }
    }

    /// Whether a string at the end of `path` inside a message may be a marker: the value of a
    /// `text` member (a text block's, a text resource contents') inside `result`.
    pub fn at(path: &[Step]) -> bool {
        matches!(
            (path.first(), path.last()),
            (Some(Step::Key("result")), Some(Step::Key("text")))
        )
    }

    fn replace<'a>(&self, v: &'a mut Value, path: &mut Vec<Step<'a>>) {
        match v {
            Value::String(s) if Held::at(path) => {
                if let Some(t) = self.get(s) {
                    *s = t.text();
                }
            }
            Value::Array(items) => {
                for (i, x) in items.iter_mut().enumerate() {
                    path.push(Step::Index(i));
                    self.replace(x, path);
                    path.pop();
                }
            }
            Value::Object(map) => {
                for (key, x) in map.iter_mut() {
                    path.push(Step::Key(key));
                    self.replace(x, path);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

/// Long strings of a `tools/call`'s arguments that a transport kept out of the engine (the
/// inbound mirror of what a handler holds): the arguments it hands over carry a marker in
/// place of each, and the handler gets the strings themselves back in their places.
///
/// A browser wire's message arrives as a JS object; its JSON text is what the engine reads.
/// A long argument (a document, a file's base64) would be written into that text, copied into
/// wasm memory, parsed, and copied out again for the page's function, which only wants the
/// string it was sent: in Chromium 156 about 6 ms a round trip for 1 MiB (and the strings
/// left behind made V8 collect often), where `@mcp-b/global` hands the page's object over as
/// it came in about 1.7; held, about 1.9. `polyfill/src/message_text.js` instead
/// writes a marker for each string of the arguments of at least 16,384 UTF-16 code units,
/// after making sure that no string of the arguments starts as a marker does, and the
/// transport hands the strings to the session with the text ([`hold_received`]).
///
/// The engine reads a held string only where something needs its text: arguments checked by
/// a schema that reads strings' texts (anything but a plain schema whose keywords only ask for
/// types, counts and names: [`CompiledSchema::reads_string_texts`]) or refused by one (a
/// violation's message quotes the instance), a handler that is not a page's function, or a
/// call that may become a task (a task keeps its arguments until it runs) get the arguments
/// with the texts read in ([`HeldArguments::read_into`]). Dropping the value frees what it
/// holds.
///
/// [`CompiledSchema::reads_string_texts`]: super::CompiledSchema::reads_string_texts
pub struct HeldArguments(HeldTexts);

/// What a held argument's marker starts with (`polyfill/src/message_text.js` writes it, then
/// a number naming its message, unguessable, and the string's index).
pub const ARGUMENT_MARKER_START: &str = "\u{FDD0}arg ";

impl std::ops::Deref for HeldArguments {
    type Target = HeldTexts;
    fn deref(&self) -> &HeldTexts {
        &self.0
    }
}

impl HeldArguments {
    /// The held strings and their markers, as the transport read them.
    pub fn new(texts: Vec<(String, Box<dyn HeldText>)>) -> HeldArguments {
        HeldArguments(HeldTexts(texts))
    }

    /// Whether `args` has each marker exactly once: the arguments these strings were held
    /// from (a marker names its message with a number no agent can know:
    /// `polyfill/src/message_text.js`).
    pub fn all_in(&self, args: &Value) -> bool {
        fn count(v: &Value, m: &str) -> usize {
            match v {
                Value::String(s) => usize::from(s == m),
                Value::Array(items) => items.iter().map(|x| count(x, m)).sum(),
                Value::Object(map) => map.values().map(|x| count(x, m)).sum(),
                _ => 0,
            }
        }
        self.markers().all(|m| count(args, m) == 1)
    }

    /// Puts each held string's text in place of its marker in `args`.
    pub fn read_into(&self, args: &mut Value) {
        match args {
            Value::String(s) if s.starts_with(ARGUMENT_MARKER_START) => {
                if let Some(t) = self.get(s) {
                    *s = t.text();
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|x| self.read_into(x)),
            Value::Object(map) => map.values_mut().for_each(|x| self.read_into(x)),
            _ => {}
        }
    }
}

impl HeldArguments {
    /// `text`, JSON text of arguments that carry these strings' markers, with each string's
    /// JSON in its marker's place: the text the arguments had before the strings were held.
    /// `None` where a marker is not in `text` exactly once (a marker names its message with a
    /// number no agent can know, so where it is, it is the string the transport wrote).
    pub fn written_into(&self, text: &str) -> Option<String> {
        let texts = &self.0 .0;
        // Where each marker's string is (its quotes included): looked for where its first
        // character, a noncharacter, follows a quote.
        let mut places = Vec::with_capacity(texts.len());
        for (at, _) in text.match_indices(ARGUMENT_MARKER_START.chars().next()?) {
            let Some(start) = at.checked_sub(1).filter(|&s| text.as_bytes()[s] == b'"') else {
                continue;
            };
            for (i, (marker, _)) in texts.iter().enumerate() {
                let end = at + marker.len();
                if text[at..].starts_with(marker.as_str()) && text[end..].starts_with('"') {
                    places.push((start, end + 1, i));
                }
            }
        }
        let mut found = vec![false; texts.len()];
        for &(.., i) in &places {
            if std::mem::replace(&mut found[i], true) {
                return None;
            }
        }
        if found.contains(&false) {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut from = 0;
        for (start, end, i) in places {
            out.push_str(&text[from..start]);
            let string = Value::String(texts[i].1.text());
            out.push_str(&crate::protocol::json_text::to_string(&string));
            from = end;
        }
        out.push_str(&text[from..]);
        Some(out)
    }
}

/// A step of a [`HeldPlace`]'s path: an object's key or an array's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    /// The member with this key.
    Key(String),
    /// The item at this index.
    Index(usize),
}

impl PathStep {
    /// The step, borrowed.
    pub fn step(&self) -> Step<'_> {
        match self {
            PathStep::Key(k) => Step::Key(k),
            PathStep::Index(i) => Step::Index(*i),
        }
    }
}

impl From<&Step<'_>> for PathStep {
    fn from(s: &Step<'_>) -> PathStep {
        match *s {
            Step::Key(k) => PathStep::Key(k.to_owned()),
            Step::Index(i) => PathStep::Index(i),
        }
    }
}

/// Where a held string goes back into arguments handed over as JSON text
/// ([`HeldArguments::apart`]): the steps from the arguments to it, and its marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldPlace {
    /// The steps from the arguments to the string.
    pub path: Vec<PathStep>,
    /// The marker that stood there.
    pub marker: String,
}

impl HeldArguments {
    /// `args`, which carry these strings' markers (checked: [`HeldArguments::all_in`]), as
    /// JSON text with `null` where each marker was, and where each was: what a handler that
    /// takes text gets ([`ToolHandler::call_text_holding`]), so a call in flight keeps text,
    /// not a tree of values.
    ///
    /// [`ToolHandler::call_text_holding`]: super::ToolHandler::call_text_holding
    pub fn apart(&self, args: &Value) -> (String, Vec<HeldPlace>) {
        let markers: Vec<&str> = self.markers().collect();
        let (text, apart) =
            crate::protocol::json_text::to_string_apart_with(args, usize::MAX, &markers);
        let places = apart
            .into_iter()
            .map(|a| HeldPlace {
                path: a.path.iter().map(PathStep::from).collect(),
                marker: a.text.to_owned(),
            })
            .collect();
        (text, places)
    }
}

thread_local! {
    /// The held arguments of the message a transport is handing to a session.
    static RECEIVING: Cell<Option<Rc<HeldArguments>>> = const { Cell::new(None) };
}

/// Makes `held` the arguments of the message about to be received, for its `tools/call` to
/// take ([`take_received`]) while the session reads it: its request is admitted, and when a
/// slot is free dispatched, before the session's `receive` returns. What a message refused
/// before that leaves, the transport lets go of once the session has read it
/// ([`let_go`]). (A `tools/call` that takes strings whose markers its arguments do not
/// have drops them: [`HeldArguments::all_in`].)
pub fn hold_received(held: Rc<HeldArguments>) {
    RECEIVING.with(|r| r.set(Some(held)));
}

/// Lets go of what the message the session has just read held and its request did not take.
pub fn let_go() {
    RECEIVING.with(|r| drop(r.take()));
}

/// The held arguments of the message being received, for its `tools/call`; a request that
/// waits for a slot takes them when admitted and gives them back ([`hold_received`]) when its
/// turn comes.
pub fn take_received() -> Option<Rc<HeldArguments>> {
    RECEIVING.with(|r| r.take())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Text(&'static str);
    impl HeldText for Text {
        fn text(&self) -> String {
            self.0.to_string()
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    #[test]
    fn refused_until_allowed_then_written_in_place_of_its_marker() {
        let h = Holder::default();
        assert!(h.hold(Box::new(Text("no"))).is_err());
        h.allow();
        let a = h.hold(Box::new(Text("first"))).ok().unwrap();
        let b = h.hold(Box::new(Text("second"))).ok().unwrap();
        assert_ne!(a, b);
        let held = h.take();
        assert_eq!(held.markers().collect::<Vec<_>>(), [a.as_str(), b.as_str()]);
        // Only a `text` member's value inside the result: not the id, not a resource's uri.
        let mut m = json!({"jsonrpc": "2.0", "id": a, "result": {"content": [
            {"type": "text", "text": a}, {"type": "text", "text": b}],
            "contents": [{"uri": a, "text": a}]}});
        held.write_into(&mut m);
        assert_eq!(
            m,
            json!({"jsonrpc": "2.0", "id": a, "result": {"content": [
                {"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
                "contents": [{"uri": a, "text": "first"}]}})
        );
        let (k, i) = (Step::Key, Step::Index);
        assert!(Held::at(&[k("result"), k("content"), i(0), k("text")]));
        assert!(!Held::at(&[k("result"), k("contents"), i(0), k("uri")]));
        assert!(!Held::at(&[k("id")]));
        assert!(!Held::at(&[k("text")]));
        assert!(h.take().is_empty());
    }

    #[test]
    fn held_within_a_value_only_when_each_marker_stands_there_once() {
        let texts = || -> Vec<Box<dyn HeldText>> { vec![Box::new(Text("a")), Box::new(Text("b"))] };
        let blocks = |a: &str, b: &str, other: &str| {
            json!({"content": [{"type": "text", "text": a}, {"type": "text", "text": b},
                {"type": "text", "text": other}]})
        };
        let h = Holder::default();
        // Refused until allowed: `build` is not called.
        assert!(h.hold_within(texts(), None, |_| unreachable!()).is_none());
        h.allow();
        let v = h.hold_within(texts(), None, |m| Some(blocks(&m[0], &m[1], "short")));
        let held = h.take();
        let mut message = json!({"result": v.unwrap()});
        held.write_into(&mut message);
        assert_eq!(message["result"], blocks("a", "b", "short"));
        // A page's string that reads as a marker (the other's, its own, or one no hold
        // made), a marker twice or one missing: nothing is held.
        let forged = |m: &[String]| -> Vec<Value> {
            vec![
                blocks(&m[0], &m[1], &m[0]),
                blocks(&m[0], &m[0], "short"),
                blocks(&m[0], "b", "short"),
                blocks(&m[0], &m[1], &marker(7)),
                json!({"content": [{"type": "text", "text": m[0]}, {"type": "text", "text": m[1]}],
                    "structuredContent": {"deep": [m[1]]}}),
            ]
        };
        for case in 0..5 {
            let v = h.hold_within(texts(), None, |m| Some(forged(m).swap_remove(case)));
            assert!(v.is_none(), "case {case}");
            assert!(h.take().is_empty(), "case {case}");
        }
        // `build` failing holds nothing either; what was held before stays.
        let kept = h.hold(Box::new(Text("kept"))).ok().unwrap();
        assert!(h.hold_within(texts(), None, |_| None).is_none());
        // An earlier hold's marker in the value is not this hold's.
        assert!(h
            .hold_within(texts(), None, |m| Some(blocks(&m[0], &m[1], &kept)))
            .is_none());
        assert_eq!(h.take().markers().collect::<Vec<_>>(), [kept.as_str()]);
    }

    #[test]
    fn a_structured_content_is_held_only_where_objects_may_be_and_written_in_place() {
        let sc = || -> Option<Box<dyn HeldText>> { Some(Box::new(Text(r#"{"n":[1,"x"]}"#))) };
        let value = |m: &[String]| {
            Some(
                json!({"content": [{"type": "text", "text": m.first().cloned().unwrap_or_default()}],
                "structuredContent": {}}),
            )
        };
        let h = Holder::allowing();
        h.allow_objects();
        // The structured content alone, or with a text.
        let v = h.hold_within(Vec::new(), sc(), value).unwrap();
        // One per answer.
        assert!(h.hold_within(Vec::new(), sc(), value).is_none());
        // Only where the value has an empty object for it.
        let h2 = Holder::allowing();
        h2.allow_objects();
        let elsewhere = |_: &[String]| Some(json!({"content": [], "structuredContent": {"a": 1}}));
        assert!(h2.hold_within(Vec::new(), sc(), elsewhere).is_none());
        assert!(h2.take().is_empty());
        let held = h.take();
        assert!(held.structured().is_some() && held.markers().next().is_none());
        let mut m = json!({"id": 1, "result": v});
        held.write_into(&mut m);
        assert_eq!(m["result"]["structuredContent"], json!({"n": [1, "x"]}));
        let v = h
            .hold_object(Box::new(Text("the text")), sc().unwrap())
            .unwrap();
        let held = h.take();
        let mut m = json!({"id": 1, "result": v});
        held.write_into(&mut m);
        assert_eq!(
            m["result"],
            json!({"content": [{"type": "text", "text": "the text"}], "structuredContent": {"n": [1, "x"]}})
        );
        // A version without structured content has none to replace.
        let v = h.hold_object(Box::new(Text("t")), sc().unwrap()).unwrap();
        let held = h.take();
        let mut m = json!({"id": 1, "result": {"content": v["content"].clone()}});
        held.write_into(&mut m);
        assert_eq!(
            m["result"],
            json!({"content": [{"type": "text", "text": "t"}]})
        );
    }

    #[test]
    fn a_structured_content_an_output_schema_reads_is_given_once_as_text() {
        let text = r#"{"n":[1,"x"]}"#;
        let sc = || -> Option<Box<dyn HeldText>> { Some(Box::new(Text(r#"{"n":[1,"x"]}"#))) };
        // A tool with an output schema: held with an empty object in its place.
        let h = Holder::allowing();
        assert!(!h.allows_objects());
        assert_eq!(h.unchecked_text(), None);
        let v = h
            .hold_object(Box::new(Text("the text")), sc().unwrap())
            .unwrap();
        assert_eq!(v["structuredContent"], json!({}));
        // One per answer.
        assert!(h.hold_object(Box::new(Text("t")), sc().unwrap()).is_none());
        // Its text for the check, once.
        assert_eq!(h.unchecked_text().as_deref(), Some(text));
        assert_eq!(h.unchecked_text(), None);
        let held = h.take();
        let mut m = json!({"id": 1, "result": v});
        held.write_into(&mut m);
        assert_eq!(
            m["result"],
            json!({"content": [{"type": "text", "text": "the text"}], "structuredContent": {"n": [1, "x"]}})
        );
        // A CallToolResult's, beside its blocks.
        let within = |_: &[String]| Some(json!({"content": [], "structuredContent": {}}));
        assert!(h.hold_within(Vec::new(), sc(), within).is_some());
        assert_eq!(h.unchecked_text().as_deref(), Some(text));
        // Refused by the check: a tool error, which has no structuredContent to fill.
        h.take();
        h.hold_object(Box::new(Text("t")), sc().unwrap()).unwrap();
        assert!(h.unchecked_text().is_some());
        let held = h.take();
        let mut m = json!({"id": 1, "result": crate::server::results::tool_error("no")});
        held.write_into(&mut m);
        assert_eq!(m["result"]["structuredContent"], Value::Null);
        assert_eq!(m["result"]["isError"], json!(true));
        // Where nothing reads it, there is nothing to check.
        let h = Holder::allowing();
        h.allow_objects();
        h.hold_object(Box::new(Text("t")), sc().unwrap()).unwrap();
        assert_eq!(h.unchecked_text(), None);
    }

    #[test]
    fn held_arguments_written_into_their_text_where_each_marker_is_once() {
        let m = |n: u32| format!("{ARGUMENT_MARKER_START}5.1 {n}");
        let held = HeldArguments::new(vec![
            (m(0), Box::new(Text("a \"doc\"\n"))),
            (m(1), Box::new(Text("second"))),
        ]);
        let text = format!(r#"{{"b": ["{}", "x{}"], "a":"{}"}}"#, m(1), m(0), m(0));
        // (A string that holds a marker but is not one is left as it is.)
        assert_eq!(
            held.written_into(&text).unwrap(),
            format!(r#"{{"b": ["second", "x{}"], "a":"a \"doc\"\n"}}"#, m(0))
        );
        // A marker missing, or there twice: not these arguments' strings.
        assert_eq!(held.written_into(&format!(r#"{{"a": "{}"}}"#, m(0))), None);
        let twice = format!(r#"["{}", "{}", "{}"]"#, m(0), m(1), m(1));
        assert_eq!(held.written_into(&twice), None);
        // A marker's number that only starts as another's does is not it.
        let longer = format!(r#"["{}0", "{}", "{}"]"#, m(1), m(0), m(1));
        assert_eq!(
            held.written_into(&longer).unwrap(),
            format!(r#"["{}0", "a \"doc\"\n", "second"]"#, m(1))
        );
    }
}

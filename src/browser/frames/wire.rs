//! The frame wire: this polyfill's instances in documents of different origins of one frame
//! tree, talking over `postMessage`. It carries the cross-origin half of WebMCP's frames:
//! a frame's `tools` policy as its embedder grants it, the tools a document exposed to
//! another origin (`registerTool(tool, { exposedTo })`, listed by `getTools({ fromOrigins })`),
//! calls of such tools, and their changes.
//!
//! Every message is an object whose member [`KEY`] names its kind:
//!
//! | kind | from → to | members | carries tool data |
//! |---|---|---|---|
//! | `policy` | frame → its embedder | `id` | no |
//! | `policy-reply` | embedder → frame | `id`, `allowed` | no |
//! | `list` | lister → window of a `fromOrigins` origin | `id` | no |
//! | `list-reply` | → lister | `id`, `tools` (only those exposed to the lister's origin) | yes |
//! | `call` | caller → the tool's window | `id`, `name`, `input` | yes |
//! | `cancel` | caller → the tool's window | `id` | no |
//! | `call-reply` | → caller | `id`, `ok`, `value` or `error: { name, message }` | yes |
//! | `changed` | → every instance it knows | (the tools exposed to its origin changed) | no |
//! | `gone` | → every instance it knows (`pagehide`) | | no |
//!
//! Security rules: every message is posted with an exact target origin, never `'*'`: a reply
//! goes to `event.origin` of what it answers; a question goes to an origin the asker was
//! given (`fromOrigins`, the tool's `origin`, or the origin a window answered from before).
//! Nothing is answered to a window outside this frame tree or of an opaque origin; a tool is
//! listed and run only for an origin in its `exposedTo`, and only while this document has the
//! `tools` feature.
//!
//! Check order of an incoming message: (1) an object with a string [`KEY`] member (anything
//! else is another script's message, left alone); (2) its source is another window of this
//! frame tree; (3) its origin is not opaque; (4) what the kind needs: a reply must answer an
//! open question of this document, from the window and origin it was asked of.
//!
//! Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-gettools>
//! (digest: `shared/spec/WEBMCP.md`, "Frames, origins and policy").

use js_sys::{Array, Promise, Reflect};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};

use super::super::engine::EngineInner;
use super::super::store::{registered_tool, Door};
use super::policy::{self, Policy};
use crate::js;
use crate::js::DomError;

/// The member naming a frame-wire message's kind.
pub const KEY: &str = "modelcontextPolyfillFrames";
/// How long a frame waits for its embedder's policy answer before taking the feature as
/// allowed (the embedder does not run this polyfill).
const POLICY_WAIT_MS: f64 = 1000.0;
/// How long `getTools({ fromOrigins })` waits for windows not known to run this polyfill
/// (a window of another origin, or without the polyfill, never answers).
const PROBE_MS: f64 = 150.0;
/// How long it waits for windows known to run this polyfill.
const KNOWN_MS: f64 = 2000.0;
/// How often a pending call checks whether the tool's frame was closed.
const CLOSED_POLL_MS: f64 = 250.0;

/// The wire's state in one document (kept with the engine, [`EngineInner::state`]).
#[derive(Default)]
pub struct Wire {
    /// The `message` and `pagehide` listeners.
    listeners: RefCell<Vec<js::Listener>>,
    next_id: Cell<u64>,
    /// This document's policy as its cross-origin embedder answered it.
    policy: Cell<Option<bool>>,
    /// The open question to the embedder: its id, the promise of its answer and the timer
    /// ending the wait.
    asking: RefCell<Option<(u64, js::Deferred, js::Timer)>>,
    /// The id of the question to the embedder (a late answer still counts).
    asked: Cell<u64>,
    /// Windows of the tree known to run this polyfill: the origin they spoke from and the
    /// names of this document's tools exposed to that origin when they last heard of them.
    known: RefCell<Vec<(JsValue, String, Vec<String>)>>,
    listings: RefCell<Vec<Rc<Listing>>>,
    calls: RefCell<Vec<Rc<Outgoing>>>,
    /// Calls this document runs for other windows: window, origin, id, the call's controller.
    serving: RefCell<Vec<(JsValue, String, f64, web_sys::AbortController)>>,
}

/// One `getTools({ fromOrigins })` waiting for other windows.
struct Listing {
    id: u64,
    from: Vec<String>,
    /// The windows asked, with the origin each is known to have (`None`: probed).
    asked: Vec<(JsValue, Option<String>)>,
    /// How many of the known windows have not answered.
    known_left: Cell<usize>,
    probed: bool,
    answered: RefCell<Vec<JsValue>>,
    tools: RefCell<Vec<JsValue>>,
    done: js::Deferred,
    timer: RefCell<Option<js::Timer>>,
}

/// One `executeTool` of another origin's tool, waiting for its answer.
struct Outgoing {
    id: u64,
    window: JsValue,
    origin: String,
    done: js::Deferred,
    poll: RefCell<Option<js::Timer>>,
}

impl Wire {
    fn next(&self) -> u64 {
        let n = self.next_id.get() + 1;
        self.next_id.set(n);
        n
    }

    fn known_origin(&self, window: &JsValue) -> Option<String> {
        self.known
            .borrow()
            .iter()
            .find(|(w, ..)| w == window)
            .map(|(_, o, _)| o.clone())
    }

    /// `window` runs this polyfill and spoke from `origin`; `names`, when given, are the
    /// tools exposed to it that it was just told of.
    fn remember(&self, window: &JsValue, origin: &str, names: Option<Vec<String>>) {
        let mut known = self.known.borrow_mut();
        match known.iter_mut().find(|(w, ..)| w == window) {
            Some(entry) => {
                if entry.1 != origin {
                    *entry = (window.clone(), origin.to_string(), Vec::new());
                }
                if let Some(names) = names {
                    entry.2 = names;
                }
            }
            None => known.push((
                window.clone(),
                origin.to_string(),
                names.unwrap_or_default(),
            )),
        }
    }
}

fn message(kind: &str, id: u64) -> JsValue {
    let m: JsValue = js::object().into();
    js::set(&m, KEY, &JsValue::from_str(kind));
    js::set(&m, "id", &JsValue::from_f64(id as f64));
    m
}

/// `window.postMessage(msg, origin)`: exact origins only.
fn post(window: &JsValue, origin: &str, msg: &JsValue) -> Result<JsValue, JsValue> {
    js::call(window, "postMessage", &[msg, &JsValue::from_str(origin)])
}

fn top_of(w: &JsValue) -> JsValue {
    js::get(w, "top").unwrap_or(JsValue::NULL)
}

/// Whether `source` is another window of this document's frame tree.
fn in_tree(inner: &EngineInner, source: &JsValue) -> bool {
    source.is_object() && *source != *inner.global() && {
        let top = top_of(source);
        !top.is_null() && top == top_of(inner.global())
    }
}

/// Whether `w` is a window whose document this one cannot reach (another origin).
fn cross_origin(w: &JsValue) -> bool {
    js::get(w, "origin").is_err()
}

/// Starts the wire in this document: listens for messages, says `gone` on `pagehide`, and,
/// in a frame whose embedder is cross-origin, asks the embedder for the `tools` policy.
pub fn attach(inner: &Rc<EngineInner>) {
    let global = inner.global().clone();
    if !js::get(&global, "document").is_ok_and(|d| d.is_object()) {
        return; // workers are not part of a frame tree
    }
    let wire = inner.state::<Wire>();
    let weak = Rc::downgrade(inner);
    if let Ok(l) = js::Listener::dom(&global, "message", move |ev: JsValue, _| {
        if let Some(me) = weak.upgrade() {
            on_message(&me, &ev);
        }
    }) {
        wire.listeners.borrow_mut().push(l);
    }
    let weak = Rc::downgrade(inner);
    if let Ok(l) = js::Listener::dom(&global, "pagehide", move |_, _| {
        if let Some(me) = weak.upgrade() {
            say_gone(&me);
        }
    }) {
        wire.listeners.borrow_mut().push(l);
    }
    let parent = js::get(&global, "parent").unwrap_or(JsValue::NULL);
    let embedded = parent.is_object() && parent != global;
    let cross_embedder = embedded
        && !js::get(&global, "frameElement").is_ok_and(|e| e.is_object())
        && cross_origin(&parent);
    if cross_embedder {
        ask_policy(inner, &wire, &parent);
    }
}

/// Asks the embedder for this document's policy. The embedder's origin is not readable from
/// inside the frame; `location.ancestorOrigins` gives it where the browser has it, else the
/// question (which carries no data) goes to any origin and the answer is taken only from the
/// parent window.
fn ask_policy(inner: &Rc<EngineInner>, wire: &Wire, parent: &JsValue) {
    let id = wire.next();
    let ancestor = js::get(inner.global(), "location")
        .and_then(|l| js::get(&l, "ancestorOrigins"))
        .ok()
        .filter(|a| a.is_object())
        .and_then(|a| Reflect::get_u32(&a, 0).ok())
        .and_then(|o| o.as_string());
    let target = ancestor.unwrap_or_else(|| "*".into());
    if post(parent, &target, &message("policy", id)).is_err() {
        return;
    }
    let weak = Rc::downgrade(inner);
    let timer = js::Timer::timeout(POLICY_WAIT_MS, move || {
        if let Some(me) = weak.upgrade() {
            settle_policy(&me.state::<Wire>(), id, true);
        }
    });
    if let Ok(timer) = timer {
        wire.asked.set(id);
        *wire.asking.borrow_mut() = Some((id, js::Deferred::new(), timer));
    }
}

/// The embedder answered question `id` (or the wait ended: `allowed` then).
fn settle_policy(wire: &Wire, id: u64, allowed: bool) {
    if wire.asked.get() != id {
        return;
    }
    wire.policy.set(Some(allowed));
    let open = wire.asking.borrow_mut().take();
    if let Some((_, done, _timer)) = open {
        done.settle(true, &JsValue::from_bool(allowed));
    }
}

/// This document's policy as its cross-origin embedder gives it.
pub fn own_policy(inner: &EngineInner) -> Policy {
    let wire = inner.state::<Wire>();
    match wire.policy.get() {
        Some(true) => Policy::Allowed,
        Some(false) => Policy::Denied(policy::not_allowed()),
        None => match wire.asking.borrow().as_ref() {
            Some((_, done, _)) => Policy::Wait(done.promise().clone()),
            None => Policy::Allowed,
        },
    }
}

/// Runs `f` with whether this document has the `tools` feature, now or once known.
fn with_policy(inner: &Rc<EngineInner>, f: impl FnOnce(&Rc<EngineInner>, bool) + 'static) {
    match policy::policy(inner) {
        Policy::Allowed => f(inner, true),
        Policy::Denied(_) => f(inner, false),
        Policy::Wait(p) => {
            let me = inner.clone();
            spawn_local(async move {
                let allowed = JsFuture::from(p).await.ok() == Some(JsValue::TRUE);
                f(&me, allowed);
            });
        }
    }
}

fn on_message(inner: &Rc<EngineInner>, ev: &JsValue) {
    // (1) A frame-wire message.
    let data = js::get(ev, "data").unwrap_or(JsValue::UNDEFINED);
    if !data.is_object() {
        return;
    }
    let Some(kind) = js::get(&data, KEY).ok().and_then(|k| k.as_string()) else {
        return;
    };
    // (2) From another window of this frame tree; (3) of an origin that is not opaque.
    let source = js::get(ev, "source").unwrap_or(JsValue::NULL);
    if !in_tree(inner, &source) {
        return;
    }
    let origin = js::event_origin(ev);
    if origin.is_empty() || origin == "null" {
        return;
    }
    let Some(id) = js::get(&data, "id").ok().and_then(|i| i.as_f64()) else {
        if kind == "changed" || kind == "gone" {
            on_notice(inner, &kind, &source);
        }
        return;
    };
    // (4) By kind.
    let wire = inner.state::<Wire>();
    match kind.as_str() {
        "policy" => answer_policy(inner, &wire, &source, &origin, id),
        "policy-reply" if source == js::get(inner.global(), "parent").unwrap_or(JsValue::NULL) => {
            wire.remember(&source, &origin, None);
            let allowed = js::get(&data, "allowed").ok() == Some(JsValue::TRUE);
            settle_policy(&wire, id as u64, allowed);
        }
        "list" => answer_list(inner, &wire, &source, &origin, id),
        "list-reply" => take_list_reply(&wire, &source, &origin, id as u64, &data),
        "call" => answer_call(inner, &wire, &source, &origin, id, &data),
        "cancel" => {
            let serving = wire.serving.borrow();
            if let Some((.., c)) = serving
                .iter()
                .find(|(w, o, i, _)| *w == source && *o == origin && *i == id)
            {
                c.abort();
            }
        }
        "call-reply" => take_call_reply(&wire, &source, &origin, id as u64, &data),
        _ => {}
    }
}

/// `policy`: a frame of this document asks what its `allow` attribute grants it.
fn answer_policy(inner: &Rc<EngineInner>, wire: &Wire, source: &JsValue, origin: &str, id: f64) {
    let Some(el) = frame_element_of(inner, source) else {
        return; // not a frame of this document
    };
    wire.remember(source, origin, None);
    let admits = policy::element_admits(&el, origin, inner.origin());
    let (source, origin) = (source.clone(), origin.to_string());
    with_policy(inner, move |_, allowed| {
        let m = message("policy-reply", 0);
        js::set(&m, "id", &JsValue::from_f64(id));
        js::set(&m, "allowed", &JsValue::from_bool(allowed && admits));
        let _ = post(&source, &origin, &m);
    });
}

/// The frame element (`<iframe>`, `<frame>`, `<object>`) of this document showing `window`.
fn frame_element_of(inner: &EngineInner, window: &JsValue) -> Option<JsValue> {
    let doc = js::get(inner.global(), "document").ok()?;
    let all = js::call(
        &doc,
        "querySelectorAll",
        &[&JsValue::from_str("iframe, frame, object")],
    )
    .ok()?;
    let n = js::get(&all, "length").ok()?.as_f64()? as u32;
    (0..n)
        .filter_map(|i| Reflect::get_u32(&all, i).ok())
        .find(|el| js::get(el, "contentWindow").ok().as_ref() == Some(window))
}

/// This document's tools exposed to `origin`: `RegisteredTool` dictionaries without
/// `window` (a window cannot cross) and `origin` (the receiver knows it), sorted by name.
fn exposed_tools(inner: &EngineInner, origin: &str) -> Vec<(String, JsValue)> {
    let mut out: Vec<(String, JsValue)> = inner
        .server()
        .tools()
        .iter()
        .filter(|t| {
            inner.tool_data(&t.def.name).is_some_and(|(_, d)| {
                d.door == Door::WebMcp && d.exposed_to.iter().any(|o| o == origin)
            })
        })
        .map(|t| {
            let d = registered_tool(inner, t);
            let _ = Reflect::delete_property(
                d.unchecked_ref::<js_sys::Object>(),
                &JsValue::from_str("window"),
            );
            let _ = Reflect::delete_property(
                d.unchecked_ref::<js_sys::Object>(),
                &JsValue::from_str("origin"),
            );
            (t.def.name.clone(), d)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `list`: another origin's document asks for the tools exposed to it. It is answered
/// (with none while this document lacks the feature).
fn answer_list(inner: &Rc<EngineInner>, wire: &Wire, source: &JsValue, origin: &str, id: f64) {
    wire.remember(source, origin, None);
    let (source, origin) = (source.clone(), origin.to_string());
    with_policy(inner, move |me, allowed| {
        let tools = if allowed {
            exposed_tools(me, &origin)
        } else {
            Vec::new()
        };
        let names: Vec<String> = tools.iter().map(|(n, _)| n.clone()).collect();
        me.state::<Wire>().remember(&source, &origin, Some(names));
        let m = message("list-reply", 0);
        js::set(&m, "id", &JsValue::from_f64(id));
        let list: Array = tools.into_iter().map(|(_, d)| d).collect();
        js::set(&m, "tools", &list);
        let _ = post(&source, &origin, &m);
    });
}

/// A tool dictionary from another origin's `list-reply`, as a `RegisteredTool` of `window`
/// and `origin` (members in lexicographic order); `None` when it is malformed.
fn remote_tool(d: &JsValue, window: &JsValue, origin: &str) -> Option<JsValue> {
    let name = js::get(d, "name").ok()?.as_string()?;
    let description = js::get(d, "description").ok()?.as_string()?;
    let o: JsValue = js::object().into();
    let annotations = js::get(d, "annotations").unwrap_or(JsValue::UNDEFINED);
    if annotations.is_object() {
        let ann: JsValue = js::object().into();
        for k in super::super::store::WEBMCP_HINTS {
            let b = js::get(&annotations, k).ok() == Some(JsValue::TRUE);
            js::set(&ann, k, &JsValue::from_bool(b));
        }
        js::set(&o, "annotations", &ann);
    }
    js::set(&o, "description", &JsValue::from_str(&description));
    if let Ok(schema) = js::get(d, "inputSchema") {
        if schema.is_object() {
            js::set(&o, "inputSchema", &schema);
        }
    }
    js::set(&o, "name", &JsValue::from_str(&name));
    js::set(&o, "origin", &JsValue::from_str(origin));
    let title = js::get(d, "title")
        .ok()
        .and_then(|t| t.as_string())
        .unwrap_or_default();
    js::set(&o, "title", &JsValue::from_str(&title));
    js::set(&o, "window", window);
    Some(o)
}

/// The tools other windows of the tree expose to this document's origin, from the windows
/// of the origins in `from` (serialized origins): a promise of an array of `RegisteredTool`
/// dictionaries, or `None` when no window needs asking.
pub fn list(inner: &Rc<EngineInner>, from: &[String]) -> Option<Promise> {
    let mut from: Vec<String> = from
        .iter()
        .filter(|o| *o != inner.origin())
        .cloned()
        .collect();
    from.dedup();
    if from.is_empty() {
        return None;
    }
    let wire = inner.state::<Wire>();
    let id = wire.next();
    let msg = message("list", id);
    let mut asked = Vec::new();
    for w in super::frame_tree(inner.global()) {
        if w == *inner.global() || !cross_origin(&w) {
            continue;
        }
        match wire.known_origin(&w) {
            Some(o) if from.contains(&o) => {
                if post(&w, &o, &msg).is_ok() {
                    asked.push((w, Some(o)));
                }
            }
            Some(_) => {}
            None => {
                for o in &from {
                    let _ = post(&w, o, &msg);
                }
                asked.push((w, None));
            }
        }
    }
    if asked.is_empty() {
        return None;
    }
    let probed = asked.iter().any(|(_, o)| o.is_none());
    let known = asked.len() - asked.iter().filter(|(_, o)| o.is_none()).count();
    let listing = Rc::new(Listing {
        id,
        from,
        asked,
        known_left: Cell::new(known),
        probed,
        answered: RefCell::new(Vec::new()),
        tools: RefCell::new(Vec::new()),
        done: js::Deferred::new(),
        timer: RefCell::new(None),
    });
    let weak: Weak<EngineInner> = Rc::downgrade(inner);
    let wait = if probed { PROBE_MS } else { KNOWN_MS };
    if let Ok(t) = js::Timer::timeout(wait, move || {
        if let Some(me) = weak.upgrade() {
            finish_listing(&me.state::<Wire>(), id);
        }
    }) {
        *listing.timer.borrow_mut() = Some(t);
    }
    wire.listings.borrow_mut().push(listing.clone());
    Some(listing.done.promise().clone())
}

/// Removes and returns the first entry of `list` that `pred` picks.
fn take<T>(list: &RefCell<Vec<Rc<T>>>, pred: impl Fn(&T) -> bool) -> Option<Rc<T>> {
    let mut list = list.borrow_mut();
    let i = list.iter().position(|x| pred(x))?;
    Some(list.remove(i))
}

fn finish_listing(wire: &Wire, id: u64) {
    if let Some(l) = take(&wire.listings, |l| l.id == id) {
        l.timer.borrow_mut().take();
        let tools: Array = l.tools.borrow().iter().cloned().collect();
        l.done.settle(true, &tools);
    }
}

/// `list-reply`: an answer to an open listing, from a window it asked, of the origin it
/// asked for.
fn take_list_reply(wire: &Wire, source: &JsValue, origin: &str, id: u64, data: &JsValue) {
    let Some(l) = wire.listings.borrow().iter().find(|l| l.id == id).cloned() else {
        return;
    };
    let Some((_, expected)) = l.asked.iter().find(|(w, _)| w == source) else {
        return;
    };
    let admitted = match expected {
        Some(o) => o == origin,
        None => l.from.iter().any(|o| o == origin),
    };
    if !admitted || l.answered.borrow().contains(source) {
        return;
    }
    l.answered.borrow_mut().push(source.clone());
    wire.remember(source, origin, None);
    let list = js::get(data, "tools").unwrap_or(JsValue::UNDEFINED);
    if Array::is_array(&list) {
        let tools: Vec<JsValue> = Array::from(&list)
            .iter()
            .filter_map(|d| remote_tool(&d, source, origin))
            .collect();
        l.tools.borrow_mut().extend(tools);
    }
    if expected.is_some() {
        l.known_left.set(l.known_left.get().saturating_sub(1));
    }
    if !l.probed && l.known_left.get() == 0 {
        finish_listing(wire, id);
    }
}

/// Runs another origin's document's tool `name` with `args`: a promise of its result, or
/// `UnknownError` when `window` is not known to run this polyfill with `origin`.
pub fn call(
    inner: &Rc<EngineInner>,
    window: &JsValue,
    origin: &str,
    name: &str,
    args: &Value,
    signal: Option<web_sys::AbortSignal>,
) -> Result<Promise, DomError> {
    let wire = inner.state::<Wire>();
    let unknown = || DomError::Unknown(format!("No tool named {name:?} is available."));
    if wire.known_origin(window).as_deref() != Some(origin) {
        return Err(unknown());
    }
    let id = wire.next();
    let m = message("call", id);
    js::set(&m, "name", &JsValue::from_str(name));
    js::set(&m, "input", &js::from_json(args));
    post(window, origin, &m).map_err(|_| unknown())?;
    let out = Rc::new(Outgoing {
        id,
        window: window.clone(),
        origin: origin.to_string(),
        done: js::Deferred::new(),
        poll: RefCell::new(None),
    });
    // The frame element removed: its window is closed, and nothing will answer.
    let weak = Rc::downgrade(inner);
    let w = window.clone();
    if let Ok(t) = js::Timer::interval(CLOSED_POLL_MS, move || {
        if js::get(&w, "closed").ok() == Some(JsValue::TRUE) {
            if let Some(me) = weak.upgrade() {
                end_call(&me.state::<Wire>(), id, Err(gone()));
            }
        }
    }) {
        *out.poll.borrow_mut() = Some(t);
    }
    if let Some(sig) = signal {
        let weak = Rc::downgrade(inner);
        let s = sig.clone();
        let (w, o) = (window.clone(), origin.to_string());
        js::on_abort(&sig, move || {
            let _ = post(&w, &o, &message("cancel", id));
            if let Some(me) = weak.upgrade() {
                end_call(&me.state::<Wire>(), id, Err(s.reason()));
            }
        });
    }
    wire.calls.borrow_mut().push(out.clone());
    Ok(out.done.promise().clone())
}

fn gone() -> JsValue {
    DomError::Unknown("The tool's document went away before it answered.".into()).into_js()
}

fn end_call(wire: &Wire, id: u64, outcome: Result<JsValue, JsValue>) {
    if let Some(c) = take(&wire.calls, |c| c.id == id) {
        c.poll.borrow_mut().take();
        match outcome {
            Ok(v) => c.done.settle(true, &v),
            Err(e) => c.done.settle(false, &e),
        }
    }
}

/// `call-reply`: the answer to an open call, from the tool's window and origin.
fn take_call_reply(wire: &Wire, source: &JsValue, origin: &str, id: u64, data: &JsValue) {
    let open = wire
        .calls
        .borrow()
        .iter()
        .any(|c| c.id == id && c.window == *source && c.origin == origin);
    if !open {
        return;
    }
    let outcome = if js::get(data, "ok").ok() == Some(JsValue::TRUE) {
        // A string, or null (a form whose submission navigated).
        let v = js::get(data, "value").unwrap_or(JsValue::UNDEFINED);
        Ok(v.as_string()
            .map_or(JsValue::NULL, |t| JsValue::from_str(&t)))
    } else {
        let e = js::get(data, "error").unwrap_or(JsValue::UNDEFINED);
        let text = |k| {
            js::get(&e, k)
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        };
        Err(DomError::from_name(&text("name"), text("message")).into_js())
    };
    end_call(wire, id, outcome);
}

/// `call`: another origin's document runs one of this document's tools. Refused with
/// `NotAllowedError` while this document lacks the feature, `UnknownError` when there is no
/// such tool exposed to the caller's origin; otherwise
/// run as this document's own `executeTool` would (its checks, its `toolactivated`).
fn answer_call(
    inner: &Rc<EngineInner>,
    wire: &Wire,
    source: &JsValue,
    origin: &str,
    id: f64,
    data: &JsValue,
) {
    wire.remember(source, origin, None);
    let name = js::get(data, "name")
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    let input = js::get(data, "input").unwrap_or(JsValue::UNDEFINED);
    let (source, origin) = (source.clone(), origin.to_string());
    with_policy(inner, move |me, allowed| {
        let reply = {
            let (source, origin) = (source.clone(), origin.clone());
            move |outcome: Result<JsValue, JsValue>| {
                let m = message("call-reply", 0);
                js::set(&m, "id", &JsValue::from_f64(id));
                match outcome {
                    Ok(v) => {
                        js::set(&m, "ok", &JsValue::TRUE);
                        js::set(&m, "value", &v);
                    }
                    Err(e) => {
                        let err: JsValue = js::object().into();
                        let name = js::get(&e, "name").unwrap_or(JsValue::UNDEFINED);
                        let name = name.as_string().unwrap_or_else(|| "UnknownError".into());
                        js::set(&err, "name", &JsValue::from_str(&name));
                        let text = js::get(&e, "message")
                            .ok()
                            .and_then(|m| m.as_string())
                            .unwrap_or_else(|| js::error_message(&e));
                        js::set(&err, "message", &JsValue::from_str(&text));
                        js::set(&m, "ok", &JsValue::FALSE);
                        js::set(&m, "error", &err);
                    }
                }
                let _ = post(&source, &origin, &m);
            }
        };
        if !allowed {
            return reply(Err(policy::not_allowed().into_js()));
        }
        // A tool not exposed to the caller's origin (any more) is as unknown to it as one
        // that does not exist (as in Chromium).
        let found = me
            .tool_data(&name)
            .filter(|(_, d)| d.door == Door::WebMcp && d.exposed_to.contains(&origin));
        let Some((tool, _)) = found else {
            let e = DomError::Unknown(format!("No tool named {name:?} is available."));
            return reply(Err(e.into_js()));
        };
        let Ok(controller) = web_sys::AbortController::new() else {
            return;
        };
        let options: JsValue = js::object().into();
        js::set(&options, "signal", &controller.signal());
        let dict = registered_tool(me, &tool);
        let run = super::super::webmcp::execute(me, &dict, &input, &options);
        me.state::<Wire>().serving.borrow_mut().push((
            source.clone(),
            origin.clone(),
            id,
            controller,
        ));
        let me = me.clone();
        spawn_local(async move {
            let outcome = JsFuture::from(run).await;
            me.state::<Wire>()
                .serving
                .borrow_mut()
                .retain(|(w, o, i, _)| !(*w == source && *o == origin && *i == id));
            reply(outcome);
        });
    });
}

/// `changed` (the tools another document exposes to this one changed: `toolchange` here) and
/// `gone` (that document goes away: its calls from here reject, its calls here abort).
fn on_notice(inner: &Rc<EngineInner>, kind: &str, source: &JsValue) {
    let wire = inner.state::<Wire>();
    if kind == "changed" {
        inner.tools_changed();
        return;
    }
    wire.known.borrow_mut().retain(|(w, ..)| w != source);
    let serving: Vec<_> = wire
        .serving
        .borrow()
        .iter()
        .filter(|(w, ..)| w == source)
        .map(|(.., c)| c.clone())
        .collect();
    for c in serving {
        c.abort();
    }
    let ids: Vec<u64> = wire
        .calls
        .borrow()
        .iter()
        .filter(|c| c.window == *source)
        .map(|c| c.id)
        .collect();
    for id in ids {
        end_call(&wire, id, Err(gone()));
    }
}

/// This document's tools changed: each known window of the tree hears `changed` if the
/// tools exposed to its origin changed.
pub fn tools_changed(inner: &EngineInner) {
    let wire = inner.state::<Wire>();
    if wire.known.borrow().is_empty() {
        return;
    }
    let allowed = matches!(policy::policy(inner), Policy::Allowed);
    let mut notices = Vec::new();
    for (w, o, names) in wire.known.borrow_mut().iter_mut() {
        let now: Vec<String> = if allowed {
            exposed_tools(inner, o)
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        } else {
            Vec::new()
        };
        if now != *names {
            *names = now;
            notices.push((w.clone(), o.clone()));
        }
    }
    for (w, o) in notices {
        let m: JsValue = js::object().into();
        js::set(&m, KEY, &JsValue::from_str("changed"));
        let _ = post(&w, &o, &m);
    }
}

/// `pagehide`: every instance this document knows hears `gone`.
fn say_gone(inner: &EngineInner) {
    let wire = inner.state::<Wire>();
    let m: JsValue = js::object().into();
    js::set(&m, KEY, &JsValue::from_str("gone"));
    let known = wire.known.borrow().clone();
    for (w, o, _) in known {
        let _ = post(&w, &o, &m);
    }
}

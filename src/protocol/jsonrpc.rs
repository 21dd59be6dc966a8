//! JSON-RPC 2.0 messages: strict classification of incoming values and
//! builders for outgoing ones.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

use super::error_codes::INVALID_REQUEST;
use super::json_text;
use super::scan::{skip_ws, string_end, value_end};
use super::values::{Counted, ValueBudget};

/// A request id: a string or an integer (MCP forbids `null` and fractions).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// Reads an id from a JSON value; `None` when it is not a string or an integer.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => Value::from(*n),
            RequestId::String(s) => Value::from(s.clone()),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// The error member of a JSON-RPC error response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code (`protocol::error_codes`).
    pub code: i64,
    /// A short description.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Anything more (`data`), omitted when `None`.
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error without `data`.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// A classified incoming message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request: it wants an answer.
    Request {
        /// Its id, which the answer carries.
        id: RequestId,
        /// The method.
        method: String,
        /// Its `params`, when present.
        params: Option<Value>,
    },
    /// A notification: no answer.
    Notification {
        /// The method.
        method: String,
        /// Its `params`, when present.
        params: Option<Value>,
    },
    /// A response to a request this side sent.
    Response {
        /// The id of the request it answers.
        id: RequestId,
        /// Its `result`.
        result: Value,
    },
    /// An error response to a request this side sent (`id` absent when the peer could not read it).
    ErrorResponse {
        /// Its id, when the peer could read one.
        id: Option<RequestId>,
        /// The error.
        error: ErrorObject,
    },
}

/// Why a value is not a valid JSON-RPC 2.0 message; always answered with `-32600`.
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidMessage {
    /// The id, when one could be read, so the error response can carry it.
    pub id: Option<RequestId>,
    /// What is wrong, for the error message.
    pub reason: String,
}

impl InvalidMessage {
    /// The `-32600` error object to answer with.
    pub fn to_error(&self) -> ErrorObject {
        ErrorObject::new(INVALID_REQUEST, format!("Invalid request: {}", self.reason))
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Classifies one JSON value as a JSON-RPC 2.0 message, strictly. Its method, params and
/// result are copied; [`classify_owned`] moves them out of a message the caller gives up.
pub fn classify(value: &Value) -> Result<Message, InvalidMessage> {
    let kind = kind_of(value)?;
    Ok(message(kind, |key| value.get(key).cloned()))
}

/// [`classify`], taking the message: its method, params and result are moved out of it, not
/// copied (a server classifies every message it receives, and a copy of a call's params is
/// a copy of its whole arguments).
pub fn classify_owned(mut value: Value) -> Result<Message, InvalidMessage> {
    let kind = kind_of(&value)?;
    match value.as_object_mut() {
        Some(obj) => Ok(message(kind, |key| obj.remove(key))),
        // (`kind_of` refused every value that is not an object.)
        None => classify(&value),
    }
}

/// A request or a notification read from its JSON text straight into its parts: its envelope
/// is never made a map (whose keys and table a server would make and drop for every message it
/// serves). `None` for every message [`classify_owned`] of its parsed value would not find to
/// be a well-formed request or notification in the same way: an array (a batch), a response,
/// a member `null` or of the wrong type, a member twice (the parsed value keeps the last one),
/// an escape in a member's name, text that is not JSON. The caller then parses it as a value and
/// classifies that, which answers each of those as before. Members it does not know are
/// ignored, as [`classify`] ignores them.
///
/// ```
/// use modelcontext_polyfill::protocol::jsonrpc::{classify, read_call, Message};
/// let text = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"},"x":1}"#;
/// let read = read_call(text).expect("a request");
/// assert_eq!(Ok(read), classify(&serde_json::from_str(text).unwrap()));
/// // A second `id`: the value's is the last one; left to it.
/// assert_eq!(read_call(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#), None);
/// // `"params": null` is refused by the classification, not read as absent.
/// assert_eq!(read_call(r#"{"jsonrpc":"2.0","method":"m","params":null}"#), None);
/// ```
pub fn read_call(text: &str) -> Option<Message> {
    read_call_counted(text, &ValueBudget::unlimited())
}

/// [`read_call`], each value it reads (the members' values and everything in them) taken from
/// `budget`: `None` also when the budget runs out, which the caller tells by
/// [`ValueBudget::ran_out`]. Text that holds more values than are left is not read at all
/// (a scan says so: [`ValueBudget`]'s `foresee`, as in [`values::from_str`]).
///
/// [`values::from_str`]: super::values::from_str
pub fn read_call_counted(text: &str, budget: &ValueBudget) -> Option<Message> {
    use serde::Deserializer as _;
    // (Only an object is read: a batch's array is refused at its first byte, and its items
    // are read apart, some of them a call's arguments that no reading counts. The message's
    // own object is not taken from the budget, its members' values are.)
    let b = text.as_bytes();
    if b.get(skip_ws(b, 0)) == Some(&b'{') {
        budget.foresee(text, 1);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    // (An array, or any value but an object, is an error of `deserialize_map`.)
    let message = de.deserialize_map(CallVisitor(budget)).ok()?;
    de.end().ok()?;
    message
}

/// [`read_call`], but for a request or notification of `method` the `arguments` member of its
/// `params` is not read into a value: its JSON text (checked to be JSON, and unchanged) is
/// given beside the message, whose `params` then lacks it. A server keeps a `tools/call`'s
/// arguments so, which its input schema can check as text and its handler may take as text: a
/// tree of values is 30 to 100 times the size of its text in memory (an agent's 4 MB of empty
/// arrays is 1.3 million values), and a call kept its tree until it was answered. The member
/// is found by a scan of the text that reads no value; the rest of the message, `null` in its
/// place, is read as [`read_call`] reads it. A message of another method, or whose `params`
/// name `arguments` twice (or a name with an escape), is read whole, as [`read_call`] reads
/// it. `None` as for [`read_call`], and for arguments whose text is not JSON. The values read
/// are taken from `budget` as [`read_call_counted`] takes them (the arguments' are not read, so
/// not taken; a message read whole takes its arguments' too).
///
/// ```
/// use modelcontext_polyfill::protocol::jsonrpc::{read_call, read_call_arguments_apart, Message};
/// use modelcontext_polyfill::protocol::values::ValueBudget;
/// fn apart<'t>(text: &'t str, method: &str) -> Option<(Message, Option<&'t str>)> {
///     read_call_arguments_apart(text, method, &ValueBudget::unlimited())
/// }
/// let text = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a": [1, 2]}}}"#;
/// let (message, arguments) = apart(text, "tools/call").expect("a request");
/// assert_eq!(arguments, Some(r#"{"a": [1, 2]}"#));
/// let mut whole = read_call(text).unwrap();
/// if let Message::Request { params: Some(p), .. } = &mut whole {
///     p.as_object_mut().unwrap().remove("arguments");
/// }
/// assert_eq!(message, whole);
/// // Another method's arguments stay among its params.
/// let prompt = text.replace("tools/call", "prompts/get");
/// assert_eq!(apart(&prompt, "tools/call"), read_call(&prompt).map(|m| (m, None)));
/// let twice = r#"{"jsonrpc":"2.0","method":"m","params":{"arguments":1,"arguments":2}}"#;
/// assert_eq!(apart(twice, "m"), read_call(twice).map(|m| (m, None)));
/// // Not JSON where the arguments are: left to the caller's parse, which says why.
/// let bad = r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a":}}}"#;
/// assert_eq!(apart(bad, "m"), None);
/// ```
pub fn read_call_arguments_apart<'t>(
    text: &'t str,
    method: &str,
    budget: &ValueBudget,
) -> Option<(Message, Option<&'t str>)> {
    // (Read again from the start, with the budget as it was.)
    let start = budget.left();
    let whole = || {
        budget.rewind(start);
        read_call_counted(text, budget).map(|m| (m, None))
    };
    let Some(span) = arguments_span(text) else {
        return whole();
    };
    let arguments = &text[span.clone()];
    // (Its syntax: the scan only found where it ends.)
    serde_json::from_str::<serde::de::IgnoredAny>(arguments).ok()?;
    let rest = [&text[..span.start], "null", &text[span.end..]].concat();
    let mut message = read_call_counted(&rest, budget)?;
    let params = match &mut message {
        Message::Request {
            method: m, params, ..
        }
        | Message::Notification { method: m, params }
            if m == method =>
        {
            params
        }
        _ => return whole(),
    };
    // The `null` the scan's member became; another `arguments` is a second one.
    match params
        .as_mut()
        .and_then(Value::as_object_mut)?
        .remove("arguments")
    {
        Some(Value::Null) => Some((message, Some(arguments))),
        _ => None,
    }
}

/// Where the value of `params.arguments` is in a message's text: a scan that skips strings and
/// counts nesting, reading no value. `None` when the text has no such member where the scan
/// looks (the top-level object's first `params` member, an object, and its first member named
/// `arguments` written without an escape), or is not what it expects.
fn arguments_span(text: &str) -> Option<std::ops::Range<usize>> {
    let b = text.as_bytes();
    // (Not scanned to its end first: the walk goes into it.)
    let params = members(b, skip_ws(b, 0), false, &mut |key, _| Ok(key == b"params"))??;
    // `arguments`, once: a second one, or a name with an escape (which may read as it), is
    // left to the caller's reading, which keeps the last.
    let mut span = None;
    members(
        b,
        params.start,
        true,
        &mut |key, value| match (key, &span) {
            (b"arguments", None) => {
                span = Some(value);
                Ok(false)
            }
            (b"arguments", Some(_)) => Err(()),
            _ if key.contains(&b'\\') => Err(()),
            _ => Ok(false),
        },
    )?;
    span
}

/// [`read_call`]'s reading of an object's members: `Ok(None)` as soon as the message is not a
/// request or notification it takes, an error where the text is not JSON (either way the
/// caller classifies the parsed value instead). Every value is read as a [`Value`], as the
/// parsed message's would be (one reader of values in the module, not one per member's type),
/// each taken from the budget ([`Counted`]): a member nothing reads costs no more than one
/// that is read.
struct CallVisitor<'b>(&'b ValueBudget);

impl<'de> serde::de::Visitor<'de> for CallVisitor<'_> {
    type Value = Option<Message>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC request or notification")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut versioned, mut id, mut method, mut params) = (false, None, None, None);
        // Each member at most once: the parsed value would keep a second one's value.
        let mut seen = 0u8;
        // (A key with an escape is not borrowed: an error, left to the value's reading.)
        while let Some(key) = map.next_key::<&'de str>()? {
            let bit = match key {
                "jsonrpc" => 1,
                "id" => 2,
                "method" => 4,
                "params" => 8,
                "result" | "error" => return Ok(None),
                _ => 0,
            };
            if seen & bit != 0 {
                return Ok(None);
            }
            seen |= bit;
            let value = map.next_value_seed(Counted(self.0))?;
            match bit {
                1 => versioned = value == "2.0",
                2 => id = Some(value),
                4 => method = Some(value),
                8 => params = Some(value),
                _ => {}
            }
        }
        let (true, Some(Value::String(method))) = (versioned, method) else {
            return Ok(None);
        };
        let params = match params {
            None => None,
            Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
            Some(_) => return Ok(None),
        };
        Ok(match id {
            None => Some(Message::Notification { method, params }),
            Some(raw) => {
                RequestId::from_value(&raw).map(|id| Message::Request { id, method, params })
            }
        })
    }
}

/// What [`kind_of`] found a message to be: all of it checked, nothing of it taken yet.
enum Kind {
    Request(RequestId),
    Notification,
    Response(RequestId),
    ErrorResponse(Option<RequestId>, ErrorObject),
}

/// The message made of `kind` and the members `take` gives (`method`, `params`, `result`).
fn message(kind: Kind, mut take: impl FnMut(&str) -> Option<Value>) -> Message {
    let mut method = || match take("method") {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    match kind {
        Kind::Request(id) => Message::Request {
            id,
            method: method(),
            params: take("params"),
        },
        Kind::Notification => Message::Notification {
            method: method(),
            params: take("params"),
        },
        Kind::Response(id) => Message::Response {
            id,
            result: take("result").unwrap_or_default(),
        },
        Kind::ErrorResponse(id, error) => Message::ErrorResponse { id, error },
    }
}

/// The checks of [`classify`]: a request, a notification or a result taken at once when it is
/// well formed (what an agent's discovery sends); anything else goes through
/// [`checked_kind`], which finds the same for it and says what is wrong with the rest.
fn kind_of(value: &Value) -> Result<Kind, InvalidMessage> {
    if let Value::Object(obj) = value {
        let raw_id = obj.get("id");
        let id = raw_id.and_then(RequestId::from_value);
        let versioned = matches!(obj.get("jsonrpc"), Some(Value::String(s)) if s == "2.0");
        if versioned && (raw_id.is_none() || id.is_some()) {
            let (result, error) = (obj.get("result"), obj.get("error"));
            match (obj.get("method"), result, error, id) {
                (Some(Value::String(_)), None, None, id)
                    if matches!(
                        obj.get("params"),
                        None | Some(Value::Object(_) | Value::Array(_))
                    ) =>
                {
                    return Ok(match id {
                        Some(id) => Kind::Request(id),
                        None => Kind::Notification,
                    });
                }
                (None, Some(_), None, Some(id)) => return Ok(Kind::Response(id)),
                _ => {}
            }
        }
    }
    checked_kind(value)
}

/// Every check of [`classify`], in its order, each failure explained. Apart from [`kind_of`]
/// (`#[inline(never)]`, and `CORE_APART` in `scripts/lib/core-split.mjs`): an agent's
/// discovery, which a page's start serves from the core's first module, never comes here.
#[inline(never)]
fn checked_kind(value: &Value) -> Result<Kind, InvalidMessage> {
    let obj = match value {
        Value::Object(o) => o,
        other => {
            return Err(InvalidMessage {
                id: None,
                reason: format!("a message must be an object, got {}", describe(other)),
            })
        }
    };
    // Read the id first so that every later complaint can be addressed to it.
    let raw_id = obj.get("id");
    let id = raw_id.and_then(RequestId::from_value);
    let fail = |reason: String| InvalidMessage {
        id: id.clone(),
        reason,
    };
    match obj.get("jsonrpc") {
        Some(Value::String(s)) if s == "2.0" => {}
        Some(other) => {
            return Err(fail(format!(
                "\"jsonrpc\" must be \"2.0\", got {}",
                compact(other)
            )))
        }
        None => return Err(fail("missing \"jsonrpc\": \"2.0\"".into())),
    }
    if let Some(raw) = raw_id {
        if id.is_none() {
            return Err(fail(format!(
                "\"id\" must be a string or an integer, got {}",
                compact(raw)
            )));
        }
    }
    if let Some(method) = obj.get("method") {
        if !method.is_string() {
            return Err(fail(format!(
                "\"method\" must be a string, got {}",
                describe(method)
            )));
        }
        if obj.contains_key("result") || obj.contains_key("error") {
            return Err(fail(
                "a message cannot carry both \"method\" and \"result\"/\"error\"".into(),
            ));
        }
        match obj.get("params") {
            None | Some(Value::Object(_) | Value::Array(_)) => {}
            Some(other) => {
                return Err(fail(format!(
                    "\"params\" must be an object or an array, got {}",
                    describe(other)
                )))
            }
        }
        return Ok(match id {
            Some(id) => Kind::Request(id),
            None => Kind::Notification,
        });
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(_), Some(_)) => Err(fail(
            "a response cannot carry both \"result\" and \"error\"".into(),
        )),
        (Some(_), None) => match id {
            Some(id) => Ok(Kind::Response(id)),
            None => Err(fail("a response needs an \"id\"".into())),
        },
        (None, Some(error)) => match ErrorObject::deserialize(error) {
            Ok(error) => Ok(Kind::ErrorResponse(id, error)),
            Err(_) => Err(fail(
                "\"error\" must be an object with an integer \"code\" and a string \"message\""
                    .into(),
            )),
        },
        (None, None) => Err(fail("missing \"method\"".into())),
    }
}

/// The texts of a batch's items, in order: `None` unless `text` is a JSON array (its syntax
/// checked without reading a value; whitespace around it allowed). A batch's items are then
/// read one by one, as single messages are ([`read_call_arguments_apart`]), not as one value
/// with every call's arguments in it.
///
/// ```
/// use modelcontext_polyfill::protocol::jsonrpc::batch_items;
/// assert_eq!(batch_items(r#" [{"a":[1,"]"]}, 2 ,"x"] "#), Some(vec![r#"{"a":[1,"]"]}"#, "2", r#""x""#]));
/// assert_eq!(batch_items("[]"), Some(vec![]));
/// assert_eq!(batch_items("[1,]"), None);
/// assert_eq!(batch_items(r#"{"a":1}"#), None);
/// ```
pub fn batch_items(text: &str) -> Option<Vec<&str>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    // (The scan below finds where each item ends, in text known to be JSON.)
    serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
    let mut items = Vec::new();
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return Some(items);
    }
    loop {
        let end = value_end(b, i)?;
        items.push(&text[i..end]);
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b']') => return Some(items),
            _ => return None,
        }
    }
}

/// The `id` of a request read from its JSON text without parsing the rest: the value of the
/// top-level object's `"id"` member when it is a string or an integer. Used to address the
/// error answering a message that cannot be parsed in full (too deep, too large, a lone
/// surrogate in some argument), so the client is not left waiting
/// (<https://www.jsonrpc.org/specification#response_object>: the id of the request, `null`
/// only when it cannot be detected). Works on a prefix of the message too (an oversized line
/// read only in part). Scans iteratively: nesting costs no stack.
pub fn peek_id(text: &str) -> Option<RequestId> {
    let b = text.as_bytes();
    let at = members(b, skip_ws(b, 0), true, &mut |key, _| Ok(key == b"id"))??;
    let v = super::values::parse(text.get(at)?).ok()?;
    RequestId::from_value(&v)
}

/// Whether JSON text (a message, or as much of its start as a transport kept) reads as a
/// response: among its top-level members, as far as the text goes, a `result` or an `error`
/// and no `method`. Read without parsing, as [`peek_id`] is, for a message refused unparsed.
///
/// ```
/// use modelcontext_polyfill::protocol::jsonrpc::peeks_as_response;
/// assert!(peeks_as_response(r#"{"jsonrpc":"2.0","id":3,"result":{"a":[1,2"#));
/// assert!(peeks_as_response(r#"{"error":{"code":1},"id":"x"}"#));
/// assert!(!peeks_as_response(r#"{"jsonrpc":"2.0","id":3,"method":"m","result":1}"#));
/// assert!(!peeks_as_response(r#"{"jsonrpc":"2.0","id":3,"params":{"result":1}}"#));
/// assert!(!peeks_as_response("[{\"id\":1,\"result\":1}]"));
/// ```
pub fn peeks_as_response(text: &str) -> bool {
    let b = text.as_bytes();
    let (mut answer, mut method) = (false, false);
    // (Where the text ends early, or is not an object, what was seen so far.)
    let _ = members(b, skip_ws(b, 0), false, &mut |key, _| {
        match key {
            b"result" | b"error" => answer = true,
            b"method" => method = true,
            _ => {}
        }
        Ok(false)
    });
    answer && !method
}

/// What [`members`] asks of each member: whether to stop there (`Err`: give up).
type EachMember<'a> = &'a mut dyn FnMut(&[u8], std::ops::Range<usize>) -> Result<bool, ()>;

/// The members of the object whose `{` is at `b[start]`, each given to `each` as its name as
/// written (between its quotes) and its value's place: where it starts, and where it ends when
/// `ends` (else the range is empty: the value is scanned past only if `each` goes on). The
/// value's place of the member `each` stops at (`Ok(true)`), or `Some(None)` once the object
/// ends; `None` where the text is not an object as the scan reads one (a prefix of one
/// included) or `each` gave up (`Err`). Scans iteratively: nesting costs no stack.
fn members(
    b: &[u8],
    start: usize,
    ends: bool,
    each: EachMember,
) -> Option<Option<std::ops::Range<usize>>> {
    if b.get(start) != Some(&b'{') {
        return None;
    }
    let mut i = skip_ws(b, start + 1);
    if b.get(i) == Some(&b'}') {
        return Some(None);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(b, i)?;
        let key = &b[i + 1..key_end - 1];
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        let value = i..if ends { value_end(b, i)? } else { i };
        if each(key, value.clone()).ok()? {
            return Some(Some(value));
        }
        i = skip_ws(b, if ends { value.end } else { value_end(b, i)? });
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return Some(None),
            _ => return None,
        }
    }
}

/// A short rendering of a value for error messages (at most 60 characters).
pub fn compact(v: &Value) -> String {
    compact_text(&json_text::to_string(v))
}

/// JSON text as [`compact`] renders a value: at most 60 characters, cut with `...`.
pub fn compact_text(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some(_) => {
            let cut = s.char_indices().nth(57).map_or(s, |(i, _)| &s[..i]);
            format!("{cut}...")
        }
        None => s.to_owned(),
    }
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`
pub fn success(id: &RequestId, result: Value) -> Value {
    // Built by hand: `json!` would copy `result` through its serializer.
    let mut m = Map::with_capacity(3);
    m.insert("jsonrpc".into(), Value::from("2.0"));
    m.insert("id".into(), id.to_value());
    m.insert("result".into(), result);
    Value::Object(m)
}

/// [`success`] as text, for a `result` already serialized (`result` must be JSON text).
pub fn success_text(id: &RequestId, result: &str) -> String {
    let mut text = success_head(id);
    text.reserve(result.len() + 1);
    text.push_str(result);
    text.push('}');
    text
}

/// [`success`]'s text, written around `result` in one buffer: the envelope is never a value.
pub fn success_text_of(id: &RequestId, result: &Value) -> String {
    json_text::to_string_within(&success_head(id), result, "}")
}

/// A success answer's text up to its result: `{"jsonrpc":"2.0","id":…,"result":`.
fn success_head(id: &RequestId) -> String {
    let mut head = String::from(r#"{"jsonrpc":"2.0","id":"#);
    match id {
        RequestId::Number(n) => json_text::write_integer(&mut head, *n),
        RequestId::String(s) => head.push_str(&json_text::quoted(s)),
    }
    head.push_str(r#","result":"#);
    head
}

/// `{"jsonrpc":"2.0","id":…,"error":…}`; the id is left out when it could not be read
/// (MCP 2025-11-25 and later make it optional for exactly this case; the earlier schemas
/// require a string or integer id and have no form for an unreadable one, and JSON-RPC's
/// `null` is not a valid MCP `RequestId` in any version, so leaving it out is used for
/// all). Callers read the id wherever it can be read, also from text that cannot be parsed
/// ([`peek_id`]).
pub fn failure(id: Option<&RequestId>, error: ErrorObject) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), Value::from("2.0"));
    if let Some(id) = id {
        m.insert("id".into(), id.to_value());
    }
    m.insert(
        "error".into(),
        serde_json::to_value(error).expect("error objects serialize"),
    );
    Value::Object(m)
}

/// `{"jsonrpc":"2.0","method":…,"params":…}`; `null` params are left out (JSON-RPC allows
/// only structured params).
pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), Value::from("2.0"));
    m.insert("method".into(), Value::from(method));
    if let Some(p) = params.filter(|p| !p.is_null()) {
        m.insert("params".into(), p);
    }
    Value::Object(m)
}

/// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`
pub fn request(id: &RequestId, method: &str, params: Option<Value>) -> Value {
    let mut v = notification(method, params);
    v.as_object_mut()
        .expect("notification builds an object")
        .insert("id".into(), id.to_value());
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn success_text_is_success_serialized() {
        for id in [RequestId::Number(7), RequestId::String("a\"b".into())] {
            let result = json!({ "tools": [{ "name": "x" }] });
            assert_eq!(
                success_text(&id, &result.to_string()),
                success(&id, result).to_string()
            );
        }
    }

    fn invalid(v: Value) -> InvalidMessage {
        classify(&v).expect_err("should be invalid")
    }

    #[test]
    fn the_quick_shapes_are_what_every_check_finds() {
        let as_message = |k: Result<Kind, InvalidMessage>, v: &Value| {
            k.map(|k| message(k, |key| v.get(key).cloned()))
        };
        let cases = [
            json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }),
            json!({ "jsonrpc": "2.0", "id": "a", "method": "x", "params": { "p": 1 } }),
            json!({ "jsonrpc": "2.0", "id": 2, "method": "x", "params": [1] }),
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            json!({ "jsonrpc": "2.0", "id": 3, "result": {} }),
            json!({ "jsonrpc": "2.0", "id": 3, "result": null }),
            json!({ "jsonrpc": "2.0", "id": 4, "error": { "code": -1, "message": "m" } }),
            json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -1, "message": "m" } }),
            json!({ "jsonrpc": "2.0", "id": 5, "method": "x", "params": 1 }),
            json!({ "jsonrpc": "2.0", "id": 5, "method": 7 }),
            json!({ "jsonrpc": "2.0", "id": 5, "method": "x", "result": 1 }),
            json!({ "jsonrpc": "2.0", "id": 5, "method": "x", "error": {} }),
            json!({ "jsonrpc": "2.0", "id": 1.5, "method": "x" }),
            json!({ "jsonrpc": "2.0", "id": null, "method": "x" }),
            json!({ "jsonrpc": "1.0", "id": 1, "method": "x" }),
            json!({ "id": 1, "method": "x" }),
            json!({ "jsonrpc": "2.0", "result": {} }),
            json!({ "jsonrpc": "2.0", "id": 6, "result": {}, "error": {} }),
            json!({ "jsonrpc": "2.0", "id": 6 }),
            json!([{ "jsonrpc": "2.0", "id": 1, "method": "x" }]),
            json!("text"),
        ];
        for v in cases {
            assert_eq!(
                as_message(kind_of(&v), &v),
                as_message(checked_kind(&v), &v),
                "{v}"
            );
        }
    }

    #[test]
    fn a_call_read_from_its_text_is_what_its_value_classifies_as() {
        // Each text: what `read_call` reads, when it reads one, is `classify`'s message of
        // the parsed text; the well-formed requests and notifications are read.
        let read = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}"#,
            r#"{"jsonrpc":"2.0","id":"k\"1","method":"m","params":[1,{"b":[]}]}"#,
            r#"  {"method":"notifications/initialized","jsonrpc":"2.0"}"#,
            "\n\t{\"jsonrpc\" : \"2.0\", \"id\" : -9007199254740993, \"method\" : \"m\"}\r\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"m","extra":{"result":1},"params":{}}"#,
            r#"{"jsonrpc":"2\u002e0","id":1,"method":"\u006d"}"#,
        ];
        let left = [
            // Another kind, a member out of place, null or of another type.
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"m","result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"m","error":null}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"p"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":null,"id":1,"method":"m"}"#,
            r#"{"id":1,"method":"m"}"#,
            // A member twice: the value keeps the last one.
            r#"{"jsonrpc":"2.0","id":1,"id":null,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":1,"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"me\u0074hod":"escaped","method":"m"}"#,
            // An escape in a member's name.
            r#"{"jsonrpc":"2.0","id":1,"metho\u0064":"m"}"#,
            // Not an object, not JSON, not all of it JSON.
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
            r#"["2.0",1,"m"]"#,
            r#""text""#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m""#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a\ud800"}"#,
        ];
        for text in read.iter().chain(&left) {
            let by_value = serde_json::from_str::<Value>(text)
                .ok()
                .map(|v| classify(&v));
            match read_call(text) {
                Some(m) => assert_eq!(Some(Ok(m)), by_value, "{text}"),
                None => assert!(!read.contains(text), "{text} was not read"),
            }
        }
        for text in left {
            assert_eq!(read_call(text), None, "{text}");
        }
        // Duplicates in the value keep the last member; a request then is classified from it.
        let v: Value =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#).unwrap();
        assert!(matches!(
            classify(&v),
            Ok(Message::Request {
                id: RequestId::Number(2),
                ..
            })
        ));
    }

    /// Texts made at random from the members a message may have, each written in one of the
    /// ways JSON allows (spaces, escapes in names and values, any order, a member twice, a value
    /// of another type, text cut short): whenever `read_call` reads a message, it is the one
    /// `classify` finds in the parsed text, and a request or notification written without a
    /// member twice or an escaped name is always read.
    #[test]
    fn random_texts_are_read_as_their_values_classify() {
        let mut rng = crate::test_rng::Rng(0x243f_6a88_85a3_08d3);
        let mut below = |n: usize| rng.below(n);
        let values: [&[&str]; 4] = [
            // jsonrpc
            &[r#""2.0""#, r#""2\u002e0""#, r#""1.0""#, "2", "null"],
            // id
            &[
                "1",
                "-7",
                r#""k""#,
                r#""a\"b""#,
                "1.5",
                "null",
                "{}",
                "9007199254740993",
            ],
            // method
            &[
                r#""tools/call""#,
                r#""m\u0065""#,
                r#""""#,
                "7",
                "null",
                r#""\ud800""#,
            ],
            // params
            &[
                r#"{"name":"x"}"#,
                "[1,2]",
                "{}",
                "null",
                r#""p""#,
                r#"{"a":[{"b":null}]}"#,
            ],
        ];
        let fine: [usize; 4] = [2, 4, 3, 3];
        let names = ["jsonrpc", "id", "method", "params"];
        let escaped = ["jso\\u006erpc", "\\u0069d", "metho\\u0064", "param\\u0073"];
        let spaces = ["", " ", "\n\t", "\r\n  "];
        let (mut read, mut plain_requests) = (0, 0);
        for _ in 0..20_000 {
            let mut members: Vec<(String, String)> = Vec::new();
            let (mut twice, mut escapes, mut well_formed) = (false, false, true);
            for (k, name) in names.iter().enumerate() {
                // The jsonrpc and method members are there more often than not.
                if below(if k == 0 || k == 2 { 8 } else { 3 }) == 0 {
                    continue;
                }
                // The first `fine[k]` values of each are a well-formed member's, taken half the
                // time.
                let pick = if below(2) == 0 {
                    below(fine[k])
                } else {
                    below(values[k].len())
                };
                well_formed &= pick < fine[k];
                let written = if below(10) == 0 {
                    escapes = true;
                    escaped[k].to_owned()
                } else {
                    (*name).to_owned()
                };
                members.push((written, values[k][pick].to_owned()));
                if below(12) == 0 {
                    twice = true;
                    let again = values[k][below(values[k].len())];
                    members.push(((*name).to_owned(), again.to_owned()));
                }
            }
            if below(4) == 0 {
                members.push(("extra".into(), r#"{"result":1,"id":[]}"#.into()));
            }
            for _ in 0..below(3) {
                let (a, b) = (below(members.len() + 1), below(members.len() + 1));
                if a < members.len() && b < members.len() {
                    members.swap(a, b);
                }
            }
            let mut sp = || spaces[below(spaces.len())];
            let mut text = format!("{}{{", sp());
            for (i, (name, value)) in members.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(&format!(
                    "{}\"{name}\"{}:{}{value}{}",
                    sp(),
                    sp(),
                    sp(),
                    sp()
                ));
            }
            text.push_str(&format!("}}{}", sp()));
            let cut = below(15) == 0;
            if cut {
                text.truncate(below(text.len()));
            }
            let by_value = serde_json::from_str::<Value>(&text)
                .ok()
                .map(|v| classify(&v));
            let has = |name: &str| members.iter().any(|(n, _)| n == name);
            let plain_request =
                well_formed && !twice && !escapes && !cut && has("jsonrpc") && has("method");
            match read_call(&text) {
                Some(m) => {
                    read += 1;
                    assert_eq!(Some(Ok(m)), by_value, "{text}");
                }
                None => assert!(!plain_request, "not read: {text}"),
            }
            plain_requests += usize::from(plain_request);
        }
        assert!(
            read > 2_000 && plain_requests > 1_000,
            "{read} read, {plain_requests} plain"
        );
    }

    #[test]
    fn a_batchs_items_are_the_texts_of_its_values() {
        let mut rng = crate::test_rng::Rng(0x1319_8a2e_0370_7344);
        let items = [
            "1",
            "-2.5e3",
            "true",
            "null",
            r#""a,]\"b""#,
            "[]",
            r#"[1,[2,"]"],{}]"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"}"}}"#,
            r#"{ "k" : [ ] }"#,
        ];
        let spaces = ["", " ", "\n\t", "\r\n  "];
        for _ in 0..3000 {
            let n = rng.below(5);
            let picked: Vec<&str> = (0..n).map(|_| *rng.pick(&items)).collect();
            let mut text = rng.pick(&spaces).to_string() + "[";
            for (i, item) in picked.iter().enumerate() {
                if i > 0 {
                    text += *rng.pick(&spaces);
                    text += ",";
                }
                text += *rng.pick(&spaces);
                text += item;
                text += *rng.pick(&spaces);
            }
            text += "]";
            text += *rng.pick(&spaces);
            let got = batch_items(&text);
            assert_eq!(got.as_deref(), Some(&picked[..]), "{text:?}");
            let whole: Value = serde_json::from_str(&text).unwrap();
            let each: Vec<Value> = picked
                .iter()
                .map(|t| serde_json::from_str(t).unwrap())
                .collect();
            assert_eq!(whole, Value::Array(each));
            // Not JSON, or not an array: none.
            let cut = rng.below(text.trim_end().len());
            if serde_json::from_str::<Value>(&text[..cut]).is_err() {
                assert_eq!(batch_items(&text[..cut]), None, "{:?}", &text[..cut]);
            }
        }
        for not in [r#"{"a":[1]}"#, "1", r#""[1]""#, "[1] [2]", "[1,]", ""] {
            assert_eq!(batch_items(not), None, "{not}");
        }
    }

    #[test]
    fn a_budget_bounds_what_a_call_reads_but_not_its_arguments_apart() {
        let junk = |n: usize| format!("[{}]", vec!["[]"; n].join(","));
        let call = |meta: usize, args: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","_meta":{{"j":{}}},"arguments":{{"a":{}}}}}}}"#,
                junk(meta),
                junk(args)
            )
        };
        // jsonrpc, id, method, params, name, _meta, j, the `null` read in the arguments'
        // place: 8 values, and the junk.
        let budget = ValueBudget::new(8 + 10);
        let text = call(10, 100_000);
        let (m, args) =
            read_call_arguments_apart(&text, "tools/call", &budget).expect("within the budget");
        assert!(matches!(m, Message::Request { .. }));
        assert_eq!(args.map(str::len), Some(junk(100_000).len() + 6));
        assert!(!budget.ran_out());
        // One more value in `_meta` is one too many: nothing read, and the budget says why.
        let budget = ValueBudget::new(8 + 10);
        assert_eq!(
            read_call_arguments_apart(&call(11, 1), "tools/call", &budget),
            None
        );
        assert!(budget.ran_out());
        // Another method's arguments are read with the rest, from the budget as it was: the
        // first reading, which found the method, does not count against the second.
        let prompt = r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"a":"b"}}}"#;
        let budget = ValueBudget::new(7);
        assert_eq!(
            read_call_arguments_apart(prompt, "tools/call", &budget),
            read_call(prompt).map(|m| (m, None))
        );
        let budget = ValueBudget::new(6);
        assert_eq!(
            read_call_arguments_apart(prompt, "tools/call", &budget),
            None
        );
        assert!(budget.ran_out());
    }

    /// Random calls whose params hold `arguments` (any JSON, strings with brackets, quotes and
    /// escapes in them, or text cut short), written twice or with an escape in its name at
    /// times, among other members, with random spaces: whenever the arguments are read apart,
    /// the message and the arguments are what reading the whole text gives; a message read
    /// whole with one `arguments` written plainly is read apart.
    #[test]
    fn arguments_read_apart_are_what_the_whole_message_has() {
        let mut rng = crate::test_rng::Rng(0x1319_8a2e_0370_7344);
        let mut below = |n: usize| rng.below(n);
        let scalars = [
            "1",
            "-0",
            "2.5e3",
            "true",
            "null",
            r#""""#,
            r#""a}b""#,
            r#""{[\"\\""#,
            r#""\u00e9\n""#,
            r#""\ud800""#,
            "1e400",
        ];
        let spaces = ["", " ", "\n\t", "\r\n  "];
        let (mut apart, mut whole_plain) = (0, 0);
        for _ in 0..20_000 {
            let mut sp = || spaces[below(spaces.len())];
            // A value of at most three levels, as text.
            fn value(
                below: &mut dyn FnMut(usize) -> usize,
                sp: &str,
                depth: usize,
                scalars: &[&str],
            ) -> String {
                match below(if depth < 3 { 4 } else { 1 }) {
                    0 => scalars[below(scalars.len())].to_owned(),
                    1 => {
                        let items: Vec<String> = (0..below(4))
                            .map(|_| value(below, sp, depth + 1, scalars))
                            .collect();
                        format!("[{sp}{}{sp}]", items.join(&format!("{sp},{sp}")))
                    }
                    _ => {
                        let members: Vec<String> = (0..below(4))
                            .map(|i| {
                                format!(
                                    r#""k{i}"{sp}:{sp}{}"#,
                                    value(below, sp, depth + 1, scalars)
                                )
                            })
                            .collect();
                        format!("{{{sp}{}{sp}}}", members.join(","))
                    }
                }
            }
            let space = sp().to_owned();
            let mut members: Vec<(String, String)> = vec![(r#""name""#.into(), r#""x""#.into())];
            let mut plain = 0;
            let mut escaped = false;
            for _ in 0..below(3) {
                let v = value(&mut below, &space, 0, &scalars);
                match below(6) {
                    0 => {
                        escaped = true;
                        members.push((r#""argu\u006dents""#.into(), v));
                    }
                    1 => members.push((r#""_meta""#.into(), format!(r#"{{"arguments":{v}}}"#))),
                    _ => {
                        plain += 1;
                        members.push((r#""arguments""#.into(), v));
                    }
                }
            }
            for _ in 0..below(3) {
                let (a, b) = (below(members.len()), below(members.len()));
                members.swap(a, b);
            }
            let params: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{space}{k}{space}:{space}{v}"))
                .collect();
            let mut text = format!(
                r#"{space}{{"jsonrpc":"2.0",{space}"id":1,"params":{space}{{{}}},"method":"tools/call"}}"#,
                params.join(",")
            );
            if below(12) == 0 {
                text.truncate(below(text.len()));
            }
            let whole = read_call(&text);
            let got = read_call_arguments_apart(&text, "tools/call", &ValueBudget::unlimited());
            match &got {
                // Apart, arguments `serde_json` reads: the whole message's, less its
                // arguments, and those.
                Some((m, Some(a))) if serde_json::from_str::<Value>(a).is_ok() => {
                    let mut whole = whole.clone().expect(&text);
                    let Message::Request {
                        params: Some(p), ..
                    } = &mut whole
                    else {
                        panic!("{text}")
                    };
                    let arguments = p.as_object_mut().unwrap().remove("arguments");
                    assert_eq!(&whole, m, "{text}");
                    assert_eq!(serde_json::from_str::<Value>(a).ok(), arguments, "{text}");
                    apart += 1;
                }
                // Apart, arguments it cannot hold (a lone surrogate, 1e400): JSON all the
                // same, which the reader of the arguments refuses; the whole is not read.
                Some((_, Some(_))) => assert!(whole.is_none(), "{text}"),
                // Not apart: the whole message, as read_call reads it.
                Some((m, None)) => assert_eq!(whole.as_ref(), Some(m), "{text}"),
                None => assert!(whole.is_none(), "{text}"),
            }
            if whole.is_some() && plain == 1 && !escaped {
                whole_plain += 1;
                assert!(matches!(got, Some((_, Some(_)))), "not read apart: {text}");
            }
        }
        assert!(
            apart > 3_000 && whole_plain > 3_000,
            "{apart} apart, {whole_plain} plain"
        );
    }

    #[test]
    fn an_answer_written_around_its_result_is_the_answer_serialized() {
        for id in [RequestId::Number(-7), RequestId::String("a\"b\u{1}".into())] {
            let result =
                json!({ "content": [{ "type": "text", "text": "é\n" }], "isError": false });
            assert_eq!(
                success_text_of(&id, &result),
                json_text::to_string(&success(&id, result))
            );
        }
    }

    #[test]
    fn peeks_the_id_without_parsing_the_rest() {
        let n = |v: i64| Some(RequestId::Number(v));
        assert_eq!(peek_id(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#), n(7));
        assert_eq!(
            peek_id(
                r#" { "method" : "x", "params": {"id": 1, "a": ["}", "\"", [[{}]]]}, "id" : "k\"1" } "#
            ),
            Some(RequestId::String("k\"1".into()))
        );
        // Past a deep (unparseable) member, and on a prefix of the text.
        let deep = format!(
            r#"{{"params":{}{}, "id": 3}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(peek_id(&deep), n(3));
        assert_eq!(
            peek_id(r#"{"jsonrpc":"2.0","id":"cut","params":{"x":"aaaa"#),
            Some(RequestId::String("cut".into()))
        );
        // A lone surrogate elsewhere does not hide the id.
        assert_eq!(peek_id(r#"{"params":{"t":"a\ud800b"},"id":4}"#), n(4));
        for none in [
            r#"{"id":null}"#,
            r#"{"id":1.5}"#,
            r#"{"id":{"a":1}}"#,
            "[1]",
            "",
            "{",
            r#"{"params":"#,
            "nonsense",
        ] {
            assert_eq!(peek_id(none), None, "{none}");
        }
    }

    #[test]
    fn classifies_the_four_kinds() {
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
            Ok(Message::Request { .. })
        ));
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","method":"x"})),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","id":"a","result":{}})),
            Ok(Message::Response { .. })
        ));
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"m"}})),
            Ok(Message::ErrorResponse { .. })
        ));
    }

    #[test]
    fn rejects_wrong_shapes_and_keeps_a_readable_id() {
        let e = invalid(json!({"id":1,"method":"ping"}));
        assert_eq!(e.id, Some(RequestId::Number(1)));
        assert!(e.reason.contains("jsonrpc"));
        assert!(invalid(json!({"jsonrpc":"1.0","id":1,"method":"a"}))
            .reason
            .contains("\"1.0\""));
        assert!(invalid(json!({"jsonrpc":"2.0","id":1,"method":7}))
            .reason
            .contains("\"method\" must be a string"));
        let e = invalid(json!({"jsonrpc":"2.0","id":1.5,"method":"a"}));
        assert_eq!(e.id, None);
        assert!(e.reason.contains("\"id\""));
        assert!(invalid(json!({"jsonrpc":"2.0","id":null,"method":"a"}))
            .reason
            .contains("null"));
        assert!(
            invalid(json!({"jsonrpc":"2.0","id":1,"method":"a","params":3}))
                .reason
                .contains("\"params\"")
        );
        assert!(invalid(json!([1])).reason.contains("an array"));
    }
}

//! The one leaf module of JS helpers that `browser`, `transport` and `client` share: exact
//! WebIDL-style conversions between JS values and Rust (this file), calling into JS
//! (`io`), listeners, observers and timers as drop-guards (`guard`), and promises settled
//! from Rust (`deferred`), a page's thenables waited for (`wait`), and the one error type mapped to DOMExceptions ([`DomError`]). It imports nothing else from the crate.

use crate::collections::VecMap;
use crate::protocol::{json_text, jsonrpc, RequestId};
use js_sys::{Function, Object, Reflect, JSON};
use serde_json::Value;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod deferred;
mod error;
mod guard;
mod io;
#[cfg(feature = "web-server")]
pub mod wait;

pub use deferred::{on_abort, once_on_abort, Deferred};
pub use error::DomError;
pub use guard::{use_message_gate, Listener, MessageGate, Observer, Timer};
pub use io::*;

/// One of the core's JS helpers (`polyfill/src/*.js`), handed over in the engine's config as
/// `config[key]` and kept, in a `thread_local!`, for the Rust code that calls it. A helper is
/// optional ([`Helper::take`]: the code calling it has a way without it) or required
/// ([`Helper::require`]: the engine is not made without it, with [`needed`]'s error, and
/// [`Helper::call`] gives that error should it be called before).
pub struct Helper {
    f: RefCell<Option<Function>>,
    key: &'static str,
}

impl Helper {
    /// The helper the config gives as `key`; none yet.
    pub const fn new(key: &'static str) -> Helper {
        Helper {
            f: RefCell::new(None),
            key,
        }
    }

    /// Takes `config[key]` when it is a function; whether it was.
    pub fn take(&self, config: &JsValue) -> bool {
        match get(config, self.key).map(JsCast::dyn_into::<Function>) {
            Ok(Ok(f)) => {
                *self.f.borrow_mut() = Some(f);
                true
            }
            _ => false,
        }
    }

    /// Takes `config[key]`, which the engine needs: [`needed`]'s error when it is not a
    /// function.
    pub fn require(&self, config: &JsValue) -> Result<(), JsValue> {
        if self.take(config) {
            Ok(())
        } else {
            Err(needed(self.key))
        }
    }

    /// `f(helper)`, or `None` when no helper was given.
    pub fn with<R>(&self, f: impl FnOnce(&Function) -> R) -> Option<R> {
        self.f.borrow().as_ref().map(f)
    }

    /// `f(helper)` for a required helper, or [`needed`]'s error when none was given.
    pub fn call<R>(&self, f: impl FnOnce(&Function) -> Result<R, JsValue>) -> Result<R, JsValue> {
        self.with(f).unwrap_or_else(|| Err(needed(self.key)))
    }
}

/// The `TypeError` for a helper the engine needs that its config does not give as a function
/// (`config[key]`).
#[cold]
#[inline(never)]
pub fn needed(key: &str) -> JsValue {
    let mut message = String::from("Engine needs the ");
    message.push_str(key);
    message.push_str(" function");
    type_error(&message)
}

/// Runs `fut` on the page's microtask queue (`wasm_bindgen_futures::spawn_local`), boxed
/// first: the executor's spawning code is then compiled once, not once per future type.
pub fn spawn(fut: impl std::future::Future<Output = ()> + 'static) {
    spawn_boxed(Box::pin(fut))
}

fn spawn_boxed(fut: std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>) {
    wasm_bindgen_futures::spawn_local(fut)
}

/// A `TypeError` with `message`.
pub fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// A `TypeError` saying an option is wrong: `ctx`, which names the options (`new
/// BroadcastChannelServerTransport(options): options`), followed by `what` (`.channelName is
/// required …`). One function for every such message, out of the line of the code that reads
/// options: pages rarely pass a wrong one.
#[cold]
#[inline(never)]
pub fn option_error(ctx: &str, what: &str) -> JsValue {
    let mut message = String::with_capacity(ctx.len() + what.len());
    message.push_str(ctx);
    message.push_str(what);
    type_error(&message)
}

thread_local! {
    /// This realm's `DOMException` constructor, taken while the document was alive: once a
    /// frame is detached its global no longer resolves interface names, and the errors its
    /// methods must report (`InvalidStateError`) still need the constructor.
    static DOM_EXCEPTION: std::cell::OnceCell<Function> = const { std::cell::OnceCell::new() };
}

/// Keeps this realm's `DOMException` constructor for `dom_exception` (called when an
/// engine is created).
pub fn remember_constructors(global: &JsValue) {
    if let Ok(f) = get(global, "DOMException").and_then(|f| f.dyn_into::<Function>()) {
        DOM_EXCEPTION.with(|c| {
            let _ = c.set(f);
        });
    }
}

/// A `DOMException` named `name` (e.g. `"InvalidStateError"`), made with the kept constructor.
/// Private: [`DomError::into_js`] is the one way an error becomes a `DOMException`.
fn dom_exception(name: &str, message: &str) -> JsValue {
    let kept = DOM_EXCEPTION.with(|c| c.get().cloned());
    if let Some(ctor) = kept {
        let args = js_sys::Array::of2(&JsValue::from_str(message), &JsValue::from_str(name));
        if let Ok(e) = Reflect::construct(&ctor, &args) {
            return e;
        }
    }
    web_sys::DomException::new_with_message_and_name(message, name)
        .map(JsValue::from)
        .unwrap_or_else(|e| e)
}

thread_local! {
    /// The names [`name`] has made, by the address of their `'static` text: addresses of
    /// `'static` data are never reused, so the address alone identifies the text (the same
    /// literal at two call sites may have two addresses, which costs one entry more).
    static NAMES: RefCell<VecMap<usize, JsValue>> = const { RefCell::new(VecMap::new()) };
}

/// A property name as a JS string, made once and reused: the binding layer reads and writes
/// the same few names on every message, and a reused string costs a binary search (by the
/// text's address, no hashing of its bytes) where a fresh one costs a UTF-8 decode. Only for
/// names fixed by the code (`'static`), never for names a page chooses.
pub fn name(key: &'static str) -> JsValue {
    let addr = key.as_ptr() as usize;
    NAMES.with(|t| {
        t.borrow_mut()
            .get_or_insert_with(addr, || JsValue::from_str(key))
            .clone()
    })
}

/// `obj[key]`, or `undefined` when `obj` is not an object or the getter throws (the
/// exception is returned as `Err`). `key` is a name fixed by the code (see [`name`]); use
/// [`get_any`] for names a page chooses.
pub fn get(obj: &JsValue, key: &'static str) -> Result<JsValue, JsValue> {
    if !obj.is_object() && !obj.is_function() {
        return Ok(JsValue::UNDEFINED);
    }
    field(obj, key)
}

/// `obj[key]` of a value already known to be an object or a function (an event, a message
/// whose type was tested): [`get`] without its type test, one call into JS instead of two.
/// On anything else it is `Reflect.get`'s `TypeError`.
pub fn field(obj: &JsValue, key: &'static str) -> Result<JsValue, JsValue> {
    Reflect::get(obj, &name(key))
}

/// [`get`] for a property name a page chose (not interned).
pub fn get_any(obj: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    if !obj.is_object() && !obj.is_function() {
        return Ok(JsValue::UNDEFINED);
    }
    Reflect::get(obj, &JsValue::from_str(key))
}

/// Whether `window.closed` is `true`: a window whose frame element was removed, or a closed
/// popup. Such a window never posts again, and its document's tools are gone.
pub fn is_closed(window: &JsValue) -> bool {
    get(window, "closed").ok() == Some(JsValue::TRUE)
}

/// Whether `v` is an object with a callable `then` (a promise of any realm, or a thenable).
pub fn is_thenable(v: &JsValue) -> bool {
    v.is_object() && field(v, "then").is_ok_and(|t| t.is_function())
}

/// `obj[key]` when it is a string (`None` for anything else, or when the getter throws).
pub fn get_string(obj: &JsValue, key: &'static str) -> Option<String> {
    get(obj, key).ok()?.as_string()
}

/// The items of an array-like `collection` (`collection[0..length]`): a `NodeList`, an
/// `HTMLCollection`, a window's frames.
pub fn items(collection: &JsValue) -> Vec<JsValue> {
    let n = get(collection, "length")
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0) as u32;
    (0..n)
        .filter_map(|i| Reflect::get_u32(collection, i).ok())
        .collect()
}

/// WebIDL `DOMString` conversion (ToString; symbols throw a TypeError).
pub fn to_dom_string(v: &JsValue) -> Result<String, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(s);
    }
    if v.is_symbol() {
        return Err(type_error("Cannot convert a Symbol value to a string"));
    }
    let string_fn: Function = Reflect::get(&js_sys::global(), &"String".into())?.unchecked_into();
    let s = string_fn.call1(&JsValue::UNDEFINED, v)?;
    Ok(s.as_string().unwrap_or_default())
}

/// How [`opt_string`] takes a member that is present (not `undefined` or `null`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringRule {
    /// Any value, converted as WebIDL `DOMString` does (objects through `toString`).
    DomString,
    /// A primitive, converted as `DOMString`; an object or a symbol is a `TypeError`.
    Primitive,
    /// A string exactly; anything else is a `TypeError` showing the value.
    Exact,
}

/// An optional string member `key` of `obj` (`undefined` and `null` are `None`), read by
/// `rule`; errors name it as `{ctx}.{key}`.
pub fn opt_string(
    obj: &JsValue,
    key: &'static str,
    ctx: &str,
    rule: StringRule,
) -> Result<Option<String>, JsValue> {
    let v = get(obj, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match rule {
        StringRule::DomString => to_dom_string(&v).map(Some),
        StringRule::Primitive if v.is_object() || v.is_symbol() => {
            Err(type_error(&format!("{ctx}.{key} must be a string")))
        }
        StringRule::Primitive => to_dom_string(&v).map(Some),
        StringRule::Exact => v.as_string().map(Some).ok_or_else(|| {
            type_error(&format!(
                "{ctx}.{key} must be a string, got {}",
                to_dom_string(&v).unwrap_or_default()
            ))
        }),
    }
}

/// WebIDL `boolean` conversion (ToBoolean).
pub fn to_bool(v: &JsValue) -> bool {
    v.is_truthy()
}

/// `JSON.stringify(v)`: `Ok(None)` when it yields `undefined`, `Err` with the exception
/// when it throws (cycles, BigInt, a throwing `toJSON`).
pub fn stringify(v: &JsValue) -> Result<Option<String>, JsValue> {
    let s = JSON::stringify(v)?;
    Ok(s.as_string())
}

/// `JSON.parse(text)`.
pub fn parse(text: &str) -> Result<JsValue, JsValue> {
    JSON::parse(text)
}

/// A JS value as serde JSON, through `JSON.stringify` (so `toJSON` and dropping of
/// functions/undefined behave as in JS). `Ok(None)` for values JSON cannot represent.
/// Strings, booleans, `null` and finite numbers are read directly.
pub fn to_json(v: &JsValue) -> Result<Option<Value>, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(Some(Value::String(s)));
    }
    if let Some(b) = v.as_bool() {
        return Ok(Some(Value::Bool(b)));
    }
    if v.is_null() {
        return Ok(Some(Value::Null));
    }
    if let Some(n) = v.as_f64() {
        // JSON.stringify writes non-finite numbers as null.
        return Ok(Some(
            serde_json::Number::from_f64(n).map_or(Value::Null, number_value),
        ));
    }
    object_to_json(v)
}

/// [`to_json`] of a value known to be an object or a function: straight to `JSON.stringify`.
pub fn object_to_json(v: &JsValue) -> Result<Option<Value>, JsValue> {
    Ok(object_to_json_text(v)?.map(|(value, _)| value))
}

/// [`object_to_json`], with the JSON text it read, still a JS string: [`parse_text`] makes a
/// fresh copy of the object from it without the text crossing into wasm and back.
pub fn object_to_json_text(v: &JsValue) -> Result<Option<(Value, JsValue)>, JsValue> {
    json_text_read(JSON::stringify(v)?.into())
}

/// What [`object_to_json_text`] reads of `text`, the `JSON.stringify` of a value: its value and
/// the text, or `None` when it is not a string (`JSON.stringify` wrote nothing).
pub fn json_text_read(text: JsValue) -> Result<Option<(Value, JsValue)>, JsValue> {
    let Some(rust) = text.as_string() else {
        return Ok(None);
    };
    match crate::protocol::values::parse(&rust) {
        Ok(value) => Ok(Some((value, text))),
        Err(e) => well_formed(&rust, e).map(|value| Some((value, text))),
    }
}

/// The value of JSON text `serde_json` refused (`e`): read again with each lone surrogate
/// `JSON.stringify` escaped written U+FFFD, as a UTF-8 copy of the JS string writes it
/// ([`json_text::lone_surrogates_replaced`]); when it has none, the `TypeError` naming `e`.
/// Apart from [`object_to_json_text`], which every page's start runs (`#[inline(never)]`, and
/// `CORE_APART` in `scripts/lib/core-split.mjs`).
#[cold]
#[inline(never)]
fn well_formed(text: &str, e: serde_json::Error) -> Result<Value, JsValue> {
    json_text::from_str_lone_surrogates_replaced(text)
        .ok_or_else(|| type_error(&format!("Value is not valid JSON: {e}")))
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn parse_js_string(text: &JsValue) -> Result<JsValue, JsValue>;
}

/// `JSON.parse(text)` of JSON text that is a JS string.
pub fn parse_text(text: &JsValue) -> Result<JsValue, JsValue> {
    parse_js_string(text)
}

/// A number as serde_json reads JSON.stringify's text of it: integers that fit as `u64` /
/// `i64` (stringify writes integers below 1e21 as plain digits), everything else as `f64`.
fn number_value(n: serde_json::Number) -> Value {
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&f) => {
            Value::from(f as u64)
        }
        Some(f) if f.fract() == 0.0 && (-9_223_372_036_854_775_808.0..0.0).contains(&f) => {
            Value::from(f as i64)
        }
        _ => Value::Number(n),
    }
}

/// Strings this long (bytes) or longer inside an array or object are made into JS strings
/// by [`from_json`] apart from the `JSON.parse` of the rest: a tool's result of a page's text
/// or a document is then copied out of wasm memory once, not escaped into JSON text, copied
/// with it and scanned again by `JSON.parse` (a 1 MiB string spent about 1 ms in
/// `JSON.parse` alone, Chromium 156). Below this, the few calls that put a string in place
/// cost more than parsing it.
const APART_BYTES: usize = 16 * 1024;

/// serde JSON as a fresh JS value: scalars directly, arrays and objects through one
/// serialization and `JSON.parse`, their long strings (see `APART_BYTES`) put in place
/// after.
pub fn from_json(v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => n.as_f64().map_or(JsValue::NULL, JsValue::from_f64),
        Value::String(s) => JsValue::from_str(s),
        _ if json_text::has_long_string(v, APART_BYTES) => with_strings_apart(v),
        _ => JSON::parse(&json_text::to_string(v)).unwrap_or(JsValue::NULL),
    }
}

/// A success answer's JS object, `{ jsonrpc, id, result }`, as [`from_json`] makes one of its
/// value; when its result has no long string, the envelope is written around the result's
/// text instead of being made a value first.
pub fn answer(id: &RequestId, result: Value) -> JsValue {
    if json_text::has_long_string(&result, APART_BYTES) {
        // (Found already: `from_json` would look for them again.)
        return with_strings_apart(&jsonrpc::success(id, result));
    }
    JSON::parse(&jsonrpc::success_text_of(id, &result)).unwrap_or(JsValue::NULL)
}

/// A JS string kept as it is, never copied into wasm memory: a tool's or a resource's long
/// string result, which its answer carries in place of a marker (`server::held`).
pub struct HeldString(pub JsValue);

impl HeldString {
    /// `v` when it is a string of at least `APART_BYTES` UTF-16 code units (so at least as
    /// many bytes of UTF-8), without reading its text.
    pub fn of_long(v: &JsValue) -> Option<HeldString> {
        let long =
            v.is_string() && v.unchecked_ref::<js_sys::JsString>().length() as usize >= APART_BYTES;
        long.then(|| HeldString(v.clone()))
    }
}

/// A page's value kept as JS, with the JSON text it was read from: a tool's object result held
/// whole as its answer's `structuredContent` (`server::held`).
pub struct HeldJson {
    /// The JSON text (`JSON.stringify` of the page's value).
    pub text: JsValue,
    /// The value the answer carries: `JSON.parse(text)`, or the page's value itself where a
    /// structured clone of it is that (`own`); `None` where the answer carries no
    /// `structuredContent` (its version has none), so none was made.
    pub value: Option<JsValue>,
    /// `value` is the page's own object (`polyfill/src/json_clone.js` found its clone to be its
    /// JSON data): only a wire that copies what it posts may carry it, any other answers with
    /// `JSON.parse(text)`.
    pub own: bool,
}

/// Where a marker may stand in a message, by its path (`server::held::Held::at`).
pub type MarkerAt<'a> = &'a dyn Fn(&[json_text::Step]) -> bool;

/// [`from_json`] of a JSON-RPC message whose `result` holds strings outside wasm memory: each
/// string equal to one of `markers` at a path `at` allows is `held(marker)`; one anywhere else
/// (a client's id equal to a marker) stays itself.
pub fn from_json_holding(
    v: &Value,
    markers: &[&str],
    at: MarkerAt,
    held: &dyn Fn(&str) -> Option<JsValue>,
) -> JsValue {
    strings_apart(v, markers, at, held)
}

/// [`from_json`] of an array or object holding long strings (see [`strings_apart`]).
#[inline(never)]
fn with_strings_apart(v: &Value) -> JsValue {
    strings_apart(v, &[], &|_| false, &|_| None)
}

/// The `JSON.parse` of [`json_text::to_string_apart_with`]'s text, each string it left out
/// (written `null`) put back at its path: a held string (see [`from_json_holding`]) or the
/// string copied out of wasm memory. Every step is an own data property `JSON.parse` made
/// (`__proto__` included), so setting it defines nothing new and runs no setter. Apart from
/// `from_json`, which every page's start runs (`#[inline(never)]`, and `CORE_APART` in
/// `scripts/lib/core-split.mjs`).
#[inline(never)]
fn strings_apart(
    v: &Value,
    markers: &[&str],
    marker_at: MarkerAt,
    held: &dyn Fn(&str) -> Option<JsValue>,
) -> JsValue {
    let (text, apart) = json_text::to_string_apart_with(v, APART_BYTES, markers);
    let parsed = JSON::parse(&text).unwrap_or(JsValue::NULL);
    for json_text::Apart { path, text } in apart {
        let text = (!markers.is_empty() && marker_at(&path))
            .then(|| held(text))
            .flatten()
            .unwrap_or_else(|| JsValue::from_str(text));
        set_at(&parsed, &path, &text);
    }
    parsed
}

/// Puts `value` at `path` inside `root`, a `JSON.parse` result where `path` leads to a member
/// or an item (nothing when `path` is empty: the value itself). Every step is an own data
/// property `JSON.parse` made (`__proto__` included), so setting it defines nothing new and
/// runs no setter.
pub fn set_at(root: &JsValue, path: &[json_text::Step], value: &JsValue) {
    let Some((last, steps)) = path.split_last() else {
        return;
    };
    let mut at = root.clone();
    for step in steps {
        at = match step {
            json_text::Step::Key(k) => Reflect::get(&at, &JsValue::from_str(k)),
            json_text::Step::Index(i) => Reflect::get_u32(&at, *i as u32),
        }
        .unwrap_or(JsValue::NULL);
    }
    drop(match last {
        json_text::Step::Key(k) => Reflect::set(&at, &JsValue::from_str(k), value),
        json_text::Step::Index(i) => Reflect::set_u32(&at, *i as u32, value),
    });
}

/// The message of a thrown value: `error.message` for errors, else its string form.
pub fn error_message(e: &JsValue) -> String {
    if let Ok(m) = get(e, "message") {
        if let Some(s) = m.as_string() {
            let name = get(e, "name").ok().and_then(|n| n.as_string());
            return match name {
                Some(n) if !n.is_empty() && n != "Error" => format!("{n}: {s}"),
                _ => s,
            };
        }
    }
    to_dom_string(e).unwrap_or_else(|_| "Unknown error".into())
}

/// A new plain object.
pub fn object() -> Object {
    Object::new()
}

/// `obj[key] = value`, `key` a name fixed by the code (see [`name`]).
pub fn set(obj: &JsValue, key: &'static str, value: &JsValue) {
    let _ = Reflect::set(obj, &name(key), value);
}

/// [`set`] for a property name a page chose (not interned).
pub fn set_any(obj: &JsValue, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

/// Logs a warning to the console.
pub fn warn(message: &str) {
    web_sys::console::warn_1(&JsValue::from_str(message));
}

thread_local! {
    static WARNED: std::cell::RefCell<crate::collections::VecSet<String>> =
        const { std::cell::RefCell::new(crate::collections::VecSet::new()) };
}

/// Logs `message` as a console warning the first time `key` is seen in this realm
/// (deprecation notices).
pub fn warn_once(key: &str, message: &str) {
    if WARNED.with(|w| w.borrow_mut().insert(key.to_string())) {
        warn(message);
    }
}

/// Defines `obj[key] = value` as a non-enumerable, writable, configurable data property:
/// reachable by name, invisible to `Object.keys` (extras beside a WebIDL dictionary's members).
pub fn define_hidden(obj: &JsValue, key: &'static str, value: &JsValue) {
    thread_local! {
        // One descriptor for every call: `value` is set for the definition and cleared after.
        static HIDDEN: Object = {
            let desc = Object::new();
            set(&desc, "writable", &JsValue::TRUE);
            set(&desc, "configurable", &JsValue::TRUE);
            desc
        };
    }
    if let Some(o) = obj.dyn_ref::<Object>() {
        HIDDEN.with(|desc| {
            set(desc, "value", value);
            let _ = Reflect::define_property(o, &name(key), desc);
            set(desc, "value", &JsValue::UNDEFINED);
        });
    }
}

/// The `TypeError` for `subject` made where this realm's global object is no `Window` (`why`
/// says what it needs one for). A DOM emulation (jsdom, happy-dom: a `document`, but a global
/// object that is not a Window and a `postMessage` that gives no source or origin to check) is
/// told to use a `MessageChannel`, which works there.
pub fn no_window(subject: &str, why: &str) -> JsValue {
    let emulated = get(&js_sys::global(), "document").is_ok_and(|d| d.is_object());
    type_error(&if emulated {
        format!(
            "{subject} needs a window ({why}), and this realm's global object is not a Window: \
             a DOM emulation such as jsdom or happy-dom, whose postMessage gives no source or \
             origin to check. Use a MessageChannel there: the page serves on port1 with \
             modelContext.connect({{ transport: {{ type: 'postMessage', target: port1 }} }}), \
             and a client talks on port2 with PostMessageClientTransport({{ target: port2 }})"
        )
    } else {
        format!("{subject} needs a window ({why})")
    })
}

/// Whether `v` is a `Window` (WebIDL conversion to `Window`): an instance of this realm's
/// `Window`, or another realm's window proxy (which refers to itself as `window`).
pub fn is_window(v: &JsValue) -> bool {
    if v.is_instance_of::<web_sys::Window>() {
        return true;
    }
    v.is_object()
        && get(v, "window").map(|w| w == *v).unwrap_or(false)
        && get(v, "self").map(|w| w == *v).unwrap_or(false)
}

/// `v` as an `AbortSignal` (WebIDL conversion): an instance of this realm's, or a signal made
/// in another document of the frame tree, which is an `AbortSignal` too (WebIDL checks the
/// object's brand, not its prototype chain, and `instanceof` says no across realms).
pub fn abort_signal(v: JsValue) -> Option<web_sys::AbortSignal> {
    let signal =
        v.is_instance_of::<web_sys::AbortSignal>() || has_brand(&v, "AbortSignal", "aborted");
    signal.then(|| v.unchecked_into())
}

/// `e`, made this realm's: a `DOMException` of another realm (a frame's engine answering a
/// call made here) is made again with this realm's constructor, same name and message, so the
/// caller's `instanceof DOMException` holds, as it does when the browser answers (its errors
/// are made in the realm of the method called). Anything else is returned as it is (an abort's
/// reason is the caller's own value).
pub fn in_this_realm(e: JsValue) -> JsValue {
    let foreign =
        !e.is_instance_of::<web_sys::DomException>() && has_brand(&e, "DOMException", "name");
    if !foreign {
        return e;
    }
    let text = |key| {
        get(&e, key)
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    dom_exception(&text("name"), &text("message"))
}

/// Whether `v` is a platform object of this realm's `interface` from any realm: that
/// interface's attribute getter `getter` (on its prototype), applied to `v`, does not throw.
fn has_brand(v: &JsValue, interface: &'static str, getter: &'static str) -> bool {
    if !v.is_object() {
        return false;
    }
    let found = field(&js_sys::global(), interface)
        .and_then(|c| field(&c, "prototype"))
        .and_then(|p| {
            let d =
                Object::get_own_property_descriptor(&p.unchecked_into::<Object>(), &name(getter));
            field(&d, "get")
        });
    found.is_ok_and(|g| g.unchecked_into::<Function>().call0(v).is_ok())
}

//! Calling into JS: methods on duck-typed objects, the global, clocks, ids, and reporting
//! what a page callback threw.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{field, get, get_string, parse_text, type_error};

/// The global object (`window` or a worker's `self`).
pub fn global() -> JsValue {
    js_sys::global().into()
}

/// `obj[name](...args)`.
pub fn call(obj: &JsValue, name: &'static str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(obj, name)?
        .dyn_into()
        .map_err(|_| type_error(&format!("{name} is not a function")))?;
    let arr = js_sys::Array::new();
    for a in args {
        arr.push(a);
    }
    f.apply(obj, &arr)
}

/// Whether `obj[name]` is a function.
pub fn has_method(obj: &JsValue, name: &'static str) -> bool {
    get(obj, name).map(|f| f.is_function()).unwrap_or(false)
}

/// `obj instanceof globalThis[ctor]` (false when the constructor does not exist here).
pub fn instance_of(obj: &JsValue, ctor: &'static str) -> bool {
    if !obj.is_object() {
        return false;
    }
    get(&global(), ctor)
        .ok()
        .filter(JsValue::is_function)
        .and_then(|c| get(&c, "prototype").ok())
        .and_then(|p| p.dyn_into::<js_sys::Object>().ok())
        .is_some_and(|p| p.is_prototype_of(obj))
}

/// `event.origin` of a `message` event (`""` when it has none).
pub fn event_origin(ev: &JsValue) -> String {
    field(ev, "origin")
        .ok()
        .and_then(|o| o.as_string())
        .unwrap_or_default()
}

/// The page's origin (`self.origin`), or `"null"`.
pub fn own_origin() -> String {
    get(&global(), "origin")
        .ok()
        .and_then(|o| o.as_string())
        .unwrap_or_else(|| "null".into())
}

/// Reports an exception a page callback threw, without stopping the transport.
pub fn report(e: &JsValue) {
    if has_method(&global(), "reportError") {
        let _ = call(&global(), "reportError", &[e]);
    } else {
        web_sys::console::error_1(e);
    }
}

/// `post(message)`, and when that throws a `DataCloneError` (an answer carrying a page's object
/// as it is, which a structured clone refuses: a proxy; see `polyfill/src/json_clone.js`),
/// `post` of `message`'s JSON copy. Any other failure, or the copy's, is returned.
pub fn post_or_json_copy(
    message: &JsValue,
    post: impl Fn(&JsValue) -> Result<JsValue, JsValue>,
) -> Result<JsValue, JsValue> {
    match post(message) {
        Err(e)
            if message.is_object()
                && get_string(&e, "name").as_deref() == Some("DataCloneError") =>
        {
            let text: JsValue = js_sys::JSON::stringify(message)?.into();
            post(&parse_text(&text)?)
        }
        r => r,
    }
}

/// Calls a page callback with one argument; what it throws is reported, never propagated.
pub fn invoke(cb: &Function, arg: &JsValue) {
    if let Err(e) = cb.call1(&JsValue::UNDEFINED, arg) {
        report(&e);
    }
}

/// A random id: `crypto.randomUUID()` where available.
pub fn random_id() -> String {
    let crypto = get(&global(), "crypto").unwrap_or(JsValue::UNDEFINED);
    if let Ok(id) = call(&crypto, "randomUUID", &[]) {
        if let Some(s) = id.as_string() {
            return s;
        }
    }
    format!(
        "{:x}-{:x}",
        (js_sys::Math::random() * 4294967296.0) as u64,
        js_sys::Date::now() as u64
    )
}

#[wasm_bindgen]
extern "C" {
    /// The global's `performance`, as far as reading its clock goes.
    type Clock;
    #[wasm_bindgen(method, js_name = now)]
    fn now(this: &Clock) -> f64;
}

thread_local! {
    /// The global's `performance`, looked up once (a hub reads the clock for every message).
    static CLOCK: Option<Clock> = get(&global(), "performance")
        .ok()
        .filter(|p| has_method(p, "now"))
        .map(JsCast::unchecked_into);
}

/// Milliseconds on a monotonic-enough clock: `performance.now()`, or `Date.now()` where
/// there is no `performance`.
pub fn now_ms() -> f64 {
    CLOCK.with(|c| match c {
        Some(clock) => clock.now(),
        None => js_sys::Date::now(),
    })
}

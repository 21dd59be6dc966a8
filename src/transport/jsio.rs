//! Small JS plumbing shared by the transports: calling methods on duck-typed peers,
//! listeners and timers that undo themselves, and the realm-wide record of what is served.

use js_sys::{Function, Reflect, Symbol};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser::js;

/// The global object (`window` or a worker's `self`).
pub fn global() -> JsValue {
    js_sys::global().into()
}

/// `obj[name](...args)`.
pub fn call(obj: &JsValue, name: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = js::get(obj, name)?
        .dyn_into()
        .map_err(|_| js::type_error(&format!("{name} is not a function")))?;
    let arr = js_sys::Array::new();
    for a in args {
        arr.push(a);
    }
    f.apply(obj, &arr)
}

/// Whether `obj[name]` is a function.
pub fn has_method(obj: &JsValue, name: &str) -> bool {
    js::get(obj, name).map(|f| f.is_function()).unwrap_or(false)
}

/// `obj instanceof globalThis[ctor]` (false when the constructor does not exist here).
pub fn instance_of(obj: &JsValue, ctor: &str) -> bool {
    if !obj.is_object() {
        return false;
    }
    js::get(&global(), ctor)
        .ok()
        .filter(JsValue::is_function)
        .and_then(|c| js::get(&c, "prototype").ok())
        .and_then(|p| p.dyn_into::<js_sys::Object>().ok())
        .is_some_and(|p| p.is_prototype_of(obj))
}

/// Whether `v` is a `WindowProxy` (also across origins, where only a few properties are
/// readable: `window` is one of them).
pub fn is_window(v: &JsValue) -> bool {
    if !v.is_object() {
        return false;
    }
    match Reflect::get(v, &JsValue::from_str("window")) {
        Ok(w) => w == *v,
        Err(_) => false,
    }
}

/// `event.origin` of a `message` event (`""` when it has none).
pub fn event_origin(ev: &JsValue) -> String {
    js::get(ev, "origin")
        .ok()
        .and_then(|o| o.as_string())
        .unwrap_or_default()
}

/// Checks the `{ctx}.target` of a postMessage transport and says whether it is a Window.
/// A Window target's messages arrive on this context's own window; `receive` names them
/// in the error when this context has none.
pub fn post_message_target(target: &JsValue, ctx: &str, receive: &str) -> Result<bool, JsValue> {
    if !target.is_object() || !has_method(target, "postMessage") {
        return Err(js::type_error(&format!(
            "{ctx}.target is required: a Worker, a Window, a MessagePort or a worker's self \
             (something with postMessage())"
        )));
    }
    let is_window = is_window(target);
    if !is_window && !has_method(target, "addEventListener") {
        return Err(js::type_error(&format!(
            "{ctx}.target must have addEventListener() (a Worker, a MessagePort or a worker's self)"
        )));
    }
    if is_window && web_sys::window().is_none() {
        return Err(js::type_error(&format!(
            "{ctx}.target is a Window, but this context has no window to receive {receive} on"
        )));
    }
    Ok(is_window)
}

/// The page's origin (`self.origin`), or `"null"`.
pub fn own_origin() -> String {
    js::get(&global(), "origin")
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

/// Calls a page callback with one argument; what it throws is reported, never propagated.
pub fn invoke(cb: &Function, arg: &JsValue) {
    if let Err(e) = cb.call1(&JsValue::UNDEFINED, arg) {
        report(&e);
    }
}

/// A random id: `crypto.randomUUID()` where available.
pub fn random_id() -> String {
    let crypto = js::get(&global(), "crypto").unwrap_or(JsValue::UNDEFINED);
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

/// Milliseconds on a monotonic-enough clock.
pub fn now_ms() -> f64 {
    let perf = js::get(&global(), "performance").unwrap_or(JsValue::UNDEFINED);
    call(&perf, "now", &[])
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or_else(js_sys::Date::now)
}

type Callback = Closure<dyn FnMut(JsValue, JsValue)>;

/// A listener added with `target.<add>(type, fn)`; removed with `<remove>` on drop.
pub struct Listener {
    target: JsValue,
    remove: &'static str,
    event: Option<String>,
    callback: Callback,
}

impl Listener {
    /// `target.addEventListener(event, f)` / `removeEventListener`.
    pub fn dom(
        target: &JsValue,
        event: &str,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        Listener::with(
            target,
            "addEventListener",
            "removeEventListener",
            Some(event),
            f,
        )
    }

    /// `target.<add>(event?, f)` / `target.<remove>(event?, f)`.
    pub fn with(
        target: &JsValue,
        add: &'static str,
        remove: &'static str,
        event: Option<&str>,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        let callback = Callback::new(f);
        let cb: &JsValue = callback.as_ref();
        match event {
            Some(e) => call(target, add, &[&JsValue::from_str(e), cb])?,
            None => call(target, add, &[cb])?,
        };
        Ok(Listener {
            target: target.clone(),
            remove,
            event: event.map(str::to_string),
            callback,
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let cb: &JsValue = self.callback.as_ref();
        let _ = match &self.event {
            Some(e) => call(&self.target, self.remove, &[&JsValue::from_str(e), cb]),
            None => call(&self.target, self.remove, &[cb]),
        };
    }
}

/// A `setInterval` / `setTimeout` timer, cleared on drop.
pub struct Timer {
    id: JsValue,
    clear: &'static str,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    pub fn interval(ms: f64, f: impl FnMut() + 'static) -> Result<Timer, JsValue> {
        Timer::start("setInterval", "clearInterval", ms, f)
    }

    pub fn timeout(ms: f64, f: impl FnMut() + 'static) -> Result<Timer, JsValue> {
        Timer::start("setTimeout", "clearTimeout", ms, f)
    }

    fn start(
        set: &str,
        clear: &'static str,
        ms: f64,
        f: impl FnMut() + 'static,
    ) -> Result<Timer, JsValue> {
        let callback = Closure::<dyn FnMut()>::new(f);
        let id = call(&global(), set, &[callback.as_ref(), &JsValue::from_f64(ms)])?;
        Ok(Timer {
            id,
            clear,
            _callback: callback,
        })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let _ = call(&global(), self.clear, &[&self.id]);
    }
}

/// What this realm serves, shared by every copy of the polyfill: channel names (a `Set`
/// of strings) and, per peer object (an emitter, a port, a worker), the keys served on it.
pub struct Served;

impl Served {
    fn names() -> js_sys::Set {
        let key = Symbol::for_("modelcontext-polyfill.served");
        let g = global();
        match Reflect::get(&g, &key)
            .ok()
            .and_then(|s| s.dyn_into::<js_sys::Set>().ok())
        {
            Some(s) => s,
            None => {
                let s = js_sys::Set::new(&JsValue::UNDEFINED);
                let _ = Reflect::set(&g, &key, &s);
                s
            }
        }
    }

    fn objects() -> js_sys::WeakMap {
        let key = Symbol::for_("modelcontext-polyfill.served-objects");
        let g = global();
        match Reflect::get(&g, &key)
            .ok()
            .and_then(|s| s.dyn_into::<js_sys::WeakMap>().ok())
        {
            Some(s) => s,
            None => {
                let s = js_sys::WeakMap::new();
                let _ = Reflect::set(&g, &key, &s);
                s
            }
        }
    }

    /// Claims `name`; `Err(InvalidStateError)` naming `what` when it is already served.
    pub fn claim_name(name: &str, what: &str) -> Result<Claim, JsValue> {
        let names = Served::names();
        let v = JsValue::from_str(name);
        if names.has(&v) {
            return Err(js::dom_exception(
                "InvalidStateError",
                &format!("{what} is already served in this window; two servers would both answer every call."),
            ));
        }
        names.add(&v);
        Ok(Claim::Name(name.to_string()))
    }

    /// Claims `key` on the object `obj`.
    pub fn claim_on(obj: &JsValue, key: &str, what: &str) -> Result<Claim, JsValue> {
        let Ok(o) = obj.clone().dyn_into::<js_sys::Object>() else {
            return Ok(Claim::None);
        };
        let map = Served::objects();
        let set = match map.get(&o).dyn_into::<js_sys::Set>() {
            Ok(s) => s,
            Err(_) => {
                let s = js_sys::Set::new(&JsValue::UNDEFINED);
                map.set(&o, &s);
                s
            }
        };
        let v = JsValue::from_str(key);
        if set.has(&v) {
            return Err(js::dom_exception(
                "InvalidStateError",
                &format!("{what} is already served; two servers would both answer every call."),
            ));
        }
        set.add(&v);
        Ok(Claim::On(o, key.to_string()))
    }
}

/// A claim on a name or an object; released on drop.
pub enum Claim {
    None,
    Name(String),
    On(js_sys::Object, String),
}

impl Drop for Claim {
    fn drop(&mut self) {
        match self {
            Claim::None => {}
            Claim::Name(n) => {
                Served::names().delete(&JsValue::from_str(n));
            }
            Claim::On(o, k) => {
                if let Ok(s) = Served::objects().get(o).dyn_into::<js_sys::Set>() {
                    s.delete(&JsValue::from_str(k));
                }
            }
        }
    }
}

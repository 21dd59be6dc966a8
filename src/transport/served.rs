//! What this realm serves, shared by every copy of the polyfill: a second server on the same
//! channel or object is refused instead of answering every call twice.

use js_sys::{Reflect, Symbol};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::js::{global, DomError};

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
            return Err(DomError::InvalidState(format!(
                "{what} is already served in this window; two servers would both answer every call."
            ))
            .into_js());
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
            return Err(DomError::InvalidState(format!(
                "{what} is already served; two servers would both answer every call."
            ))
            .into_js());
        }
        set.add(&v);
        Ok(Claim::On(o, key.to_string()))
    }
}

/// A claim on a name or an object; released on drop.
pub enum Claim {
    /// Nothing claimed (the target is not an object, so nothing can be shared on it).
    None,
    /// A channel name.
    Name(String),
    /// A key on a peer object.
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

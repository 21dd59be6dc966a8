//! What a session of the session API registered ([`Scope`]) and the steps every `register*`
//! of a scope shares: the checks that come first, and an unregister function that removes
//! only its own registration. The session API (`session_api.rs`) and skills (`skill_api.rs`)
//! use it.

use js_sys::Function;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::EngineInner;
use crate::js;
use crate::js::DomError;

/// What one session (or `modelContext` itself, whose scope is the engine's `Scope` state)
/// registered, so `disconnect` can undo it.
#[derive(Default)]
pub struct Scope {
    pub(crate) tools: Registered,
    pub(crate) resources: Registered,
    pub(crate) prompts: Registered,
    pub(crate) skills: Registered,
    pub(crate) closed: Cell<bool>,
}

/// What a scope registered of one kind, and the function that unregisters one of them.
#[derive(Default)]
pub struct Registered {
    /// `(key, registration)` of each registration still in place.
    pub(crate) entries: RefCell<Vec<(String, u64)>>,
    /// The unregister function of this kind's registrations, made on first use: each
    /// registration returns it bound to its key and id ([`scoped_unregister`]).
    unregister: OnceCell<Function>,
}

pub(crate) fn check_open(scope: &Scope) -> Result<(), DomError> {
    if scope.closed.get() {
        Err(DomError::InvalidState(
            "This session is disconnected.".into(),
        ))
    } else {
        Ok(())
    }
}

/// What every `register*` call checks first: the scope is open, the key a string and
/// the definition an object. Returns the key and `"{method}({key:?})"`, the prefix of
/// the call's error messages.
pub(crate) fn begin_registration(
    scope: &Scope,
    method: &str,
    param: &str,
    key: &JsValue,
    def: &JsValue,
) -> Result<(String, String), JsValue> {
    check_open(scope)?;
    let key = js::to_dom_string(key)?;
    if !def.is_object() {
        return Err(js::type_error(&format!(
            "{method}({param}, definition): the definition must be an object"
        )));
    }
    let what = format!("{method}({key:?})");
    Ok((key, what))
}

/// One of a scope's lists of what it registered.
pub(crate) type ScopeList = fn(&Scope) -> &Registered;

/// Records `(key, registration)` in the scope's `list` and returns the unregister
/// function: it `undo`es the registration while the engine lives, and drops the record
/// while the scope does. The function is the list's one unregister function bound to
/// `key` and `registration` (made at the list's first registration, with its `undo`, which
/// is the same for every registration of a list): a registration keeps nothing in wasm
/// memory for it (a closure of its own held some 100 bytes there for as long as the page
/// kept the function).
pub(crate) fn scoped_unregister(
    inner: &Rc<EngineInner>,
    scope: &Rc<Scope>,
    list: ScopeList,
    key: String,
    registration: u64,
    undo: fn(&EngineInner, &str, u64),
) -> Function {
    let registered = list(scope);
    let unregister = registered.unregister.get_or_init(|| {
        let me = Rc::downgrade(inner);
        let sc = Rc::downgrade(scope);
        Closure::<dyn Fn(String, f64)>::new(move |key: String, registration: f64| {
            let registration = registration as u64;
            if let Some(me) = me.upgrade() {
                undo(&me, &key, registration);
            }
            if let Some(sc) = sc.upgrade() {
                (list(&sc).entries.borrow_mut()).retain(|(_, r)| *r != registration);
            }
        })
        .into_js_value()
        .unchecked_into()
    });
    let bound = unregister.bind2(
        &JsValue::UNDEFINED,
        &JsValue::from_str(&key),
        &JsValue::from_f64(registration as f64),
    );
    registered.entries.borrow_mut().push((key, registration));
    bound.unchecked_into()
}

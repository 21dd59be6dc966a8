//! What a session of the session API registered ([`Scope`]) and the steps every `register*`
//! of a scope shares: the checks that come first, and an unregister function that removes
//! only its own registration. The session API (`session_api.rs`) and skills (`skill_api.rs`)
//! use it.

use js_sys::Function;
use std::cell::{Cell, RefCell};
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
    pub(crate) tools: RefCell<Vec<(String, u64)>>,
    pub(crate) resources: RefCell<Vec<(String, u64)>>,
    pub(crate) prompts: RefCell<Vec<(String, u64)>>,
    pub(crate) skills: RefCell<Vec<(String, u64)>>,
    pub(crate) closed: Cell<bool>,
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

fn unregister_fn(f: impl Fn() + 'static) -> Function {
    Closure::<dyn Fn()>::new(f).into_js_value().unchecked_into()
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
pub(crate) type ScopeList = fn(&Scope) -> &RefCell<Vec<(String, u64)>>;

/// Records `(key, registration)` in the scope's `list` and returns the unregister
/// function: it `undo`es the registration while the engine lives, and drops the record
/// while the scope does.
pub(crate) fn scoped_unregister(
    inner: &Rc<EngineInner>,
    scope: &Rc<Scope>,
    list: ScopeList,
    key: String,
    registration: u64,
    undo: fn(&EngineInner, &str, u64),
) -> Function {
    list(scope).borrow_mut().push((key.clone(), registration));
    let me = Rc::downgrade(inner);
    let sc = Rc::downgrade(scope);
    unregister_fn(move || {
        if let Some(me) = me.upgrade() {
            undo(&me, &key, registration);
        }
        if let Some(sc) = sc.upgrade() {
            list(&sc).borrow_mut().retain(|(_, r)| *r != registration);
        }
    })
}

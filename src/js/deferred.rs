//! A promise settled from Rust ([`Deferred`]) and a one-shot hook on an `AbortSignal`
//! ([`on_abort`]).

use js_sys::{Function, Promise};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A promise and its resolving functions, shared by its clones; only the first settlement
/// counts (later ones are no-ops, as for the promise itself).
#[derive(Clone)]
pub struct Deferred {
    promise: Promise,
    fns: Rc<RefCell<Option<(Function, Function)>>>,
}

impl Deferred {
    /// A pending promise.
    pub fn new() -> Deferred {
        let fns = Rc::new(RefCell::new(None));
        let f = fns.clone();
        let promise = Promise::new(&mut |resolve, reject| {
            *f.borrow_mut() = Some((resolve, reject));
        });
        Deferred { promise, fns }
    }

    /// The promise.
    pub fn promise(&self) -> &Promise {
        &self.promise
    }

    /// Whether it has been settled.
    pub fn is_settled(&self) -> bool {
        self.fns.borrow().is_none()
    }

    /// The promise's reject function, while it is pending (calling it once the promise is
    /// settled does nothing, as for any promise).
    pub fn rejector(&self) -> Option<Function> {
        self.fns.borrow().as_ref().map(|(_, reject)| reject.clone())
    }

    /// Fulfils (`ok`) or rejects the promise with `v`, unless it is settled already.
    pub fn settle(&self, ok: bool, v: &JsValue) {
        let taken = self.fns.borrow_mut().take();
        if let Some((resolve, reject)) = taken {
            let f = if ok { resolve } else { reject };
            let _ = f.call1(&JsValue::UNDEFINED, v);
        }
    }
}

impl Default for Deferred {
    fn default() -> Self {
        Deferred::new()
    }
}

/// Runs `f` once when `signal` aborts. The listener is registered `{ once: true }`, so the
/// browser drops it (and `f`) after it runs, or with the signal.
pub fn on_abort(signal: &web_sys::AbortSignal, f: impl FnOnce() + 'static) {
    once_on_abort(signal, Closure::once_into_js(f).unchecked_ref());
}

/// Calls `cb` (with the event) once when `signal` aborts, as [`on_abort`] does.
pub fn once_on_abort(signal: &web_sys::AbortSignal, cb: &Function) {
    let opts = web_sys::AddEventListenerOptions::new();
    opts.set_once(true);
    let _ =
        signal.add_event_listener_with_callback_and_add_event_listener_options("abort", cb, &opts);
}

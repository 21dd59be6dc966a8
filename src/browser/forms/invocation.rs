//! One agent call of a form tool while it is under way: waiting for the form's submission,
//! then for the page's response ([`Invocation`]); the watch on `form.submit()` during the
//! submit event ([`SubmitWatch`]); the marks a form and its submit button carry meanwhile; and
//! how `executeTool` tells the declarative API's own outcomes from the page's.

use js_sys::{Function, Promise};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::controls::{self, SUBMITTED};
use crate::js;
use crate::js::DomError;

/// One agent call waiting for its form's submission, then for the page's response.
pub(super) struct Invocation {
    pub(super) done: js::Deferred,
    /// How many times `respondWith` was called (the last call's promise answers).
    pub(super) responses: Cell<u32>,
    /// The id of the submit event that claimed it, and the event.
    pub(super) event: Cell<Option<u32>>,
    pub(super) submit_event: RefCell<JsValue>,
    /// The elements marked active while the call is under way ([`ACTIVE_FORM`],
    /// [`ACTIVE_SUBMIT`]).
    pub(super) marked: RefCell<Vec<(JsValue, &'static str)>>,
    /// Watches `form.submit()` during the submit event's dispatch.
    pub(super) watch: RefCell<Option<SubmitWatch>>,
}

/// While an agent's submit event is dispatched, the form's `submit()` is wrapped (an own
/// property shadowing `HTMLFormElement.prototype.submit`) to see whether the page submits
/// the form itself after `preventDefault()` — that submission answers the call as any
/// submission that goes ahead does. Dropped, the wrapper is removed.
pub(super) struct SubmitWatch {
    form: JsValue,
    pub(super) called: Rc<Cell<bool>>,
    _wrapper: Closure<dyn Fn() -> Result<JsValue, JsValue>>,
}

impl SubmitWatch {
    /// Wraps `form.submit` (not when a control named `submit` shadows it).
    pub(super) fn start(form: &JsValue) -> Option<SubmitWatch> {
        let original: Function = js::get(form, "submit").ok()?.dyn_into().ok()?;
        let called = Rc::new(Cell::new(false));
        let c = called.clone();
        let f = form.clone();
        let wrapper = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
            c.set(true);
            original.call0(&f)
        });
        let desc: JsValue = js::object().into();
        js::set(&desc, "value", wrapper.as_ref());
        js::set(&desc, "configurable", &JsValue::TRUE);
        js::set(&desc, "writable", &JsValue::TRUE);
        js_sys::Reflect::define_property(
            form.unchecked_ref::<js_sys::Object>(),
            &"submit".into(),
            desc.unchecked_ref(),
        )
        .ok()?;
        Some(SubmitWatch {
            form: form.clone(),
            called,
            _wrapper: wrapper,
        })
    }
}

impl Drop for SubmitWatch {
    fn drop(&mut self) {
        let _ = js_sys::Reflect::delete_property(
            self.form.unchecked_ref::<js_sys::Object>(),
            &"submit".into(),
        );
    }
}

/// The attribute a form has while an agent's call of its tool is under way: the page's way to
/// style it, as native Chromium's `:tool-form-active` pseudo-class (which a script cannot add
/// to CSS) does.
pub const ACTIVE_FORM: &str = "data-tool-form-active";
/// The attribute the form's default submit button has meanwhile (`:tool-submit-active`).
pub const ACTIVE_SUBMIT: &str = "data-tool-submit-active";

impl Invocation {
    pub(super) fn new() -> (Rc<Invocation>, Promise) {
        let done = js::Deferred::new();
        let promise = done.promise().clone();
        let inv = Rc::new(Invocation {
            done,
            responses: Cell::new(0),
            event: Cell::new(None),
            submit_event: RefCell::new(JsValue::UNDEFINED),
            marked: RefCell::new(Vec::new()),
            watch: RefCell::new(None),
        });
        (inv, promise)
    }

    /// Marks `form` and its default submit button active; without `toolautosubmit` (the
    /// user is to submit) the button gets the focus, as in Chromium.
    pub(super) fn mark(&self, form: &JsValue, focus: bool) {
        let mut marked = vec![(form.clone(), ACTIVE_FORM)];
        if let Some(button) = default_button(form) {
            if focus {
                let _ = js::call(&button, "focus", &[]);
            }
            marked.push((button, ACTIVE_SUBMIT));
        }
        for (el, name) in &marked {
            let _ = js::call(
                el,
                "setAttribute",
                &[&JsValue::from_str(name), &JsValue::from_str("")],
            );
        }
        *self.marked.borrow_mut() = marked;
    }

    /// Fails the call with the form's own exception, which `executeTool` reports as it is
    /// ([`is_own_failure`]).
    pub(super) fn fail(&self, e: DomError) {
        let v = e.into_js();
        OWN_FAILURES.with(|w| w.add(v.unchecked_ref()));
        self.settle(false, &v);
    }

    pub(super) fn settle(&self, ok: bool, v: &JsValue) {
        for (el, name) in self.marked.take() {
            let _ = js::call(&el, "removeAttribute", &[&JsValue::from_str(name)]);
        }
        self.done.settle(ok, v);
    }
}

/// The form's default button: its first submit button (`<button>` of type submit, or
/// `<input type=submit|image>`) in tree order.
pub(super) fn default_button(form: &JsValue) -> Option<JsValue> {
    js::items(&js::get(form, "elements").ok()?)
        .into_iter()
        .find(|el| {
            let tag = controls::prop_string(el, "tagName").to_ascii_lowercase();
            let ty = controls::prop_string(el, "type").to_ascii_lowercase();
            (tag == "button" && ty == "submit")
                || (tag == "input" && (ty == "submit" || ty == "image"))
        })
}

thread_local! {
    /// What a form tool's `execute` resolves with when the submission went ahead without
    /// `respondWith` (the page navigates): `executeTool` gives `null` for it, as Chromium
    /// does; an MCP client, for which the object is serialized (`toJSON`), gets [`SUBMITTED`].
    pub(super) static NAVIGATED: JsValue = {
        let o: JsValue = js::object().into();
        // A Rust closure, not `new Function` (pages with a strict CSP forbid eval); the
        // JS engine owns it from here, with the object.
        let f = Closure::<dyn Fn() -> JsValue>::new(|| JsValue::from_str(SUBMITTED));
        js::set(&o, "toJSON", &f.into_js_value());
        o
    };
}

thread_local! {
    /// The exceptions the declarative API failed calls with (not the page's).
    static OWN_FAILURES: js_sys::WeakSet = js_sys::WeakSet::new();
}

/// Whether `e` is an exception the declarative API failed a call with (a reset, a cancelled
/// submission, an invalid form), rather than one the page's `respondWith` promise gave.
pub fn is_own_failure(e: &JsValue) -> bool {
    e.is_object() && OWN_FAILURES.with(|w| w.has(e.unchecked_ref()))
}

/// Whether `v` is a form tool's "the submission went ahead" result.
pub fn is_navigated(v: &JsValue) -> bool {
    NAVIGATED.with(|n| n == v)
}

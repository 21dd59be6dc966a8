//! The declarative API: `<form toolname="…" tooldescription="…" [toolautosubmit]>` as tools
//! (<https://webmachinelearning.github.io/webmcp/>, its declarative API; digest:
//! `shared/spec/WEBMCP.md`, "Declarative API (forms)").
//!
//! Each such form in the document, or in a shadow tree of it, is a tool in the engine's one
//! registry ([`Door::Form`]), its input schema synthesized from the form's named controls. A
//! `MutationObserver` keeps the registry in step with the document and its shadow roots
//! (`shadow.rs`): forms added or removed, their tool attributes changed, controls added, removed
//! or renamed (each change fires `toolchange`).
//!
//! An agent's call fills the form and waits for its submission: at once (`requestSubmit()`)
//! with `toolautosubmit`, else when the user submits it. The `SubmitEvent` then has
//! `agentInvoked === true`, and `respondWith(promise)` (after `preventDefault()`) supplies
//! the tool's result; without it the result is a short text saying the form was submitted.
//! Only when the browser has no WebMCP of its own (which handles forms itself).

use crate::protocol::json_text;
use crate::collections::VecMap;
use js_sys::{Array, Function, Promise};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Engine, EngineInner};
use super::store::{register_web_tool, unregister_if_current, Door, ToolDict};
use crate::js;
use crate::js::DomError;
use crate::js::{Listener, Observer};

mod changes;
mod controls;
mod invocation;
mod shadow;

pub use changes::use_form_changes;
pub use shadow::use_shadow_roots;
use controls::{attr, fill, has_attr, invalid_controls, unknown_parameter, WATCHED_ATTRIBUTES};
pub use controls::{coerce, synthesize};
use invocation::{default_button, Invocation, SubmitWatch, NAVIGATED};
pub use invocation::{is_navigated, is_own_failure, ACTIVE_FORM, ACTIVE_SUBMIT};

/// One `<form toolname>` the engine knows.
struct FormState {
    form: JsValue,
    /// The tool's name, registration id and signature (what it was registered with).
    reg: RefCell<Option<(String, u64, String)>>,
    /// The signature last tried, so a refused registration warns once.
    tried: RefCell<Option<String>>,
    /// The call waiting for this form's submission.
    pending: RefCell<Option<Rc<Invocation>>>,
}

/// The declarative API of one engine.
pub struct Forms {
    inner: Weak<EngineInner>,
    document: JsValue,
    states: RefCell<Vec<Rc<FormState>>>,
    /// Submit events claimed by a call: event → id in `claimed`.
    events: js_sys::WeakMap,
    claimed: RefCell<VecMap<u32, Rc<Invocation>>>,
    next_event: Cell<u32>,
    /// The capturing `submit` listener at the global and the document's observer: they live
    /// as long as the declarative API (its engine's), and go with it.
    on_submit: RefCell<Option<Listener>>,
    on_reset: RefCell<Option<Listener>>,
    observer: RefCell<Option<Observer>>,
    /// The document's shadow roots (their forms are tools too).
    shadow: RefCell<Option<shadow::ShadowRoots>>,
}

/// The tool a form describes now: name, description, autosubmit, schema, title
/// (`tooltitle`, reflected in `getTools()` as native Chromium does).
fn describe(form: &JsValue) -> (String, String, bool, Value, Option<String>) {
    (
        attr(form, "toolname").unwrap_or_default(),
        attr(form, "tooldescription").unwrap_or_default(),
        has_attr(form, "toolautosubmit"),
        synthesize(form),
        attr(form, "tooltitle"),
    )
}

impl Forms {
    /// Registers the document's tool forms and watches it for changes.
    pub fn start(inner: &Rc<EngineInner>) -> Result<Rc<Forms>, JsValue> {
        let document = js::get(inner.global(), "document")?;
        if !document.is_object() {
            return Err(js::type_error("the declarative API needs a document"));
        }
        let forms = Rc::new(Forms {
            inner: Rc::downgrade(inner),
            document: document.clone(),
            states: RefCell::new(Vec::new()),
            events: js_sys::WeakMap::new(),
            claimed: RefCell::new(VecMap::new()),
            next_event: Cell::new(0),
            on_submit: RefCell::new(None),
            on_reset: RefCell::new(None),
            observer: RefCell::new(None),
            shadow: RefCell::new(None),
        });
        // Every submit, before the page's own listeners (capture at the window).
        if inner.global().dyn_ref::<web_sys::EventTarget>().is_some() {
            let f = Rc::downgrade(&forms);
            let listener = Listener::dom_capture(inner.global(), "submit", move |ev, _| {
                if let Some(f) = f.upgrade() {
                    f.on_submit(&ev);
                }
            })?;
            *forms.on_submit.borrow_mut() = Some(listener);
            let f = Rc::downgrade(&forms);
            let listener = Listener::dom_capture(inner.global(), "reset", move |ev, _| {
                if let Some(f) = f.upgrade() {
                    f.on_reset(&ev);
                }
            })?;
            *forms.on_reset.borrow_mut() = Some(listener);
        }
        // The document's changes, a batch at a time.
        let f = Rc::downgrade(&forms);
        let observer_class: Function = js::get(inner.global(), "MutationObserver")?
            .dyn_into()
            .map_err(|_| js::type_error("the declarative API needs MutationObserver"))?;
        let observer = Observer::new(&observer_class, move |records| {
            if let Some(f) = f.upgrade() {
                // Pages change their DOM all the time: a batch that cannot have brought a tool
                // form (none known yet) or changed one (or a control or label it describes)
                // is not worth a scan of the whole document.
                let forms_known = !f.states.borrow().is_empty();
                let shadow = f.shadow.borrow();
                let relevant = shadow
                    .as_ref()
                    .and_then(|r| r.relevant(&records, forms_known))
                    .unwrap_or_else(|| changes::relevant(&records, forms_known));
                // (A host with tool forms in its root, removed or put back, shows only there.)
                let changed = relevant || shadow.as_ref().is_some_and(|r| r.moved());
                drop(shadow);
                if changed {
                    f.sync();
                }
            }
        })?;
        let init: JsValue = js::object().into();
        js::set(&init, "subtree", &JsValue::TRUE);
        js::set(&init, "childList", &JsValue::TRUE);
        js::set(&init, "attributes", &JsValue::TRUE);
        let filter: Array = WATCHED_ATTRIBUTES
            .iter()
            .map(|a| JsValue::from_str(a))
            .collect();
        js::set(&init, "attributeFilter", &filter);
        observer.observe(&document, &init)?;
        // The shadow roots: each observed as the document is, and listened to as the window
        // is (a submit event does not leave its tree).
        let function = |l: &RefCell<Option<Listener>>| {
            l.borrow()
                .as_ref()
                .map_or(JsValue::UNDEFINED, |l| l.function().clone())
        };
        let roots = shadow::ShadowRoots::start(
            &document,
            observer.object(),
            &init,
            &function(&forms.on_submit),
            &function(&forms.on_reset),
        )?;
        *forms.shadow.borrow_mut() = roots;
        *forms.observer.borrow_mut() = Some(observer);
        forms.sync();
        Ok(forms)
    }

    /// Brings the registry in line with the document's `<form toolname>` elements (the whole
    /// document scanned: the page may have changed any form or control).
    fn sync(self: &Rc<Self>) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let mut found = js::call(
            &self.document,
            "querySelectorAll",
            &[&JsValue::from_str("form[toolname]")],
        )
        .map(|l| js::items(&l))
        .unwrap_or_default();
        // Then the shadow trees' (after the document's own, root by root).
        if let Some(roots) = &*self.shadow.borrow() {
            found.extend(roots.forms());
        }
        // Forms that left the document: their tools go, their calls fail.
        let (kept, gone): (Vec<_>, Vec<_>) = self
            .states
            .take()
            .into_iter()
            .partition(|s| found.contains(&s.form));
        for s in gone {
            if let Some((name, registration, _)) = s.reg.take() {
                unregister_if_current(&inner, &name, registration);
            }
            // UnknownError, as in Chromium.
            if let Some(inv) = s.pending.take() {
                inv.fail(DomError::Unknown(
                    "The form was removed from the document.".into(),
                ));
            }
        }
        // Each form in tree order, with what it describes now.
        let mut wanted = Vec::new();
        for form in found {
            let state = kept.iter().find(|s| s.form == form).cloned();
            let state = state.unwrap_or_else(|| {
                Rc::new(FormState {
                    form: form.clone(),
                    reg: RefCell::new(None),
                    tried: RefCell::new(None),
                    pending: RefCell::new(None),
                })
            });
            let d = describe(&form);
            let signature = format!(
                "{}\n{}\n{}\n{}\n{:?}",
                d.0,
                d.1,
                d.2,
                json_text::to_string(&d.3),
                d.4
            );
            wanted.push((state, d, signature));
        }
        // First unregister what changed (two forms may swap names), then register.
        for (state, _, signature) in &wanted {
            let stale = matches!(&*state.reg.borrow(), Some((_, _, s)) if s != signature);
            if stale {
                if let Some((name, registration, _)) = state.reg.take() {
                    unregister_if_current(&inner, &name, registration);
                }
            }
        }
        for (state, (name, description, _, schema, title), signature) in &wanted {
            let registered = state.reg.borrow().is_some();
            if registered {
                continue;
            }
            let dict = ToolDict {
                name: name.clone(),
                title: title.clone(),
                description: description.clone(),
                input_schema: Some(js::from_json(schema)),
                execute: self.execute_fn(state),
                annotations: None,
                output_schema: JsValue::UNDEFINED,
            };
            match register_web_tool(&inner, dict, Door::Form) {
                Ok(registration) => {
                    *state.reg.borrow_mut() = Some((name.clone(), registration, signature.clone()));
                }
                Err(e) => {
                    let again = state.tried.borrow().as_deref() == Some(signature.as_str());
                    if !again {
                        js::warn(&format!(
                            "modelcontext-polyfill: <form toolname={name:?}> is not registered as a tool: {}",
                            js::error_message(&e)
                        ));
                    }
                }
            }
            *state.tried.borrow_mut() = Some(signature.clone());
        }
        *self.states.borrow_mut() = wanted.into_iter().map(|(s, _, _)| s).collect();
    }

    /// The tool's `execute(input, { signal })`: fills the form and waits for its submission.
    fn execute_fn(self: &Rc<Self>, state: &Rc<FormState>) -> Function {
        let forms = Rc::downgrade(self);
        let state = Rc::downgrade(state);
        let f = Closure::<dyn Fn(JsValue, JsValue) -> Promise>::new(
            move |input: JsValue, options: JsValue| -> Promise {
                match (forms.upgrade(), state.upgrade()) {
                    (Some(forms), Some(state)) => forms.execute(&state, &input, &options),
                    _ => Promise::reject(
                        &DomError::InvalidState("The form is no longer in the document.".into())
                            .into_js(),
                    ),
                }
            },
        );
        f.into_js_value().unchecked_into()
    }

    fn execute(
        self: &Rc<Self>,
        state: &Rc<FormState>,
        input: &JsValue,
        options: &JsValue,
    ) -> Promise {
        let auto = has_attr(&state.form, "toolautosubmit");
        // Without toolautosubmit the user is to submit the form: with no submit button to
        // do it with, the call fails at once, the form untouched (as in Chromium).
        if !auto && default_button(&state.form).is_none() {
            let (inv, promise) = Invocation::new();
            inv.fail(DomError::Unknown(
                "The form has neither toolautosubmit nor a submit button for the user.".into(),
            ));
            return promise;
        }
        let args = match js::to_json(input) {
            Ok(Some(Value::Object(m))) => m,
            _ => Map::new(),
        };
        // A member the tool has no parameter for fails the call, the form untouched (as in
        // native Chromium).
        if let Some(why) = unknown_parameter(&state.form, &args) {
            let (inv, promise) = Invocation::new();
            inv.fail(DomError::Unknown(why));
            return promise;
        }
        fill(&state.form, &args);
        let (inv, promise) = Invocation::new();
        if let Some(old) = state.pending.replace(Some(inv.clone())) {
            old.fail(DomError::Abort(
                "A newer call to this form's tool replaced it.".into(),
            ));
        }
        inv.mark(&state.form, !auto);
        // Cancelled: the call fails with the signal's reason.
        if let Some(signal) = js::get(options, "signal").ok().and_then(js::abort_signal) {
            let st = Rc::downgrade(state);
            let i = inv.clone();
            let s = signal.clone();
            js::on_abort(&signal, move || {
                if let Some(st) = st.upgrade() {
                    let mine = matches!(&*st.pending.borrow(), Some(p) if Rc::ptr_eq(p, &i));
                    if mine {
                        st.pending.take();
                    }
                }
                i.settle(false, &s.reason());
            });
        }
        // toolautosubmit: submit it now (after this call returns); else the user will.
        if auto {
            let me = self.clone();
            let st = state.clone();
            let i = inv.clone();
            js::spawn(async move { me.auto_submit(&st, &i) });
        }
        promise
    }

    fn auto_submit(&self, state: &FormState, inv: &Rc<Invocation>) {
        let waiting = matches!(&*state.pending.borrow(), Some(p) if Rc::ptr_eq(p, inv));
        if !waiting {
            return; // cancelled meanwhile
        }
        // Submitted by its default button, as native Chromium does (the button's name and value
        // are in the submission).
        let submitter = default_button(&state.form).unwrap_or(JsValue::UNDEFINED);
        let submitted = js::call(&state.form, "requestSubmit", &[&submitter]);
        // requestSubmit() dispatches the submit event synchronously; it did not happen when
        // the form is invalid.
        let still = matches!(&*state.pending.borrow(), Some(p) if Rc::ptr_eq(p, inv));
        if still {
            state.pending.take();
            let why = match submitted {
                Err(e) => js::error_message(&e),
                Ok(_) => invalid_controls(&state.form),
            };
            inv.fail(DomError::Unknown(format!(
                "The form was not submitted: {why}"
            )));
            return;
        }
        if let Some(id) = inv.event.get() {
            self.finish(id);
        }
    }

    /// The call waiting for the form `ev` is aimed at, taken from it.
    fn take_pending(&self, ev: &JsValue) -> Option<Rc<Invocation>> {
        let target = js::get(ev, "target").unwrap_or(JsValue::UNDEFINED);
        let state = self
            .states
            .borrow()
            .iter()
            .find(|s| s.form == target)
            .cloned();
        state.and_then(|s| s.pending.take())
    }

    /// A submit event (capture, at the window): if its form has a call waiting, the event
    /// is that call's (`agentInvoked`).
    fn on_submit(self: &Rc<Self>, ev: &JsValue) {
        let Some(inv) = self.take_pending(ev) else {
            return;
        };
        let id = self.next_event.get() + 1;
        self.next_event.set(id);
        if let Some(obj) = ev.dyn_ref::<js_sys::Object>() {
            self.events.set(obj, &JsValue::from(id));
        }
        inv.event.set(Some(id));
        *inv.submit_event.borrow_mut() = ev.clone();
        let form = js::get(ev, "target").unwrap_or(JsValue::UNDEFINED);
        *inv.watch.borrow_mut() = SubmitWatch::start(&form);
        self.claimed.borrow_mut().insert(id, inv);
        // After the dispatch: a user's submit is finished in a task.
        if let Some(inner) = self.inner.upgrade() {
            let me = self.clone();
            inner.queue(move || me.finish(id));
        }
    }

    /// The submit event's dispatch is over. Without `respondWith`: if the page cancelled the
    /// submission (`preventDefault()`) and did not submit the form itself (`form.submit()`),
    /// nothing will answer the call (UnknownError, as in Chromium); else the submission goes
    /// ahead and navigates ([`NAVIGATED`]).
    fn finish(&self, id: u32) {
        let inv = self.claimed.borrow_mut().remove(&id);
        let Some(inv) = inv else { return };
        let submitted = inv.watch.take().is_some_and(|w| w.called.get());
        if inv.responses.get() > 0 {
            return;
        }
        let ev = inv.submit_event.replace(JsValue::UNDEFINED);
        let prevented = js::get(&ev, "defaultPrevented").is_ok_and(|p| p.is_truthy());
        if prevented && !submitted {
            let e = DomError::Unknown(
                "The page called preventDefault() on the agent's submit event without calling \
                 respondWith() with the tool's result."
                    .into(),
            );
            inv.fail(e);
        } else {
            NAVIGATED.with(|n| inv.settle(true, n));
        }
    }

    /// A `reset` event (capture, at the window): a call waiting for that form fails.
    fn on_reset(&self, ev: &JsValue) {
        if let Some(inv) = self.take_pending(ev) {
            inv.fail(DomError::Unknown(
                "The tool call was cancelled by a form reset.".into(),
            ));
        }
    }

    fn claim_of(&self, ev: &JsValue) -> Option<u32> {
        let obj = ev.dyn_ref::<js_sys::Object>()?;
        self.events.get(obj).as_f64().map(|x| x as u32)
    }

    /// `SubmitEvent.prototype.respondWith(promise)`.
    fn respond_with(&self, ev: &JsValue, promise: &JsValue) -> Result<(), JsValue> {
        let invalid = |m: &str| Err(DomError::InvalidState(m.into()).into_js());
        let Some(id) = self.claim_of(ev) else {
            return invalid("respondWith() needs a submit event invoked by an agent.");
        };
        let phase = js::get(ev, "eventPhase")?.as_f64().unwrap_or(0.0);
        let inv = self.claimed.borrow().get(&id).cloned();
        let Some(inv) = inv.filter(|_| phase != 0.0) else {
            return invalid("respondWith() must be called while the submit event is dispatched.");
        };
        if !js::get(ev, "defaultPrevented")?.is_truthy() {
            return invalid("respondWith() needs preventDefault() to have been called first.");
        }
        // Called again during the dispatch, the last promise answers (as in Chromium).
        let nth = inv.responses.get() + 1;
        inv.responses.set(nth);
        let settled = wasm_bindgen_futures::JsFuture::from(Promise::resolve(promise));
        js::spawn(async move {
            let outcome = settled.await;
            if inv.responses.get() != nth {
                return;
            }
            match outcome {
                Ok(v) => inv.settle(true, &v),
                Err(e) => inv.settle(false, &e),
            }
        });
        Ok(())
    }
}

/// The declarative API once started: this feature's state in the engine.
#[derive(Default)]
struct Started(RefCell<Option<Rc<Forms>>>);

#[wasm_bindgen]
impl Engine {
    /// Starts the declarative API (the installer calls it when the browser has no WebMCP).
    #[wasm_bindgen(js_name = startForms)]
    pub fn start_forms(&self) -> Result<(), JsValue> {
        let started = self.inner.state::<Started>();
        if started.0.borrow().is_some() {
            return Ok(());
        }
        let forms = Forms::start(&self.inner)?;
        *started.0.borrow_mut() = Some(forms);
        Ok(())
    }

    /// `SubmitEvent.prototype.agentInvoked` for `event`.
    #[wasm_bindgen(js_name = formAgentInvoked)]
    pub fn form_agent_invoked(&self, event: JsValue) -> bool {
        let forms = self.inner.state::<Started>().0.borrow().clone();
        forms.is_some_and(|f| f.claim_of(&event).is_some())
    }

    /// `SubmitEvent.prototype.respondWith(promise)` for `event`.
    #[wasm_bindgen(js_name = formRespondWith)]
    pub fn form_respond_with(&self, event: JsValue, promise: JsValue) -> Result<(), JsValue> {
        let forms = self.inner.state::<Started>().0.borrow().clone();
        match forms {
            Some(f) => f.respond_with(&event, &promise),
            None => Err(DomError::InvalidState(
                "respondWith() needs a submit event invoked by an agent.".into(),
            )
            .into_js()),
        }
    }
}

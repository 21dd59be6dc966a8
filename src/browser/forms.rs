//! The declarative API: `<form toolname="…" tooldescription="…" [toolautosubmit]>` as tools
//! (`shared/spec/WEBMCP.md`, "Declarative API (forms)").
//!
//! Each such form in the document is a tool in the engine's one registry ([`Door::Form`]),
//! its input schema synthesized from the form's named controls. A `MutationObserver` keeps
//! the registry in step with the document: forms added or removed, their tool attributes
//! changed, controls added, removed or renamed (each change fires `toolchange`).
//!
//! An agent's call fills the form and waits for its submission: at once (`requestSubmit()`)
//! with `toolautosubmit`, else when the user submits it. The `SubmitEvent` then has
//! `agentInvoked === true`, and `respondWith(promise)` (after `preventDefault()`) supplies
//! the tool's result; without it the result is a short text saying the form was submitted.
//! Only when the browser has no WebMCP of its own (which handles forms itself).

use js_sys::{Array, Function, Promise, Reflect};
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Door, Engine, EngineInner};
use super::error::DomError;
use super::webmcp::{register_web_tool, unregister_if_current, ToolDict};
use crate::js;
use crate::js::{Listener, Observer};

/// The attributes whose changes can change a form tool.
const WATCHED_ATTRIBUTES: [&str; 18] = [
    "toolname",
    "tooltitle",
    "tooldescription",
    "toolautosubmit",
    "toolparamdescription",
    "name",
    "type",
    "required",
    "min",
    "max",
    "step",
    "minlength",
    "maxlength",
    "pattern",
    "multiple",
    "value",
    "form",
    "id",
];

/// What a call results in when the page gave no `respondWith`.
const SUBMITTED: &str = "The form was submitted.";

/// Calls `obj[method](...args)`.
fn call(obj: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = js::get(obj, method)?
        .dyn_into()
        .map_err(|_| js::type_error(&format!("{method} is not a function")))?;
    f.apply(obj, &args.iter().collect::<Array>())
}

fn attr(el: &JsValue, name: &str) -> Option<String> {
    call(el, "getAttribute", &[JsValue::from_str(name)])
        .ok()
        .and_then(|v| v.as_string())
}

fn has_attr(el: &JsValue, name: &str) -> bool {
    call(el, "hasAttribute", &[JsValue::from_str(name)])
        .map(|v| v.is_truthy())
        .unwrap_or(false)
}

fn prop_string(el: &JsValue, name: &str) -> String {
    js::get(el, name)
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// `collection[0..length]`.
fn items(collection: &JsValue) -> Vec<JsValue> {
    let n = js::get(collection, "length")
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0) as u32;
    (0..n)
        .filter_map(|i| Reflect::get_u32(collection, i).ok())
        .collect()
}

/// A number attribute as a JSON number (integers without a fraction).
fn number_attr(el: &JsValue, name: &str) -> Option<Value> {
    let x: f64 = attr(el, name)?.trim().parse().ok()?;
    if !x.is_finite() {
        return None;
    }
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Some(Value::from(x as i64))
    } else {
        serde_json::Number::from_f64(x).map(Value::Number)
    }
}

/// A control's kind, for the schema and for filling it in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Not a control an agent fills (buttons, files, hidden inputs, fieldsets…).
    Skip,
    Text,
    Number,
    Checkbox,
    Radio,
    Select,
    SelectMultiple,
}

/// The control's kind and its `type`.
fn kind_of(el: &JsValue) -> (Kind, String) {
    let tag = prop_string(el, "tagName").to_ascii_lowercase();
    let ty = prop_string(el, "type").to_ascii_lowercase();
    let kind = match tag.as_str() {
        "textarea" => Kind::Text,
        "select" if ty == "select-multiple" => Kind::SelectMultiple,
        "select" => Kind::Select,
        "input" => match ty.as_str() {
            "submit" | "button" | "reset" | "image" | "file" | "hidden" => Kind::Skip,
            "number" | "range" => Kind::Number,
            "checkbox" => Kind::Checkbox,
            "radio" => Kind::Radio,
            _ => Kind::Text,
        },
        _ => Kind::Skip,
    };
    (kind, ty)
}

/// The named, fillable controls of `form`, in tree order.
fn controls(form: &JsValue) -> Vec<(String, Kind, String, JsValue)> {
    let elements = js::get(form, "elements").unwrap_or(JsValue::UNDEFINED);
    items(&elements)
        .into_iter()
        .filter_map(|el| {
            let name = prop_string(&el, "name");
            let (kind, ty) = kind_of(&el);
            (!name.is_empty() && kind != Kind::Skip).then_some((name, kind, ty, el))
        })
        .collect()
}

/// One property of the synthesized schema, gathered over the controls of that name.
struct Field {
    name: String,
    kind: Kind,
    schema: Map<String, Value>,
    /// Radio and checkbox values.
    values: Vec<String>,
    required: bool,
    description: Option<String>,
}

fn option_values(select: &JsValue) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for o in items(&js::get(select, "options").unwrap_or(JsValue::UNDEFINED)) {
        let v = Value::String(prop_string(&o, "value"));
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The JSON Schema of one control (radios and checkboxes are finished in [`synthesize`]).
fn control_schema(kind: Kind, ty: &str, el: &JsValue) -> Map<String, Value> {
    let mut s = Map::new();
    match kind {
        Kind::Text => {
            s.insert("type".into(), json!("string"));
            match ty {
                "email" => {
                    s.insert("format".into(), json!("email"));
                }
                "url" => {
                    s.insert("format".into(), json!("uri"));
                }
                "date" => {
                    s.insert("format".into(), json!("date"));
                }
                "color" => {
                    s.insert("pattern".into(), json!("^#[0-9a-fA-F]{6}$"));
                }
                _ => {}
            }
            if let Some(n) = number_attr(el, "minlength").filter(|n| n.as_i64() >= Some(0)) {
                s.insert("minLength".into(), n);
            }
            if let Some(n) = number_attr(el, "maxlength").filter(|n| n.as_i64() >= Some(0)) {
                s.insert("maxLength".into(), n);
            }
            if let Some(p) = attr(el, "pattern").filter(|p| !p.is_empty()) {
                s.insert("pattern".into(), json!(format!("^(?:{p})$")));
            }
        }
        Kind::Number => {
            s.insert("type".into(), json!("number"));
            if let Some(n) = number_attr(el, "min") {
                s.insert("minimum".into(), n);
            }
            if let Some(n) = number_attr(el, "max") {
                s.insert("maximum".into(), n);
            }
            if let Some(n) = number_attr(el, "step").filter(|n| n.as_f64() > Some(0.0)) {
                s.insert("multipleOf".into(), n);
            }
        }
        Kind::Select => {
            s.insert("type".into(), json!("string"));
            s.insert("enum".into(), Value::Array(option_values(el)));
        }
        Kind::SelectMultiple => {
            s.insert("type".into(), json!("array"));
            s.insert(
                "items".into(),
                json!({ "type": "string", "enum": option_values(el) }),
            );
        }
        Kind::Checkbox | Kind::Radio | Kind::Skip => {}
    }
    s
}

/// The input schema of `form`: `{ type: 'object', properties, required }`.
pub fn synthesize(form: &JsValue) -> Value {
    let mut fields: Vec<Field> = Vec::new();
    for (name, kind, ty, el) in controls(form) {
        let description = attr(&el, "toolparamdescription").filter(|d| !d.is_empty());
        let required = has_attr(&el, "required");
        let value = prop_string(&el, "value");
        if let Some(f) = fields.iter_mut().find(|f| f.name == name) {
            if f.kind == kind && matches!(kind, Kind::Radio | Kind::Checkbox) {
                if !f.values.contains(&value) {
                    f.values.push(value);
                }
                f.required |= required;
                if f.description.is_none() {
                    f.description = description;
                }
            }
            continue; // other controls of a taken name are not described
        }
        fields.push(Field {
            schema: control_schema(kind, &ty, &el),
            name,
            kind,
            values: vec![value],
            required,
            description,
        });
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in fields {
        let mut s = f.schema;
        match f.kind {
            Kind::Radio => {
                s.insert("type".into(), json!("string"));
                s.insert("enum".into(), json!(f.values));
            }
            Kind::Checkbox if f.values.len() > 1 => {
                s.insert("type".into(), json!("array"));
                s.insert(
                    "items".into(),
                    json!({ "type": "string", "enum": f.values }),
                );
            }
            Kind::Checkbox => {
                s.insert("type".into(), json!("boolean"));
            }
            _ => {}
        }
        if let Some(d) = f.description {
            s.insert("description".into(), Value::String(d));
        }
        if f.required {
            required.push(Value::String(f.name.clone()));
        }
        properties.insert(f.name, Value::Object(s));
    }
    json!({ "type": "object", "properties": properties, "required": required })
}

/// An agent's input for a form tool, coerced as native Chromium fills the controls: a number
/// or boolean for a text-like (string) control becomes its text (`123` → `"123"`), and a
/// numeric string for a number control becomes the number (`"456"` → `456`). Anything else
/// is left for the schema to judge.
pub fn coerce(schema: &Option<Value>, args: Value) -> Value {
    let (Some(props), Value::Object(mut map)) = (
        schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object),
        args.clone(),
    ) else {
        return args;
    };
    for (key, v) in map.iter_mut() {
        let ty = props
            .get(key)
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str);
        let coerced = match (ty, &*v) {
            (Some("string"), Value::Number(_) | Value::Bool(_)) => {
                Some(Value::String(value_text(v)))
            }
            (Some("number"), Value::String(t)) => t
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number),
            _ => None,
        };
        if let Some(c) = coerced {
            *v = c;
        }
    }
    Value::Object(map)
}

/// A JSON value as the text a control takes.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn fire(el: &JsValue, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    if let (Ok(ev), Some(t)) = (
        web_sys::Event::new_with_event_init_dict(kind, &init),
        el.dyn_ref::<web_sys::EventTarget>(),
    ) {
        let _ = t.dispatch_event(&ev);
    }
}

/// Fills `form`'s controls with `args` (members it does not name are left as they are),
/// firing `input` and `change` at each control filled.
fn fill(form: &JsValue, args: &Map<String, Value>) {
    let all = controls(form);
    for (name, kind, _, el) in &all {
        let Some(v) = args.get(name) else { continue };
        let contains = |x: &str| match v {
            Value::Array(a) => a.iter().any(|i| value_text(i) == x),
            other => value_text(other) == x,
        };
        match kind {
            Kind::Checkbox => {
                let group = all
                    .iter()
                    .filter(|(n, k, _, _)| n == name && *k == Kind::Checkbox)
                    .count();
                let checked = if group > 1 || v.is_array() {
                    contains(&prop_string(el, "value"))
                } else {
                    match v {
                        Value::Bool(b) => *b,
                        Value::String(s) => !s.is_empty() && s != "false",
                        Value::Number(n) => n.as_f64() != Some(0.0),
                        Value::Null => false,
                        _ => true,
                    }
                };
                js::set(el, "checked", &JsValue::from_bool(checked));
            }
            Kind::Radio => {
                let checked = value_text(v) == prop_string(el, "value");
                js::set(el, "checked", &JsValue::from_bool(checked));
            }
            Kind::SelectMultiple => {
                for o in items(&js::get(el, "options").unwrap_or(JsValue::UNDEFINED)) {
                    let on = contains(&prop_string(&o, "value"));
                    js::set(&o, "selected", &JsValue::from_bool(on));
                }
            }
            Kind::Text | Kind::Number | Kind::Select => {
                js::set(el, "value", &JsValue::from_str(&value_text(v)));
            }
            Kind::Skip => continue,
        }
        fire(el, "input");
        fire(el, "change");
    }
}

/// One agent call waiting for its form's submission, then for the page's response.
struct Invocation {
    fns: RefCell<Option<(Function, Function)>>,
    /// `respondWith` was called.
    responded: Cell<bool>,
    /// The id of the submit event that claimed it.
    event: Cell<Option<u32>>,
}

impl Invocation {
    fn new() -> (Rc<Invocation>, Promise) {
        let fns = RefCell::new(None);
        let promise = Promise::new(&mut |resolve, reject| {
            *fns.borrow_mut() = Some((resolve, reject));
        });
        let inv = Rc::new(Invocation {
            fns,
            responded: Cell::new(false),
            event: Cell::new(None),
        });
        (inv, promise)
    }

    fn settle(&self, ok: bool, v: &JsValue) {
        let taken = self.fns.borrow_mut().take();
        if let Some((resolve, reject)) = taken {
            let _ = if ok { resolve } else { reject }.call1(&JsValue::UNDEFINED, v);
        }
    }
}

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
    claimed: RefCell<BTreeMap<u32, Rc<Invocation>>>,
    next_event: Cell<u32>,
    /// The capturing `submit` listener at the global and the document's observer: they live
    /// as long as the declarative API (its engine's), and go with it.
    on_submit: RefCell<Option<Listener>>,
    observer: RefCell<Option<Observer>>,
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
        let document = js::get(&inner.global, "document")?;
        if !document.is_object() {
            return Err(js::type_error("the declarative API needs a document"));
        }
        let forms = Rc::new(Forms {
            inner: Rc::downgrade(inner),
            document: document.clone(),
            states: RefCell::new(Vec::new()),
            events: js_sys::WeakMap::new(),
            claimed: RefCell::new(BTreeMap::new()),
            next_event: Cell::new(0),
            on_submit: RefCell::new(None),
            observer: RefCell::new(None),
        });
        // Every submit, before the page's own listeners (capture at the window).
        if inner.global.dyn_ref::<web_sys::EventTarget>().is_some() {
            let f = Rc::downgrade(&forms);
            let listener = Listener::dom_capture(&inner.global, "submit", move |ev, _| {
                if let Some(f) = f.upgrade() {
                    f.on_submit(&ev);
                }
            })?;
            *forms.on_submit.borrow_mut() = Some(listener);
        }
        // The document's changes, a batch at a time.
        let f = Rc::downgrade(&forms);
        let observer_class: Function = js::get(&inner.global, "MutationObserver")?
            .dyn_into()
            .map_err(|_| js::type_error("the declarative API needs MutationObserver"))?;
        let observer = Observer::new(&observer_class, move || {
            if let Some(f) = f.upgrade() {
                f.sync();
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
        *forms.observer.borrow_mut() = Some(observer);
        forms.sync();
        Ok(forms)
    }

    /// Brings the registry in line with the document's `<form toolname>` elements.
    fn sync(self: &Rc<Self>) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let found = call(
            &self.document,
            "querySelectorAll",
            &[JsValue::from_str("form[toolname]")],
        )
        .map(|l| items(&l))
        .unwrap_or_default();
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
            if let Some(inv) = s.pending.take() {
                inv.settle(
                    false,
                    &DomError::Abort("The form was removed from the document.".into()).into_js(),
                );
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
            let signature = format!("{}\n{}\n{}\n{}\n{:?}", d.0, d.1, d.2, d.3, d.4);
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
        let args = match js::to_json(input) {
            Ok(Some(Value::Object(m))) => m,
            _ => Map::new(),
        };
        fill(&state.form, &args);
        let (inv, promise) = Invocation::new();
        if let Some(old) = state.pending.replace(Some(inv.clone())) {
            old.settle(
                false,
                &DomError::Abort("A newer call to this form's tool replaced it.".into()).into_js(),
            );
        }
        // Cancelled: the call fails with the signal's reason.
        if let Ok(signal) =
            js::get(options, "signal").and_then(|s| s.dyn_into::<web_sys::AbortSignal>())
        {
            let st = Rc::downgrade(state);
            let i = inv.clone();
            let s = signal.clone();
            let on_abort = Closure::once_into_js(move || {
                if let Some(st) = st.upgrade() {
                    let mine = matches!(&*st.pending.borrow(), Some(p) if Rc::ptr_eq(p, &i));
                    if mine {
                        st.pending.take();
                    }
                }
                i.settle(false, &s.reason());
            });
            let opts = web_sys::AddEventListenerOptions::new();
            opts.set_once(true);
            let _ = signal.add_event_listener_with_callback_and_add_event_listener_options(
                "abort",
                on_abort.unchecked_ref(),
                &opts,
            );
        }
        // toolautosubmit: submit it now (after this call returns); else the user will.
        if has_attr(&state.form, "toolautosubmit") {
            let me = self.clone();
            let st = state.clone();
            let i = inv.clone();
            wasm_bindgen_futures::spawn_local(async move { me.auto_submit(&st, &i) });
        }
        promise
    }

    fn auto_submit(&self, state: &FormState, inv: &Rc<Invocation>) {
        let waiting = matches!(&*state.pending.borrow(), Some(p) if Rc::ptr_eq(p, inv));
        if !waiting {
            return; // cancelled meanwhile
        }
        let submitted = call(&state.form, "requestSubmit", &[]);
        // requestSubmit() dispatches the submit event synchronously; it did not happen when
        // the form is invalid.
        let still = matches!(&*state.pending.borrow(), Some(p) if Rc::ptr_eq(p, inv));
        if still {
            state.pending.take();
            let why = match submitted {
                Err(e) => js::error_message(&e),
                Ok(_) => invalid_controls(&state.form),
            };
            inv.settle(
                false,
                &DomError::InvalidState(format!("The form was not submitted: {why}")).into_js(),
            );
            return;
        }
        if let Some(id) = inv.event.get() {
            self.finish(id);
        }
    }

    /// A submit event (capture, at the window): if its form has a call waiting, the event
    /// is that call's (`agentInvoked`).
    fn on_submit(self: &Rc<Self>, ev: &JsValue) {
        let target = js::get(ev, "target").unwrap_or(JsValue::UNDEFINED);
        let state = self
            .states
            .borrow()
            .iter()
            .find(|s| s.form == target)
            .cloned();
        let Some(inv) = state.and_then(|s| s.pending.take()) else {
            return;
        };
        let id = self.next_event.get() + 1;
        self.next_event.set(id);
        if let Some(obj) = ev.dyn_ref::<js_sys::Object>() {
            self.events.set(obj, &JsValue::from(id));
        }
        inv.event.set(Some(id));
        self.claimed.borrow_mut().insert(id, inv);
        // After the dispatch: a user's submit is finished in a task.
        if let Some(inner) = self.inner.upgrade() {
            let me = self.clone();
            inner.tasks.queue(move || me.finish(id));
        }
    }

    /// The submit event's dispatch is over: without `respondWith`, the call's result is
    /// that the form was submitted.
    fn finish(&self, id: u32) {
        let inv = self.claimed.borrow_mut().remove(&id);
        if let Some(inv) = inv {
            if !inv.responded.get() {
                inv.settle(true, &JsValue::from_str(SUBMITTED));
            }
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
        if inv.responded.replace(true) {
            return invalid("respondWith() was already called.");
        }
        let settled = wasm_bindgen_futures::JsFuture::from(Promise::resolve(promise));
        wasm_bindgen_futures::spawn_local(async move {
            match settled.await {
                Ok(v) => inv.settle(true, &v),
                Err(e) => inv.settle(false, &e),
            }
        });
        Ok(())
    }
}

/// `name: validationMessage` of each invalid control.
fn invalid_controls(form: &JsValue) -> String {
    let elements = js::get(form, "elements").unwrap_or(JsValue::UNDEFINED);
    let msgs: Vec<String> = items(&elements)
        .into_iter()
        .filter(|el| {
            js::get(el, "validity")
                .and_then(|v| js::get(&v, "valid"))
                .map(|v| v.is_falsy())
                .unwrap_or(false)
        })
        .map(|el| {
            format!(
                "{}: {}",
                prop_string(&el, "name"),
                prop_string(&el, "validationMessage")
            )
        })
        .collect();
    if msgs.is_empty() {
        "the submission did not happen".into()
    } else {
        format!("invalid input ({})", msgs.join("; "))
    }
}

#[wasm_bindgen]
impl Engine {
    /// Starts the declarative API (the installer calls it when the browser has no WebMCP).
    #[wasm_bindgen(js_name = startForms)]
    pub fn start_forms(&self) -> Result<(), JsValue> {
        if self.inner.forms.borrow().is_some() {
            return Ok(());
        }
        let forms = Forms::start(&self.inner)?;
        *self.inner.forms.borrow_mut() = Some(forms);
        Ok(())
    }

    /// `SubmitEvent.prototype.agentInvoked` for `event`.
    #[wasm_bindgen(js_name = formAgentInvoked)]
    pub fn form_agent_invoked(&self, event: JsValue) -> bool {
        let forms = self.inner.forms.borrow();
        forms.as_ref().is_some_and(|f| f.claim_of(&event).is_some())
    }

    /// `SubmitEvent.prototype.respondWith(promise)` for `event`.
    #[wasm_bindgen(js_name = formRespondWith)]
    pub fn form_respond_with(&self, event: JsValue, promise: JsValue) -> Result<(), JsValue> {
        let forms = self.inner.forms.borrow().clone();
        match forms {
            Some(f) => f.respond_with(&event, &promise),
            None => Err(DomError::InvalidState(
                "respondWith() needs a submit event invoked by an agent.".into(),
            )
            .into_js()),
        }
    }
}

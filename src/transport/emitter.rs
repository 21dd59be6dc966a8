//! The seed's simple event emitter (`createSimpleEmitter`): a plain object with
//! `emit(event, data)`, `on(event, handler)`, `off(event, handler)`. The event transport
//! makes one when the page brings no emitter of its own.

use js_sys::Function;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::js;

type Handlers = Rc<RefCell<Vec<(String, Function)>>>;

/// A new emitter. `emit` calls the handlers of `event` in the order they were added, each
/// once (adding a handler twice keeps one), on a copy of the list (handlers may add or
/// remove handlers); what a handler throws is reported and does not stop the others.
pub fn create() -> JsValue {
    let handlers: Handlers = Rc::new(RefCell::new(Vec::new()));
    let obj: JsValue = js::object().into();

    let h = handlers.clone();
    let emit = Closure::<dyn Fn(JsValue, JsValue)>::new(move |event: JsValue, data: JsValue| {
        let event = event.as_string().unwrap_or_default();
        let list: Vec<Function> = h
            .borrow()
            .iter()
            .filter(|(e, _)| *e == event)
            .map(|(_, f)| f.clone())
            .collect();
        for f in list {
            js::invoke(&f, &data);
        }
    });
    let h = handlers.clone();
    let on = Closure::<dyn Fn(JsValue, JsValue)>::new(move |event: JsValue, f: JsValue| {
        let (Some(event), Ok(f)) = (event.as_string(), f.dyn_into::<Function>()) else {
            return;
        };
        let mut list = h.borrow_mut();
        if !list.iter().any(|(e, g)| *e == event && *g == f) {
            list.push((event, f));
        }
    });
    let h = handlers;
    let off = Closure::<dyn Fn(JsValue, JsValue)>::new(move |event: JsValue, f: JsValue| {
        let event = event.as_string().unwrap_or_default();
        h.borrow_mut()
            .retain(|(e, g)| !(*e == event && JsValue::from(g.clone()) == f));
    });
    js::set(&obj, "emit", &emit.into_js_value());
    js::set(&obj, "on", &on.into_js_value());
    js::set(&obj, "off", &off.into_js_value());
    obj
}

//! The frame wire's calls: `executeTool` of another origin's tool (`call`, `cancel`,
//! `call-reply`), running this document's exposed tools for other origins, and what happens to
//! calls when a window goes away. See `super::wire` for the messages and the rules.

use js_sys::Promise;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::super::engine::EngineInner;
use super::super::store::{registered_tool, Door};
use super::link::{self, message, post, take, Known};
use super::policy;
use crate::js;
use crate::js::DomError;

/// How often a pending call checks whether the tool's frame was closed.
const CLOSED_POLL_MS: f64 = 250.0;

/// How this document runs one of its own tools for another document: its `executeTool`
/// (`tool`, `input`, `options`), given by the installer so that this module does not depend
/// on the W3C API's.
pub type Executor = fn(&Rc<EngineInner>, &JsValue, &JsValue, &JsValue) -> Promise;

/// The calls of one document (kept with the engine).
#[derive(Default)]
pub struct Calls {
    executor: Cell<Option<Executor>>,
    /// This document's calls of other origins' tools, waiting for their answers.
    outgoing: RefCell<Vec<Rc<Outgoing>>>,
    /// Calls this document runs for other windows: window, origin, id, the call's controller.
    serving: RefCell<Vec<(JsValue, String, f64, web_sys::AbortController)>>,
}

/// One `executeTool` of another origin's tool, waiting for its answer.
struct Outgoing {
    id: u64,
    window: JsValue,
    origin: String,
    done: js::Deferred,
    poll: RefCell<Option<js::Timer>>,
}

/// Sets how this document runs its tools for other documents.
pub fn set_executor(inner: &EngineInner, executor: Executor) {
    inner.state::<Calls>().executor.set(Some(executor));
}

/// Runs another origin's document's tool `name` with `args`: a promise of its result, or
/// `UnknownError` when `window` is not known to run this polyfill with `origin`.
pub fn call(
    inner: &Rc<EngineInner>,
    window: &JsValue,
    origin: &str,
    name: &str,
    args: &Value,
    signal: Option<web_sys::AbortSignal>,
) -> Result<Promise, DomError> {
    let known = inner.state::<Known>();
    let unknown = || DomError::Unknown(format!("No tool named {name:?} is available."));
    if known.origin_of(window).as_deref() != Some(origin) {
        return Err(unknown());
    }
    let id = known.next();
    let m = message("call", id as f64);
    js::set(&m, "name", &JsValue::from_str(name));
    js::set(&m, "input", &js::from_json(args));
    post(window, origin, &m).map_err(|_| unknown())?;
    let out = Rc::new(Outgoing {
        id,
        window: window.clone(),
        origin: origin.to_string(),
        done: js::Deferred::new(),
        poll: RefCell::new(None),
    });
    // The frame element removed: its window is closed, and nothing will answer.
    let weak = Rc::downgrade(inner);
    let w = window.clone();
    if let Ok(t) = js::Timer::interval(CLOSED_POLL_MS, move || {
        if js::is_closed(&w) {
            if let Some(me) = weak.upgrade() {
                end(&me, id, Err(gone()));
            }
        }
    }) {
        *out.poll.borrow_mut() = Some(t);
    }
    if let Some(sig) = signal {
        let weak = Rc::downgrade(inner);
        let s = sig.clone();
        let (w, o) = (window.clone(), origin.to_string());
        js::on_abort(&sig, move || {
            let _ = post(&w, &o, &message("cancel", id as f64));
            if let Some(me) = weak.upgrade() {
                end(&me, id, Err(s.reason()));
            }
        });
    }
    inner
        .state::<Calls>()
        .outgoing
        .borrow_mut()
        .push(out.clone());
    Ok(out.done.promise().clone())
}

fn gone() -> JsValue {
    DomError::Unknown("The tool's document went away before it answered.".into()).into_js()
}

fn end(inner: &EngineInner, id: u64, outcome: Result<JsValue, JsValue>) {
    if let Some(c) = take(&inner.state::<Calls>().outgoing, |c| c.id == id) {
        c.poll.borrow_mut().take();
        match outcome {
            Ok(v) => c.done.settle(true, &v),
            Err(e) => c.done.settle(false, &e),
        }
    }
}

/// `call-reply`: the answer to an open call, from the tool's window and origin.
pub fn take_reply(inner: &EngineInner, source: &JsValue, origin: &str, id: u64, data: &JsValue) {
    let open = inner
        .state::<Calls>()
        .outgoing
        .borrow()
        .iter()
        .any(|c| c.id == id && c.window == *source && c.origin == origin);
    if !open {
        return;
    }
    let outcome = if js::get(data, "ok").ok() == Some(JsValue::TRUE) {
        // A string, or null (a form whose submission navigated).
        Ok(js::get_string(data, "value").map_or(JsValue::NULL, |t| JsValue::from_str(&t)))
    } else {
        let e = js::get(data, "error").unwrap_or(JsValue::UNDEFINED);
        let text = |k| js::get_string(&e, k).unwrap_or_default();
        Err(DomError::from_name(&text("name"), text("message")).into_js())
    };
    end(inner, id, outcome);
}

/// `cancel`: the caller gave up a call this document runs for it.
pub fn cancel(inner: &EngineInner, source: &JsValue, origin: &str, id: f64) {
    let calls = inner.state::<Calls>();
    let serving = calls.serving.borrow();
    if let Some((.., c)) = serving
        .iter()
        .find(|(w, o, i, _)| w == source && o == origin && *i == id)
    {
        c.abort();
    }
}

/// `window` went away: the calls it was running for this document reject, the calls this
/// document runs for it are aborted.
pub fn window_gone(inner: &EngineInner, window: &JsValue) {
    let calls = inner.state::<Calls>();
    let serving: Vec<_> = calls
        .serving
        .borrow()
        .iter()
        .filter(|(w, ..)| w == window)
        .map(|(.., c)| c.clone())
        .collect();
    for c in serving {
        c.abort();
    }
    let ids: Vec<u64> = calls
        .outgoing
        .borrow()
        .iter()
        .filter(|c| c.window == *window)
        .map(|c| c.id)
        .collect();
    for id in ids {
        end(inner, id, Err(gone()));
    }
}

/// The `call-reply` for `outcome`: the value, or the exception's name and message.
fn reply_message(id: f64, outcome: Result<JsValue, JsValue>) -> JsValue {
    let m = message("call-reply", id);
    match outcome {
        Ok(v) => {
            js::set(&m, "ok", &JsValue::TRUE);
            js::set(&m, "value", &v);
        }
        Err(e) => {
            let err: JsValue = js::object().into();
            let name = js::get_string(&e, "name").unwrap_or_else(|| "UnknownError".into());
            js::set(&err, "name", &JsValue::from_str(&name));
            let text = js::get_string(&e, "message").unwrap_or_else(|| js::error_message(&e));
            js::set(&err, "message", &JsValue::from_str(&text));
            js::set(&m, "ok", &JsValue::FALSE);
            js::set(&m, "error", &err);
        }
    }
    m
}

/// `call`: another origin's document runs one of this document's tools. Refused with
/// `NotAllowedError` while this document lacks the feature, `UnknownError` when there is no
/// such tool exposed to the caller's origin; otherwise run as this document's own
/// `executeTool` would (its checks, its `toolactivated`).
pub fn answer(inner: &Rc<EngineInner>, source: &JsValue, origin: &str, id: f64, data: &JsValue) {
    inner.state::<Known>().remember(source, origin, None);
    let name = js::get_string(data, "name").unwrap_or_default();
    let input = js::get(data, "input").unwrap_or(JsValue::UNDEFINED);
    let (source, origin) = (source.clone(), origin.to_string());
    link::with_policy(inner, move |me, allowed| {
        let reply = |outcome| {
            let _ = post(&source, &origin, &reply_message(id, outcome));
        };
        if !allowed {
            return reply(Err(policy::not_allowed().into_js()));
        }
        // A tool not exposed to the caller's origin (any more) is as unknown to it as one
        // that does not exist (as in Chromium).
        let found = me
            .tool_data(&name)
            .filter(|(_, d)| d.door == Door::WebMcp && d.exposed_to.contains(&origin));
        let calls = me.state::<Calls>();
        let (Some((tool, _)), Some(execute)) = (found, calls.executor.get()) else {
            let e = DomError::Unknown(format!("No tool named {name:?} is available."));
            return reply(Err(e.into_js()));
        };
        let Ok(controller) = web_sys::AbortController::new() else {
            return;
        };
        let options: JsValue = js::object().into();
        js::set(&options, "signal", &controller.signal());
        let run = execute(me, &registered_tool(me, &tool), &input, &options);
        calls
            .serving
            .borrow_mut()
            .push((source.clone(), origin.clone(), id, controller));
        let me = me.clone();
        js::spawn(async move {
            let outcome = JsFuture::from(run).await;
            me.state::<Calls>()
                .serving
                .borrow_mut()
                .retain(|(w, o, i, _)| !(*w == source && *o == origin && *i == id));
            let _ = post(&source, &origin, &reply_message(id, outcome));
        });
    });
}

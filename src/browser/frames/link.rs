//! What the frame wire's parts share ([`super::wire`], [`super::listing`], [`super::calls`]):
//! the message format, posting with an exact origin, the windows of the tree known to run this
//! polyfill, and running a step once this document's `tools` policy is known.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::super::engine::EngineInner;
use super::policy::{self, Policy};
use crate::js;

/// The member naming a frame-wire message's kind.
pub const KEY: &str = "modelcontextPolyfillFrames";

/// The windows of the tree known to run this polyfill (kept with the engine,
/// [`EngineInner::state`]), and the ids of this document's questions.
#[derive(Default)]
pub struct Known {
    next_id: Cell<u64>,
    /// Each window with the origin it spoke from and the names of this document's tools
    /// exposed to that origin when it last heard of them.
    windows: RefCell<Vec<(JsValue, String, Vec<String>)>>,
}

impl Known {
    /// A fresh id for a question of this document.
    pub fn next(&self) -> u64 {
        let n = self.next_id.get() + 1;
        self.next_id.set(n);
        n
    }

    /// The origin `window` spoke from, if it is known.
    pub fn origin_of(&self, window: &JsValue) -> Option<String> {
        self.windows
            .borrow()
            .iter()
            .find(|(w, ..)| w == window)
            .map(|(_, o, _)| o.clone())
    }

    /// `window` runs this polyfill and spoke from `origin`; `names`, when given, are the
    /// tools exposed to it that it was just told of.
    pub fn remember(&self, window: &JsValue, origin: &str, names: Option<Vec<String>>) {
        let mut known = self.windows.borrow_mut();
        match known.iter_mut().find(|(w, ..)| w == window) {
            Some(entry) => {
                if entry.1 != origin {
                    *entry = (window.clone(), origin.to_string(), Vec::new());
                }
                if let Some(names) = names {
                    entry.2 = names;
                }
            }
            None => {
                // A window new to this document: the frames removed since are let go first.
                retain_open(&mut known);
                known.push((window.clone(), origin.to_string(), names.unwrap_or_default()))
            }
        }
    }

    /// Whether no window is known.
    pub fn is_empty(&self) -> bool {
        self.windows.borrow().is_empty()
    }

    /// `window` went away.
    pub fn forget(&self, window: &JsValue) {
        self.windows.borrow_mut().retain(|(w, ..)| w != window);
    }

    /// Every known window with its origin (those closed since are forgotten).
    pub fn all(&self) -> Vec<(JsValue, String)> {
        let mut known = self.windows.borrow_mut();
        retain_open(&mut known);
        known
            .iter()
            .map(|(w, o, _)| (w.clone(), o.clone()))
            .collect()
    }

    /// Replaces each known window's names with `now(origin)`; returns the windows whose
    /// names changed.
    pub fn update(&self, now: impl Fn(&str) -> Vec<String>) -> Vec<(JsValue, String)> {
        let mut changed = Vec::new();
        let mut known = self.windows.borrow_mut();
        retain_open(&mut known);
        for (w, o, names) in known.iter_mut() {
            let fresh = now(o);
            if fresh != *names {
                *names = fresh;
                changed.push((w.clone(), o.clone()));
            }
        }
        changed
    }
}

/// Forgets the windows that are closed: their frame element was removed, and the `gone` such a
/// frame posts as it goes is refused here, since a window no longer in this frame tree has no
/// `top` ([`in_tree`]). A removed frame never speaks again, and its window (a proxy, once the
/// document is gone) would otherwise be kept with its origin for this document's life.
fn retain_open(known: &mut Vec<(JsValue, String, Vec<String>)>) {
    known.retain(|(w, ..)| !js::is_closed(w));
}

/// A message of `kind` with `id`.
pub fn message(kind: &str, id: f64) -> JsValue {
    let m = notice(kind);
    js::set(&m, "id", &JsValue::from_f64(id));
    m
}

/// A notice of `kind` (no id).
pub fn notice(kind: &str) -> JsValue {
    let m: JsValue = js::object().into();
    js::set(&m, KEY, &JsValue::from_str(kind));
    m
}

/// `window.postMessage(msg, origin)`: exact origins only.
pub fn post(window: &JsValue, origin: &str, msg: &JsValue) -> Result<JsValue, JsValue> {
    js::call(window, "postMessage", &[msg, &JsValue::from_str(origin)])
}

fn top_of(w: &JsValue) -> JsValue {
    js::get(w, "top").unwrap_or(JsValue::NULL)
}

/// Whether `source` is another window of this document's frame tree.
pub fn in_tree(inner: &EngineInner, source: &JsValue) -> bool {
    source.is_object() && *source != *inner.global() && {
        let top = top_of(source);
        !top.is_null() && top == top_of(inner.global())
    }
}

/// Whether `w` is a window whose document this one cannot reach (another origin).
pub fn cross_origin(w: &JsValue) -> bool {
    js::get(w, "origin").is_err()
}

/// Runs `f` with whether this document has the `tools` feature, now or once known.
pub fn with_policy(inner: &Rc<EngineInner>, f: impl FnOnce(&Rc<EngineInner>, bool) + 'static) {
    match policy::policy(inner) {
        Policy::Allowed => f(inner, true),
        Policy::Denied(_) => f(inner, false),
        Policy::Wait(p) => wait_for_policy(inner.clone(), p, Box::new(f)),
    }
}

/// What [`with_policy`] runs once the policy is known.
type WithPolicy = Box<dyn FnOnce(&Rc<EngineInner>, bool)>;

/// The wait of [`with_policy`], compiled once for every caller.
fn wait_for_policy(me: Rc<EngineInner>, answer: js_sys::Promise, f: WithPolicy) {
    js::spawn(async move {
        let answer = JsFuture::from(answer).await;
        f(&me, answer.ok() == Some(JsValue::TRUE));
    });
}

/// Removes and returns the first entry of `list` that `pred` picks.
pub fn take<T>(list: &RefCell<Vec<Rc<T>>>, pred: impl Fn(&T) -> bool) -> Option<Rc<T>> {
    let mut list = list.borrow_mut();
    let i = list.iter().position(|x| pred(x))?;
    Some(list.remove(i))
}

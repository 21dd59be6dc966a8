//! The frame wire: this polyfill's instances in documents of different origins of one frame
//! tree, talking over `postMessage`. It carries the cross-origin half of WebMCP's frames:
//! a frame's `tools` policy as its embedder grants it, the tools a document exposed to
//! another origin (`registerTool(tool, { exposedTo })`, listed by `getTools({ fromOrigins })`),
//! calls of such tools, and their changes.
//!
//! This file starts the wire in a document, takes every incoming message through the checks
//! below and hands it to its part: the policy question here, listings to [`super::listing`],
//! calls to [`super::calls`] (their shared helpers: [`super::link`]).
//!
//! Every message is an object whose member [`KEY`] names its kind:
//!
//! | kind | from → to | members | carries tool data |
//! |---|---|---|---|
//! | `policy` | frame → its embedder | `id`, `since` (the frame's `performance.timeOrigin`) | no |
//! | `policy-reply` | embedder → frame | `id`, `allowed` | no |
//! | `list` | lister → window of a `fromOrigins` origin | `id` | no |
//! | `list-reply` | → lister | `id`, `tools` (only those exposed to the lister's origin) | yes |
//! | `call` | caller → the tool's window | `id`, `name`, `input` | yes |
//! | `cancel` | caller → the tool's window | `id` | no |
//! | `call-reply` | → caller | `id`, `ok`, `value` or `error: { name, message }` | yes |
//! | `changed` | → every instance it knows | (the tools exposed to its origin changed) | no |
//! | `hello` | embedder → each of its frames, when its wire starts | | no |
//! | `gone` | → every instance it knows (`pagehide`) | | no |
//!
//! Security rules: every message is posted with an exact target origin, never `'*'`: a reply
//! goes to `event.origin` of what it answers; a question goes to an origin the asker was
//! given (`fromOrigins`, the tool's `origin`, or the origin a window answered from before).
//! The two exceptions carry no data: a frame's `policy` question where the browser does not
//! give the embedder's origin, and an embedder's `hello` (a frame's origin is not readable).
//! Nothing is answered to a window outside this frame tree or of an opaque origin; a tool is
//! listed and run only for an origin in its `exposedTo`, and only while this document has the
//! `tools` feature.
//!
//! Check order of an incoming message: (1) an object with a string [`KEY`] member (anything
//! else is another script's message, left alone); (2) its source is another window of this
//! frame tree; (3) its origin is not opaque; (4) what the kind needs: a reply must answer an
//! open question of this document, from the window and origin it was asked of.
//!
//! The policy exchange (`policy`, `policy-reply`, `hello`) is part of a document's start, and
//! handled at once, as is `gone`. What carries tools (`changed`, listings, calls) is handled by
//! code of the core's deferred module (`make split-list` keeps a frame's start, not its tools'
//! messages: a page without frames running the polyfill never needs them), so while that module
//! is on its way such a message waits for it in the gate of the agents' messages ([`held`], in
//! the order it came with theirs); when it could not be had a listing is answered with no
//! tools (the document cannot list them), and anything else is dropped: no call can follow
//! a listing it never answered. (A document has no listing or call of its own open before
//! its deferred module has arrived, so a held message from a window that has gone, or whose
//! next document has asked its policy since, finds nothing to answer but a listing, whose
//! answer that window drops: its id is not one it asked.)
//!
//! Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-gettools>
//! (digest: `shared/spec/WEBMCP.md`, "Frames, origins and policy").

use js_sys::Reflect;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::super::engine::EngineInner;
use super::link::{self, cross_origin, in_tree, message, notice, post, Known, KEY};
use super::policy::{self, EmbedderAnswer, Policy};
use super::{calls, listing};
use crate::js;
use crate::transport::held;

/// How long a frame waits for its embedder's policy answer before taking the feature as
/// allowed (the embedder does not run this polyfill, or not yet: its `hello` makes the frame
/// ask again, and the answer then replaces the one taken).
const POLICY_WAIT_MS: f64 = 1000.0;

/// The wire's listeners in one document, and its open question to the embedder (kept with
/// the engine).
#[derive(Default)]
struct Wire {
    /// The `message` and `pagehide` listeners.
    listeners: RefCell<Vec<js::Listener>>,
    /// The id of the question to the embedder (a late answer still counts) and the timer
    /// ending the wait for it.
    asked: RefCell<Option<(u64, js::Timer)>>,
    /// Whether the wait ended without an answer (the feature taken as allowed until one comes).
    unanswered: std::cell::Cell<bool>,
}

/// Starts the wire in this document: listens for messages, says `gone` on `pagehide`, says
/// `hello` to the frames already in it (a frame whose polyfill started first asked a question
/// nothing heard), and, in a frame whose embedder is cross-origin, asks the embedder for the
/// `tools` policy.
pub fn attach(inner: &Rc<EngineInner>) {
    let global = inner.global().clone();
    if !js::get(&global, "document").is_ok_and(|d| d.is_object()) {
        return; // workers are not part of a frame tree
    }
    let wire = inner.state::<Wire>();
    let weak = Rc::downgrade(inner);
    // Gated on `on_message`'s first check: data carrying the wire's key as a string.
    let gate = js::MessageGate {
        source: None,
        fields: &[(KEY, None)],
    };
    if let Ok(l) = js::Listener::message(&global, gate, move |ev: JsValue, _| {
        if let Some(me) = weak.upgrade() {
            on_message(&me, &ev);
        }
    }) {
        wire.listeners.borrow_mut().push(l);
    }
    let weak = Rc::downgrade(inner);
    if let Ok(l) = js::Listener::dom(&global, "pagehide", move |_, _| {
        if let Some(me) = weak.upgrade() {
            say_gone(&me);
        }
    }) {
        wire.listeners.borrow_mut().push(l);
    }
    say_hello(inner);
    let parent = js::get(&global, "parent").unwrap_or(JsValue::NULL);
    let embedded = parent.is_object() && parent != global;
    let cross_embedder = embedded
        && !js::get(&global, "frameElement").is_ok_and(|e| e.is_object())
        && cross_origin(&parent);
    if cross_embedder {
        ask_policy(inner, &wire, &parent);
    }
}

/// Asks the embedder for this document's policy. The embedder's origin is not readable from
/// inside the frame; `location.ancestorOrigins` gives it where the browser has it, else the
/// question (which carries no data) goes to any origin and the answer is taken only from the
/// parent window.
fn ask_policy(inner: &Rc<EngineInner>, wire: &Wire, parent: &JsValue) {
    let id = inner.state::<Known>().next();
    let ancestor = js::get(inner.global(), "location")
        .and_then(|l| js::get(&l, "ancestorOrigins"))
        .ok()
        .filter(|a| a.is_object())
        .and_then(|a| Reflect::get_u32(&a, 0).ok())
        .and_then(|o| o.as_string());
    let target = ancestor.unwrap_or_else(|| "*".into());
    let question = message("policy", id as f64);
    js::set(&question, "since", &JsValue::from_f64(time_origin(inner)));
    if post(parent, &target, &question).is_err() {
        return;
    }
    let weak = Rc::downgrade(inner);
    let timer = js::Timer::timeout(POLICY_WAIT_MS, move || {
        if let Some(me) = weak.upgrade() {
            let wire = me.state::<Wire>();
            if wire.asked.borrow_mut().take().is_some() {
                wire.unanswered.set(true);
                me.state::<EmbedderAnswer>().settle(true);
            }
        }
    });
    if let Ok(timer) = timer {
        inner.state::<EmbedderAnswer>().expect();
        *wire.asked.borrow_mut() = Some((id, timer));
    }
}

fn on_message(inner: &Rc<EngineInner>, ev: &JsValue) {
    // (1) A frame-wire message.
    let data = js::get(ev, "data").unwrap_or(JsValue::UNDEFINED);
    if !data.is_object() {
        return;
    }
    let Some(kind) = js::get_string(&data, KEY) else {
        return;
    };
    // (2) From another window of this frame tree; (3) of an origin that is not opaque.
    let source = js::get(ev, "source").unwrap_or(JsValue::NULL);
    if !in_tree(inner, &source) {
        return;
    }
    let origin = js::event_origin(ev);
    if origin.is_empty() || origin == "null" {
        return;
    }
    let id = js::get(&data, "id").ok().and_then(|i| i.as_f64());
    // (4) By kind: the policy exchange and `gone` now, what carries tools once the deferred
    // module has arrived (see the module's documentation).
    match (kind.as_str(), id) {
        ("policy", Some(id)) => answer_policy(inner, &source, &origin, id, &data),
        ("policy-reply", Some(id)) => take_policy_reply(inner, &source, &origin, id, &data),
        ("hello", None) => on_hello(inner, &source),
        ("gone", None) => on_gone(inner, &source),
        // (A listing this document cannot make, its deferred module not to be had, is
        // answered with no tools at once, rather than left to the asker's timer.)
        ("list", Some(id)) => {
            let me = inner.clone();
            let (to, at) = (source.clone(), origin.clone());
            held::hold(
                move || listing::answer(&me, &source, &origin, id),
                move |_| listing::answer_none(&to, &at, id),
            );
        }
        ("changed", None) | ("list-reply" | "call" | "cancel" | "call-reply", Some(_)) => {
            let me = inner.clone();
            held::after_deferred(move || on_tools_message(&me, &kind, id, &source, &origin, &data));
        }
        _ => {}
    }
}

/// A message that carries tools (of the deferred module): its part.
fn on_tools_message(
    inner: &Rc<EngineInner>,
    kind: &str,
    id: Option<f64>,
    source: &JsValue,
    origin: &str,
    data: &JsValue,
) {
    match (kind, id) {
        ("changed", _) => on_changed(inner),
        ("list-reply", Some(id)) => listing::take_reply(inner, source, origin, id as u64, data),
        ("call", Some(id)) => calls::answer(inner, source, origin, id, data),
        ("cancel", Some(id)) => calls::cancel(inner, source, origin, id),
        ("call-reply", Some(id)) => calls::take_reply(inner, source, origin, id as u64, data),
        _ => {}
    }
}

/// `policy`: a frame of this document asks what its `allow` attribute grants it. A frame
/// that asks after this document's tools changed, though its own document was there before
/// (`since`: it was loading its polyfill meanwhile), hears `changed` after the answer when
/// tools are exposed to it, so a `toolchange` listener its page added then is not left out.
fn answer_policy(inner: &Rc<EngineInner>, source: &JsValue, origin: &str, id: f64, data: &JsValue) {
    let Some(el) = frame_element_of(inner, source) else {
        return; // not a frame of this document
    };
    inner.state::<Known>().remember(source, origin, None);
    let admits = policy::element_admits(&el, origin, inner.origin());
    let since = js::get(data, "since").ok().and_then(|s| s.as_f64());
    let changed = inner.state::<ToolsChangedAt>().0.get();
    let missed = matches!((since, changed), (Some(t), Some(at)) if time_origin(inner) + at > t);
    let (source, origin) = (source.clone(), origin.to_string());
    link::with_policy(inner, move |me, allowed| {
        let m = message("policy-reply", id);
        js::set(&m, "allowed", &JsValue::from_bool(allowed && admits));
        let _ = post(&source, &origin, &m);
        if missed {
            listing::tools_changed(me);
        }
    });
}

/// When this document's tools last changed, on its own clock ([`js::now_ms`]; `None`:
/// never). A frame's question compares it, moved onto the epoch by [`time_origin`], with
/// the frame's own `timeOrigin`.
#[derive(Default)]
pub struct ToolsChangedAt(pub std::cell::Cell<Option<f64>>);

impl ToolsChangedAt {
    /// Now.
    pub fn mark(&self) {
        self.0.set(Some(js::now_ms()));
    }
}

/// This document's `performance.timeOrigin` (ms since the epoch), where [`js::now_ms`]
/// counts from; 0 without `performance` (`now_ms` is then `Date.now()`).
fn time_origin(inner: &EngineInner) -> f64 {
    js::get(inner.global(), "performance")
        .and_then(|p| js::get(&p, "timeOrigin"))
        .ok()
        .and_then(|t| t.as_f64())
        .unwrap_or(0.0)
}

/// `policy-reply`: the embedder's answer to this document's question.
fn take_policy_reply(inner: &EngineInner, source: &JsValue, origin: &str, id: f64, data: &JsValue) {
    let parent = js::get(inner.global(), "parent").unwrap_or(JsValue::NULL);
    let wire = inner.state::<Wire>();
    let asked = wire.asked.borrow().as_ref().map(|(i, _)| *i);
    if *source != parent || asked.is_some_and(|i| i as f64 != id) {
        return;
    }
    wire.asked.borrow_mut().take();
    wire.unanswered.set(false);
    inner.state::<Known>().remember(source, origin, None);
    let allowed = js::get(data, "allowed").ok() == Some(JsValue::TRUE);
    inner.state::<EmbedderAnswer>().settle(allowed);
}

/// The frame elements (`<iframe>`, `<frame>`, `<object>`) of this document.
fn frame_elements(inner: &EngineInner) -> Vec<JsValue> {
    js::get(inner.global(), "document")
        .and_then(|doc| {
            js::call(
                &doc,
                "querySelectorAll",
                &[&JsValue::from_str("iframe, frame, object")],
            )
        })
        .map(|all| js::items(&all))
        .unwrap_or_default()
}

/// The frame element of this document showing `window`.
fn frame_element_of(inner: &EngineInner, window: &JsValue) -> Option<JsValue> {
    frame_elements(inner)
        .into_iter()
        .find(|el| js::get(el, "contentWindow").ok().as_ref() == Some(window))
}

/// `changed`: the tools another document exposes to this one changed (`toolchange` here,
/// unless this document lacks the feature).
fn on_changed(inner: &Rc<EngineInner>) {
    if !matches!(policy::policy(inner), Policy::Denied(_)) {
        inner.tools_changed();
    }
}

/// `gone`: that document goes away; its calls from here reject, its calls here abort (the
/// calls' part is the deferred module's: no call is open before it has arrived).
fn on_gone(inner: &Rc<EngineInner>, source: &JsValue) {
    inner.state::<Known>().forget(source);
    let (me, source) = (inner.clone(), source.clone());
    held::after_deferred(move || calls::window_gone(&me, &source));
}

/// `hello` to every frame of this document (see [`attach`]). The frames' origins are not
/// readable here, so it goes to any origin; it carries nothing.
fn say_hello(inner: &EngineInner) {
    let m = notice("hello");
    for el in frame_elements(inner) {
        if let Ok(w) = js::get(&el, "contentWindow") {
            if w.is_object() {
                let _ = post(&w, "*", &m);
            }
        }
    }
}

/// `hello` from this frame's embedder: a question it may not have heard is asked again (one
/// still open, or one whose wait ended without an answer: the policy then waits for the
/// answer again, since an embedder that says `hello` answers).
fn on_hello(inner: &Rc<EngineInner>, source: &JsValue) {
    let parent = js::get(inner.global(), "parent").unwrap_or(JsValue::NULL);
    let wire = inner.state::<Wire>();
    if *source != parent || !(wire.asked.borrow().is_some() || wire.unanswered.get()) {
        return;
    }
    if wire.unanswered.replace(false) {
        inner.state::<EmbedderAnswer>().reopen();
    }
    ask_policy(inner, &wire, &parent);
}

/// `pagehide`: every instance this document knows hears `gone`.
fn say_gone(inner: &EngineInner) {
    let m = notice("gone");
    for (w, o) in inner.state::<Known>().all() {
        let _ = post(&w, &o, &m);
    }
}

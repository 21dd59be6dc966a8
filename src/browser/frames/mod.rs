//! The frame tree (WebMCP "Frames, origins and policy", digest `shared/spec/WEBMCP.md`):
//! every same-origin document of the tree that runs this polyfill sees the others' tools in
//! `getTools()`, calls them with `executeTool()` (the tool runs in its own document, which
//! fires `toolactivated`), and hears `toolchange` when another document's tools change.
//!
//! Each document has its own engine (its own wasm instance); they find each other through the
//! frame tree (`top`, `frames`) and talk through two methods the front puts on
//! `ModelContext.prototype` under `Symbol.for` keys, which every realm of the agent shares.
//!
//! Documents of other origins run their own polyfill too: they reach each other over the
//! frame wire (`wire`), `postMessage` with exact origins, for what crosses origins — a tool
//! registered with `exposedTo` is listed by `getTools({ fromOrigins })` in documents of those
//! origins and runs in its own document when they call it; a frame's `tools` permissions
//! policy ([`mod@policy`]) comes from the `allow` attributes above it, read directly where the
//! embedder is same-origin and answered over the wire by a cross-origin embedder.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | the frame tree; same-origin documents' tools listed, called and announced |
//! | `policy.rs` | the `tools` permissions policy of a document |
//! | `wire.rs` | the frame wire between documents of different origins: its messages, rules and checks |
//! | `listing.rs` | the wire's listings: other origins' exposed tools, and their changes |
//! | `calls.rs` | the wire's calls of other origins' tools |
//! | `link.rs` | what the wire's parts share: the message format, the known windows |
//!
//! Not built: a frame detached or navigated away takes its tools out of the others' lists,
//! but same-origin documents hear no `toolchange` for it (native Chromium neither).
//!
//! Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-gettools>.

use js_sys::{Array, Function, Reflect};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Engine, EngineInner};
use super::store::registered_tool;
use crate::js;
use crate::server::ListKind;

pub mod calls;
mod link;
pub mod listing;
pub mod policy;
mod wire;

pub use link::with_policy;
pub use policy::{check_policy, policy, Policy};

/// The front's method listing a document's own tools (`RegisteredTool` dictionaries).
const LOCAL_TOOLS: &str = "modelcontext-polyfill.localTools";
/// The front's method telling a document that another document's tools changed.
const PEER_CHANGED: &str = "modelcontext-polyfill.peerToolsChanged";

/// The method `key` of `obj`, if it is a function.
pub(super) fn method(obj: &JsValue, key: &str) -> Option<Function> {
    Reflect::get(obj, &js_sys::Symbol::for_(key).into())
        .ok()?
        .dyn_into()
        .ok()
}

/// Every window of the frame tree `global` belongs to, `top` first, depth-first (reading
/// `top`, `frames` and `length` is allowed across origins).
pub(super) fn frame_tree(global: &JsValue) -> Vec<JsValue> {
    let Ok(top) = js::get(global, "top") else {
        return Vec::new();
    };
    if top.is_null() || top.is_undefined() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut stack = vec![top];
    while let Some(w) = stack.pop() {
        stack.extend(js::items(&w).into_iter().rev().filter(|c| c.is_object()));
        out.push(w);
    }
    out
}

/// The polyfill's `ModelContext` in window `w`, when `w` is another same-origin document
/// of the tree that runs this polyfill (a cross-origin window's `navigator` cannot be read).
fn peer_context(inner: &EngineInner, w: &JsValue) -> Option<JsValue> {
    if *w == *inner.global() {
        return None;
    }
    let nav = js::get(w, "navigator").ok().filter(|n| n.is_object())?;
    let mc = js::get(&nav, "modelContext")
        .ok()
        .filter(|m| m.is_object())?;
    method(&mc, LOCAL_TOOLS).map(|_| mc)
}

/// The `ModelContext` objects of the other same-origin documents of the tree.
fn peers(inner: &EngineInner) -> Vec<JsValue> {
    frame_tree(inner.global())
        .iter()
        .filter_map(|w| peer_context(inner, w))
        .collect()
}

/// The lists of the other same-origin documents' own tools, as their documents give them: an
/// array, or a promise of one while that document's core waits for the module that lists them
/// ([`pending`]; the front's `localTools`).
pub fn peer_lists(inner: &EngineInner) -> Vec<JsValue> {
    peers(inner)
        .into_iter()
        .filter_map(|mc| method(&mc, LOCAL_TOOLS).and_then(|f| f.call0(&mc).ok()))
        .filter(|l| l.is_object())
        .collect()
}

/// Whether a document's list ([`peer_lists`]) is a promise of it (of that document's realm:
/// known by its `then`).
pub fn pending(list: &JsValue) -> bool {
    js::get(list, "then").is_ok_and(|t| t.is_function())
}

/// The `ModelContext` of `window`, when it is another same-origin document of the tree that
/// runs this polyfill: a tool of that window runs there.
pub fn peer_for(inner: &EngineInner, window: &JsValue) -> Option<JsValue> {
    frame_tree(inner.global())
        .iter()
        .find(|w| **w == *window)
        .and_then(|w| peer_context(inner, w))
}

/// From now on, a change to this document's tools fires `toolchange` in the other same-origin
/// documents of the tree too (their view of the tools changed).
///
/// `execute` runs this document's tools for documents of other origins (its `executeTool`).
pub fn attach(inner: &Rc<EngineInner>, execute: calls::Executor) {
    calls::set_executor(inner, execute);
    wire::attach(inner);
    let weak = Rc::downgrade(inner);
    inner.server().observe(move |kind| {
        let Some(me) = weak.upgrade() else {
            return;
        };
        if kind == ListKind::Tools {
            me.state::<wire::ToolsChangedAt>().mark();
            listing::tools_changed(&me);
            // The other same-origin documents hear in the task that fires `toolchange` here,
            // right after it (the engine queued it first), so every document of the tree has
            // heard before anything queued later runs, such as the resolution of the
            // `registerTool` promise that made the change (the spec's "notify documents of a
            // tool change" example); a task each document queued for itself would not be
            // ordered with this document's. A document alone in its tree (most pages) adds
            // nothing to the task.
            let peers = peers(&me);
            if !peers.is_empty() {
                me.queue_after_last(move || {
                    for mc in peers {
                        if let Some(f) = method(&mc, PEER_CHANGED) {
                            let _ = f.call0(&mc);
                        }
                    }
                });
            }
        }
    });
}

#[wasm_bindgen]
impl Engine {
    /// This document's own tools as `RegisteredTool` dictionaries (for the other documents of
    /// the frame tree; the front exposes it under `Symbol.for("modelcontext-polyfill.localTools")`).
    #[wasm_bindgen(js_name = localTools)]
    pub fn local_tools(&self) -> Array {
        self.inner
            .server()
            .tools()
            .iter()
            .map(|t| registered_tool(&self.inner, t))
            .collect()
    }

    /// This document's `tools` policy for a same-origin document below it: `true`, `false`,
    /// or a promise of one (the front exposes it under
    /// `Symbol.for("modelcontext-polyfill.policy")`).
    #[wasm_bindgen(js_name = policyValue)]
    pub fn policy_value(&self) -> JsValue {
        policy::policy_value(&self.inner)
    }

    /// Another document's tools changed: fires `toolchange` here, now (the other document
    /// calls this from the task it queued for the change).
    #[wasm_bindgen(js_name = peerToolsChanged)]
    pub fn peer_tools_changed(&self) {
        self.inner.fire_tools_changed();
    }
}

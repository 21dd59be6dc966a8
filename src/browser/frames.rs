//! The frame tree (WebMCP "Frames, origins and policy", digest `shared/spec/WEBMCP.md`):
//! every same-origin document of the tree that runs this polyfill sees the others' tools in
//! `getTools()`, calls them with `executeTool()` (the tool runs in its own document, which
//! fires `toolactivated`), and hears `toolchange` when another document's tools change.
//!
//! Each document has its own engine (its own wasm instance); they find each other through the
//! frame tree (`top`, `frames`) and talk through two methods the front puts on
//! `ModelContext.prototype` under `Symbol.for` keys, which every realm of the agent shares.
//!
//! The `tools` permissions policy is read where a document can read it: the `allow`
//! attributes of the same-origin frame elements above it ([`check_policy`]).
//!
//! Not built yet (the cross-origin half): `exposedTo`, `getTools({ fromOrigins })` listing
//! cross-origin frames' tools, and the policy of a cross-origin frame (its embedder's `allow`
//! cannot be read from inside it, and a browser without WebMCP does not know the feature); a
//! detached frame's tools leave the others' lists, but without a `toolchange`.
//!
//! Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-gettools>.

use js_sys::{Array, Function, Reflect};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Engine, EngineInner};
use super::store::registered_tool;
use crate::js;
use crate::js::DomError;
use crate::server::ListKind;

/// The front's method listing a document's own tools (`RegisteredTool` dictionaries).
const LOCAL_TOOLS: &str = "modelcontext-polyfill.localTools";
/// The front's method telling a document that another document's tools changed.
const PEER_CHANGED: &str = "modelcontext-polyfill.peerToolsChanged";

/// The method `key` of `obj`, if it is a function.
fn method(obj: &JsValue, key: &str) -> Option<Function> {
    Reflect::get(obj, &js_sys::Symbol::for_(key).into())
        .ok()?
        .dyn_into()
        .ok()
}

/// Every window of the frame tree `global` belongs to, `top` first, depth-first (reading
/// `top`, `frames` and `length` is allowed across origins).
fn frame_tree(global: &JsValue) -> Vec<JsValue> {
    let Ok(top) = js::get(global, "top") else {
        return Vec::new();
    };
    if top.is_null() || top.is_undefined() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut stack = vec![top];
    while let Some(w) = stack.pop() {
        let n = js::get(&w, "length")
            .ok()
            .and_then(|l| l.as_f64())
            .unwrap_or(0.0) as u32;
        for i in (0..n).rev() {
            if let Ok(child) = Reflect::get_u32(&w, i) {
                if child.is_object() {
                    stack.push(child);
                }
            }
        }
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

/// The tools of the other same-origin documents of the tree, as their documents list them.
pub fn peer_tools(inner: &EngineInner) -> Vec<JsValue> {
    let mut out = Vec::new();
    for mc in peers(inner) {
        let listed = method(&mc, LOCAL_TOOLS).and_then(|f| f.call0(&mc).ok());
        if let Some(list) = listed.filter(|l| l.is_object()) {
            out.extend(Array::from(&list).iter());
        }
    }
    out
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
pub fn attach(inner: &Rc<EngineInner>) {
    let weak = Rc::downgrade(inner);
    inner.server().observe(move |kind| {
        let Some(me) = weak.upgrade() else {
            return;
        };
        if kind == ListKind::Tools {
            for mc in peers(&me) {
                if let Some(f) = method(&mc, PEER_CHANGED) {
                    let _ = f.call0(&mc);
                }
            }
        }
    });
}

/// Whether the allowlist of a `tools` directive in an `allow` attribute (`allow="tools"`,
/// `allow="tools 'none'"`, `allow="tools 'self' https://a.example"` …) admits a document of
/// `origin` in the frame, whose element's `src` has origin `src` and whose embedder has origin
/// `embedder` (Permissions Policy, "allow attribute": no allowlist means `'src'`).
fn allowlist_admits(list: &str, origin: &str, src: &str, embedder: &str) -> bool {
    let mut items = list.split_ascii_whitespace().peekable();
    if items.peek().is_none() {
        return origin == src;
    }
    items.any(|item| match item {
        "*" => true,
        "'none'" => false,
        "'self'" => origin == embedder,
        "'src'" => origin == src,
        o => o.trim_end_matches('/') == origin,
    })
}

/// The `tools` directive of an `allow` attribute (`"camera; tools 'none'"` → `Some("'none'")`).
fn tools_directive(allow: &str) -> Option<&str> {
    allow.split(';').map(str::trim).find_map(|d| {
        let rest = d.strip_prefix("tools")?;
        (rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_whitespace())).then_some(rest)
    })
}

/// The `tools` permissions policy, as far as this document can read it: each same-origin
/// frame element above it whose `allow` has a `tools` directive must admit its document
/// (`NotAllowedError` otherwise). Frames without a directive inherit (the feature's default
/// allowlist is `'self'`: same-origin frames are allowed).
///
/// Spec: digest `shared/spec/WEBMCP.md`, "Permissions policy `tools`".
pub fn check_policy(inner: &EngineInner) -> Result<(), DomError> {
    let mut window = inner.global().clone();
    loop {
        // `frameElement` is null at the top and when the embedder is cross-origin.
        let Some(el) = js::get(&window, "frameElement")
            .ok()
            .filter(|e| e.is_object())
        else {
            return Ok(());
        };
        let origin = js::get(&window, "origin")
            .ok()
            .and_then(|o| o.as_string())
            .unwrap_or_default();
        let embedder_window = js::get(&window, "parent").unwrap_or(JsValue::NULL);
        let embedder = js::get(&embedder_window, "origin")
            .ok()
            .and_then(|o| o.as_string())
            .unwrap_or_default();
        let allow = js::call(&el, "getAttribute", &[&JsValue::from_str("allow")])
            .ok()
            .and_then(|a| a.as_string())
            .unwrap_or_default();
        if let Some(list) = tools_directive(&allow) {
            let src = js::get(&el, "src")
                .ok()
                .and_then(|s| s.as_string())
                .and_then(|s| web_sys::Url::new(&s).ok())
                .map(|u| u.origin())
                .unwrap_or_default();
            if !allowlist_admits(list, &origin, &src, &embedder) {
                return Err(DomError::NotAllowed(
                    "This document is not allowed the 'tools' feature (the frame's allow attribute)."
                        .into(),
                ));
            }
        }
        window = embedder_window;
    }
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

    /// Another document's tools changed: fires `toolchange` here.
    #[wasm_bindgen(js_name = peerToolsChanged)]
    pub fn peer_tools_changed(&self) {
        self.inner.tools_changed();
    }
}

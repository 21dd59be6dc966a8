//! The `tools` permissions policy of a document, as far as the polyfill can know it.
//!
//! Permissions Policy gives the `tools` feature the default allowlist `'self'`: the top-level
//! document has it; a frame has it when its embedder has it and either the frame is
//! same-origin with the embedder (and the frame element's `allow` does not take it away) or
//! the element's `allow` attribute grants it to the frame's origin (`allow="tools"`,
//! `allow="tools https://a.example"`).
//!
//! A document reads the `allow` attributes of the same-origin frame elements above it
//! directly. Where an embedder is cross-origin, its `allow` attribute cannot be read from
//! inside the frame (and a browser without WebMCP does not know the feature, so
//! `document.featurePolicy` cannot say): the frame asks its embedder's polyfill over the
//! frame wire (`super::wire`), which reads the attribute and answers. Until that answer
//! comes, the methods that need the policy wait; if no answer comes (the embedder does not
//! run this polyfill), the feature is taken as allowed, as no document of the tree could
//! then enforce it (`tests/page/NATIVE_DIFFERENCES.md`).
//!
//! Spec: <https://w3c.github.io/webappsec-permissions-policy/#algo-define-inherited-policy-in-container>
//! (digest: `shared/spec/WEBMCP.md`, "Permissions policy `tools`").

use js_sys::Promise;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

use super::super::engine::EngineInner;
use super::method;
use crate::js;
use crate::js::DomError;

/// The front's method giving a document's policy to a same-origin document below it:
/// `true`, `false`, or a promise of one while the document waits for its embedder.
pub(super) const POLICY: &str = "modelcontext-polyfill.policy";

/// What a document knows of its `tools` policy.
pub enum Policy {
    /// The document has the feature.
    Allowed,
    /// The document does not have the feature (`NotAllowedError`).
    Denied(DomError),
    /// The answer depends on a cross-origin embedder that has not answered yet: a promise
    /// of a boolean.
    Wait(Promise),
}

/// The `NotAllowedError` of a denied policy.
pub fn not_allowed() -> DomError {
    DomError::NotAllowed(
        "This document is not allowed the 'tools' feature (the allow attribute of its frame)."
            .into(),
    )
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

/// What the frame element `el` (in a document of origin `embedder`) grants a document of
/// `origin` in it, when the embedder has the feature: the `tools` directive of its `allow`
/// attribute, or without one the default allowlist `'self'` (same-origin only).
pub(super) fn element_admits(el: &JsValue, origin: &str, embedder: &str) -> bool {
    let allow = js::call(el, "getAttribute", &[&JsValue::from_str("allow")])
        .ok()
        .and_then(|a| a.as_string())
        .unwrap_or_default();
    match tools_directive(&allow) {
        Some(list) => allowlist_admits(list, origin, &declared_origin(el, embedder), embedder),
        None => origin == embedder,
    }
}

/// The frame element's declared origin, which `'src'` (and an allowlist of no origins) in its
/// `allow` attribute names: the embedder's for a `srcdoc` frame and one without a `src`, else
/// the origin of its `src`.
///
/// Spec: <https://w3c.github.io/webappsec-permissions-policy/#declared-origin>. Its first step
/// (a sandboxed frame's declared origin is opaque) needs no code here: a document of a sandbox
/// without `allow-same-origin` has an opaque origin, which equals no declared origin.
fn declared_origin(el: &JsValue, embedder: &str) -> String {
    let has = |name: &str| {
        js::call(el, "hasAttribute", &[&JsValue::from_str(name)]).is_ok_and(|v| v.is_truthy())
    };
    if has("srcdoc") {
        return embedder.to_string();
    }
    // (The IDL attribute is the content attribute parsed against the document's base URL.)
    let src = has("src")
        .then(|| js::get_string(el, "src"))
        .flatten()
        .and_then(|s| web_sys::Url::new(&s).ok());
    match src {
        Some(url) => url.origin(),
        None => embedder.to_string(),
    }
}

/// The policy of this document: the `allow` attributes of the same-origin frame elements
/// above it, then, at a cross-origin embedder, what that embedder answered (this document's
/// own question, `super::wire`) or what the topmost same-origin ancestor knows (asked
/// through its front).
pub fn policy(inner: &EngineInner) -> Policy {
    if inner.state::<TopLevel>().is(inner) {
        return Policy::Allowed; // the top-level document has the feature
    }
    let mut window = inner.global().clone();
    loop {
        // `frameElement` is null at the top and when the embedder is cross-origin.
        let Some(el) = js::get(&window, "frameElement")
            .ok()
            .filter(|e| e.is_object())
        else {
            break;
        };
        let embedder_window = js::get(&window, "parent").unwrap_or(JsValue::NULL);
        if !element_admits(
            &el,
            &js::get_string(&window, "origin").unwrap_or_default(),
            &js::get_string(&embedder_window, "origin").unwrap_or_default(),
        ) {
            return Policy::Denied(not_allowed());
        }
        window = embedder_window;
    }
    let parent = js::get(&window, "parent").unwrap_or(JsValue::NULL);
    if parent.is_null() || parent.is_undefined() || parent == window {
        return Policy::Allowed; // the top-level document
    }
    // A cross-origin embedder above `window`.
    if window == *inner.global() {
        return inner.state::<EmbedderAnswer>().policy();
    }
    let answer = js::get(&window, "navigator")
        .and_then(|n| js::get(&n, "modelContext"))
        .ok()
        .filter(|m| m.is_object())
        .and_then(|mc| method(&mc, POLICY).and_then(|f| f.call0(&mc).ok()));
    match answer {
        // A promise of that document's realm (not an instance of this realm's `Promise`):
        // taken by its `then`.
        Some(v) if js::is_thenable(&v) => Policy::Wait(Promise::resolve(&v)),
        Some(v) if v == JsValue::FALSE => Policy::Denied(not_allowed()),
        // That document does not run the polyfill, or has the feature.
        _ => Policy::Allowed,
    }
}

/// This document's policy as its cross-origin embedder answered it (kept with the engine;
/// the frame wire asks the question and gives the answer).
#[derive(Default)]
pub struct EmbedderAnswer {
    allowed: Cell<Option<bool>>,
    /// While the question is open: the promise of the answer.
    waiting: RefCell<Option<js::Deferred>>,
}

impl EmbedderAnswer {
    /// The question was asked: until [`EmbedderAnswer::settle`], the policy is a promise.
    pub fn expect(&self) {
        let mut waiting = self.waiting.borrow_mut();
        // Asked again while waiting: whoever waits keeps the same promise.
        if self.allowed.get().is_none() && waiting.is_none() {
            *waiting = Some(js::Deferred::new());
        }
    }

    /// The question is asked again after a wait that ended unanswered: the policy is a
    /// promise again until the answer (or the end of the new wait).
    pub fn reopen(&self) {
        self.allowed.set(None);
        self.expect();
    }

    /// The answer (a late one replaces the one taken when the wait ended).
    pub fn settle(&self, allowed: bool) {
        self.allowed.set(Some(allowed));
        if let Some(d) = self.waiting.take() {
            d.settle(true, &JsValue::from_bool(allowed));
        }
    }

    fn policy(&self) -> Policy {
        match self.allowed.get() {
            Some(true) => Policy::Allowed,
            Some(false) => Policy::Denied(not_allowed()),
            None => match self.waiting.borrow().as_ref() {
                Some(d) => Policy::Wait(d.promise().clone()),
                // Not asked: no embedder that could answer.
                None => Policy::Allowed,
            },
        }
    }
}

/// Whether this document's window is a top-level one (`parent` is the window itself). A
/// top-level browsing context never becomes a nested one, so a `true` is kept: the policy,
/// asked at least twice per `executeTool`, then costs no call into JS. A nested window's
/// answer is never kept (once detached its `parent` is null, and it is asked afresh).
#[derive(Default)]
struct TopLevel(Cell<bool>);

impl TopLevel {
    fn is(&self, inner: &EngineInner) -> bool {
        if !self.0.get() {
            let global = inner.global();
            let top = js::field(global, "parent").is_ok_and(|p| p == *global);
            self.0.set(top);
        }
        self.0.get()
    }
}

/// [`policy`] without waiting: `Err` only when the feature is known to be denied.
pub fn check_policy(inner: &EngineInner) -> Result<(), DomError> {
    match policy(inner) {
        Policy::Denied(e) => Err(e),
        Policy::Allowed | Policy::Wait(_) => Ok(()),
    }
}

/// The policy as the front hands it to same-origin documents below: `true`, `false`, or a
/// promise of one.
pub fn policy_value(inner: &EngineInner) -> JsValue {
    match policy(inner) {
        Policy::Allowed => JsValue::TRUE,
        Policy::Denied(_) => JsValue::FALSE,
        Policy::Wait(p) => p.into(),
    }
}

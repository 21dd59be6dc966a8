//! The W3C WebMCP API: `registerTool`, `getTools`, `executeTool`, step by step as
//! `shared/spec/WEBMCP.md` and `webmcp.idl` give them. Where the digest is silent, native
//! Chromium's behaviour is followed (see `tests/page/NATIVE_DIFFERENCES.md`).
//!
//! `execute.rs` holds `executeTool`; this file the other two methods and what all three share.

use js_sys::{Array, Promise};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Engine, EngineInner};
use super::store::{
    check_dictionary, check_document, check_name_and_description, Dictionary, read_tool_dict, registered_tool,
    serialize_input_schema, store_tool, unregister_if_current, Door,
};
use crate::js;
use crate::js::DomError;

mod execute;
pub(crate) use execute::{execute, use_registered_tool};
use execute::{execute_by_name, execute_tool};

/// `ModelContextRegisterToolOptions` after WebIDL conversion.
struct RegisterOptions {
    exposed_to: Option<Vec<String>>,
    signal: Option<web_sys::AbortSignal>,
}

/// Reads the `signal` member of an options dictionary.
fn read_signal(options: &Dictionary, method: &str) -> Result<Option<web_sys::AbortSignal>, JsValue> {
    match options.get("signal")? {
        v if v.is_undefined() => Ok(None),
        v => js::abort_signal(v).map(Some).ok_or_else(|| {
            js::type_error(&format!(
                "Failed to execute '{method}' on 'ModelContext': member signal is not of type 'AbortSignal'."
            ))
        }),
    }
}

/// WebIDL `sequence<USVString>`: `None` when absent.
fn read_strings(v: &JsValue, what: &str) -> Result<Option<Vec<String>>, JsValue> {
    if v.is_undefined() {
        return Ok(None);
    }
    if !v.is_object() {
        return Err(js::type_error(&format!(
            "The '{what}' member is not iterable."
        )));
    }
    let arr = Array::from(v);
    arr.iter()
        .map(|x| js::to_dom_string(&x))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// WebIDL conversion of `ModelContextRegisterToolOptions` (exposedTo, then signal).
fn read_register_options(options: &JsValue) -> Result<RegisterOptions, JsValue> {
    let options = Dictionary::new(
        options,
        "Failed to execute 'registerTool' on 'ModelContext': parameter 2",
    )?;
    Ok(RegisterOptions {
        exposed_to: read_strings(&options.get("exposedTo")?, "exposedTo")?,
        signal: read_signal(&options, "registerTool")?,
    })
}

/// Whether an origin's scheme and host make it potentially trustworthy (Secure Contexts
/// §3.1): `https`/`wss`, loopback hosts, `localhost` names, and (as Chromium has it) `file`.
fn trustworthy_origin(origin: &str) -> bool {
    let Ok(url) = web_sys::Url::new(origin) else {
        return false;
    };
    let host = url.hostname();
    matches!(url.protocol().as_str(), "https:" | "wss:" | "file:")
        || host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "[::1]"
}

/// `entry` parses as a URL whose origin is potentially trustworthy; `Some(origin)` then.
/// Opaque origins (`data:`, `about:`) are not; a `blob:` URL has its inner URL's origin.
fn trustworthy_url_origin(entry: &str) -> Option<String> {
    let url = web_sys::Url::new(entry).ok()?;
    if url.protocol() == "file:" {
        return Some("file://".into());
    }
    let origin = url.origin();
    (origin != "null" && trustworthy_origin(&origin)).then_some(origin)
}

fn security_error(member: &str, entry: &str) -> DomError {
    DomError::Security(format!(
        "{member} entry {entry:?} is not a URL with a potentially trustworthy origin."
    ))
}

/// `registerTool(tool, options)`. Once the tool is stored, `record` gets its `name` and
/// `registration` id (and, with a signal, the promise's `reject`), which the engine's
/// shared functions read ([`RegistrationFns`]).
///
/// Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-registertool> (digest: `shared/spec/WEBMCP.md`,
/// "registerTool"); the numbered steps below are the spec's.
fn register_tool(
    inner: &Rc<EngineInner>,
    tool: &JsValue,
    options: &JsValue,
    record: &JsValue,
) -> Result<Promise, JsValue> {
    // WebIDL conversions: the tool dictionary, then the options dictionary.
    let mut dict = read_tool_dict(tool)?;
    let options = read_register_options(options)?;
    // Step 1: the document must be fully active (and origin-keyed).
    check_document(inner)?;
    super::frames::check_policy(inner)?;
    // Steps 2–4: the name and the description.
    check_name_and_description(inner, &dict)?;
    // Step 5: serialize the input schema (beyond the spec: a Standard Schema as the JSON
    // Schema it gives, store.rs).
    let schema_json = serialize_input_schema(&mut dict)?;
    // Step 6: an already-aborted signal rejects with its reason.
    if let Some(sig) = &options.signal {
        if sig.aborted() {
            return Err(sig.reason());
        }
    }
    // Step 7: every exposedTo entry must be a URL with a potentially trustworthy origin;
    // the tool keeps their origins (the frame wire, frames/listing.rs and frames/calls.rs, lists and runs it for them).
    let mut exposed_to = Vec::new();
    for entry in options.exposed_to.iter().flatten() {
        match trustworthy_url_origin(entry) {
            Some(origin) => exposed_to.push(origin),
            None => return Err(security_error("exposedTo", entry).into_js()),
        }
    }
    // Step 8: store the tool (the registry queues `toolchange`), then resolve after it.
    let name = JsValue::from_str(&dict.name);
    let registration = store_tool(inner, dict, schema_json, Door::WebMcp, exposed_to)?;
    js::set(record, "name", &name);
    js::set(record, "registration", &JsValue::from_f64(registration as f64));
    let done = js::Deferred::new();
    // Step 6, later: an abort unregisters the tool and rejects a still-pending promise.
    if let Some(sig) = options.signal {
        if let Some(reject) = done.rejector() {
            js::set(record, "reject", &reject);
        }
        let fns = RegistrationFns::of(inner);
        let listener = fns.on_abort(inner).bind1(&JsValue::UNDEFINED, record);
        js::once_on_abort(&sig, listener.unchecked_ref());
    }
    let d = done.clone();
    // At the end of the task that fires `toolchange` here and in the other same-origin
    // documents (frames/mod.rs): after every one of them, in one task instead of two.
    inner.queue_after_last(move || d.settle(true, &JsValue::UNDEFINED));
    Ok(done.promise().clone())
}

/// The engine's functions that each registration binds to its record (a JS object with the
/// tool's `name`, its `registration` id and, with a signal, the promise's `reject`), each
/// made on first use: so a registration keeps nothing of its own in wasm memory for them.
/// (A closure per registration held some 100 bytes there for the draft `unregister`, until
/// the page's garbage collector freed the promise, and 150 for a signal, for as long as the
/// page kept the signal.)
#[derive(Default)]
struct RegistrationFns {
    /// `registerTool(tool).unregister()` ([`with_draft_unregister`]).
    unregister: std::cell::OnceCell<js_sys::Function>,
    /// The `abort` listener of a registration's signal.
    abort: std::cell::OnceCell<js_sys::Function>,
}

impl RegistrationFns {
    fn of(inner: &EngineInner) -> Rc<RegistrationFns> {
        inner.state::<RegistrationFns>()
    }

    /// `unregister(record)`: a deprecation warning, then the recorded registration removed.
    fn unregister(&self, inner: &Rc<EngineInner>) -> &js_sys::Function {
        self.unregister.get_or_init(|| {
            let me = Rc::downgrade(inner);
            Closure::<dyn Fn(JsValue)>::new(move |record: JsValue| {
                js::warn_once(
                    "unregister",
                    "modelcontext-polyfill: registerTool(tool).unregister() is deprecated (earlier WebMCP drafts); \
                     pass an AbortSignal to registerTool() and abort it instead.",
                );
                unregister_recorded(&me, &record);
            })
            .into_js_value()
            .unchecked_into()
        })
    }

    /// `on_abort(record, event)`: registerTool's step 6, later: the recorded registration
    /// removed, then its promise rejected with the signal's reason if it is still pending.
    fn on_abort(&self, inner: &Rc<EngineInner>) -> &js_sys::Function {
        self.abort.get_or_init(|| {
            let me = Rc::downgrade(inner);
            Closure::<dyn Fn(JsValue, web_sys::Event)>::new(
                move |record: JsValue, event: web_sys::Event| {
                    unregister_recorded(&me, &record);
                    let reason = (event.target())
                        .and_then(|t| js::abort_signal(t.into()))
                        .map_or(JsValue::UNDEFINED, |signal| signal.reason());
                    let reject = js::get(&record, "reject").map(|r| r.dyn_into::<js_sys::Function>());
                    if let Ok(Ok(reject)) = reject {
                        let _ = reject.call1(&JsValue::UNDEFINED, &reason);
                    }
                },
            )
            .into_js_value()
            .unchecked_into()
        })
    }
}

/// Removes the tool `record` names, if that registration is still the current one.
fn unregister_recorded(inner: &std::rc::Weak<EngineInner>, record: &JsValue) {
    let name = js::get(record, "name").ok().and_then(|n| n.as_string());
    let registration = js::get(record, "registration")
        .ok()
        .and_then(|r| r.as_f64());
    if let (Some(me), Some(name), Some(registration)) = (inner.upgrade(), name, registration) {
        unregister_if_current(&me, &name, registration as u64);
    }
}

/// Earlier drafts (and libraries built on them) let `registerTool(tool)`'s return value
/// `unregister()` the tool. The promise gets a non-enumerable `unregister` that removes
/// this very registration (a no-op when registration failed), with a deprecation warning:
/// the engine's one function for it, bound to the registration's `record`.
fn with_draft_unregister(inner: &Rc<EngineInner>, promise: Promise, record: &JsValue) -> Promise {
    let fns = RegistrationFns::of(inner);
    let unregister = fns.unregister(inner).bind1(&JsValue::UNDEFINED, record);
    js::define_hidden(&promise, "unregister", &unregister);
    promise
}

/// `getTools(options)`.
///
/// Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-gettools> (digest: "getTools", "Frames, origins and policy").
fn get_tools(inner: &Rc<EngineInner>, options: &JsValue) -> Result<Promise, JsValue> {
    // WebIDL conversion of ModelContextGetToolOptions.
    check_dictionary(
        options,
        "Failed to execute 'getTools' on 'ModelContext': parameter 1",
    )?;
    let from = read_strings(&js::get(options, "fromOrigins")?, "fromOrigins")?;
    check_document(inner)?;
    super::frames::check_policy(inner)?;
    // Each fromOrigins entry must be a URL with a potentially trustworthy origin (as
    // Chromium checks it). The list adds the tools of other frames of those origins (those
    // exposed to this document's origin) to the same-origin ones (WEBMCP.md, "Frames,
    // origins and policy"); this document's own tools are always listed.
    let mut origins = Vec::new();
    for entry in from.iter().flatten() {
        origins.push(
            trustworthy_url_origin(entry).ok_or_else(|| security_error("fromOrigins", entry))?,
        );
    }
    // The other same-origin documents' own tools, read now: a document whose core waits for the
    // module that lists them answers with a promise of them (beyond the spec: the polyfill's
    // core loads in two parts, polyfill/src/deferred.js).
    let peers = super::frames::peer_lists(inner);
    // Tools of frames of other origins that exposed them to this one (frames/listing.rs):
    // asked first, listed with the rest once they answered.
    let remote = super::frames::listing::list(inner, &origins);
    if remote.is_none() && !peers.iter().any(super::frames::pending) {
        return Ok(Promise::resolve(&local_and_peer_tools(inner, peers, Vec::new())));
    }
    let me = inner.clone();
    let done = js::Deferred::new();
    let d = done.clone();
    js::spawn(async move {
        let remote = match remote {
            Some(remote) => wasm_bindgen_futures::JsFuture::from(remote)
                .await
                .map(|r| Array::from(&r).to_vec())
                .unwrap_or_default(),
            None => Vec::new(),
        };
        // (A document whose core failed lists nothing.)
        let mut lists = Vec::with_capacity(peers.len());
        for list in peers {
            if super::frames::pending(&list) {
                let settled = wasm_bindgen_futures::JsFuture::from(Promise::resolve(&list)).await;
                lists.extend(settled.ok().filter(|l| l.is_object()));
            } else {
                lists.push(list);
            }
        }
        d.settle(true, &local_and_peer_tools(&me, lists, remote));
    });
    Ok(done.promise().clone())
}

/// The tools of this document and of the other same-origin documents of the frame tree
/// (`peers`: their lists, super::frames), as fresh dictionaries of this realm, with `more`
/// (other origins' tools), sorted by name.
fn local_and_peer_tools(inner: &EngineInner, peers: Vec<JsValue>, more: Vec<JsValue>) -> JsValue {
    let mut tools: Vec<(String, JsValue)> = inner
        .server()
        .tools()
        .iter()
        .map(|t| (t.def.name.clone(), registered_tool(inner, t)))
        .collect();
    let peer_tools = (peers.iter())
        .flat_map(|l| Array::from(l).to_vec())
        .map(|t| super::store::adopt_registered_tool(&t));
    for t in peer_tools.chain(more) {
        let name = js::get_string(&t, "name").unwrap_or_default();
        tools.push((name, t));
    }
    crate::collections::sort_by(&mut tools, |a, b| a.0.cmp(&b.0));
    let out: Array = tools.into_iter().map(|(_, t)| t).collect();
    out.into()
}

/// Runs `f` now, or, while this document waits for its cross-origin embedder's answer on
/// the `tools` policy (super::frames::policy), once it came: the methods then take their
/// steps in the order they were called, with the policy known.
pub(super) fn after_policy(
    inner: &Rc<EngineInner>,
    f: impl FnOnce() -> Promise + 'static,
) -> Promise {
    let super::frames::Policy::Wait(answer) = super::frames::policy(inner) else {
        return f();
    };
    // The wait, once for every caller (not instantiated per closure).
    wait_then(answer, Box::new(f))
}

fn wait_then(answer: Promise, f: Box<dyn FnOnce() -> Promise>) -> Promise {
    let done = js::Deferred::new();
    let d = done.clone();
    js::spawn(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(answer).await;
        match wasm_bindgen_futures::JsFuture::from(f()).await {
            Ok(v) => d.settle(true, &v),
            Err(e) => d.settle(false, &e),
        }
    });
    done.promise().clone()
}

/// `executeTool` of this document's tool `name` with `input` (`modelContextTesting`'s,
/// whose input is JSON text), once the policy is known.
pub(crate) fn execute_named(inner: &Rc<EngineInner>, name: String, input: serde_json::Value) -> Promise {
    let me = inner.clone();
    after_policy(inner, move || reject_on_error(execute_by_name(&me, name, input)))
}

fn reject_on_error(r: Result<Promise, JsValue>) -> Promise {
    r.unwrap_or_else(|e| Promise::reject(&e))
}

#[wasm_bindgen]
impl Engine {
    /// W3C `registerTool(tool, options)`.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, tool: JsValue, options: JsValue) -> Promise {
        let me = self.inner.clone();
        let record: JsValue = js::object().into();
        let r = record.clone();
        let promise = after_policy(&self.inner, move || {
            match register_tool(&me, &tool, &options, &r) {
                Ok(promise) => promise,
                Err(e) => Promise::reject(&e),
            }
        });
        with_draft_unregister(&self.inner, promise, &record)
    }

    /// W3C `getTools(options)`.
    #[wasm_bindgen(js_name = getTools)]
    pub fn get_tools(&self, options: JsValue) -> Promise {
        let me = self.inner.clone();
        after_policy(&self.inner, move || {
            reject_on_error(get_tools(&me, &options))
        })
    }

    /// W3C `executeTool(tool, inputObject, options)`.
    #[wasm_bindgen(js_name = executeTool)]
    pub fn execute_tool(&self, tool: JsValue, input: JsValue, options: JsValue) -> Promise {
        let me = self.inner.clone();
        after_policy(&self.inner, move || {
            reject_on_error(execute_tool(&me, &tool, &input, &options))
        })
    }
}

//! The W3C WebMCP API: `registerTool`, `getTools`, `executeTool`, step by step as
//! `shared/spec/WEBMCP.md` and `webmcp.idl` give them. Where the digest is silent, native
//! Chromium's behaviour is followed (see `tests/page/NATIVE_DIFFERENCES.md`).

use js_sys::{Array, Promise};
use serde_json::{Map, Value};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Engine, EngineInner};
use super::js_handler::{call_options, settled};
use super::store::{
    check_dictionary, check_document, check_input, check_name_and_description, read_tool_dict,
    registered_tool, required, serialize_input_schema, store_tool, unregister_if_current, Door,
};
use crate::js;
use crate::js::DomError;
use crate::server::{CancellationToken, RequestContext};

/// `ModelContextRegisterToolOptions` after WebIDL conversion.
struct RegisterOptions {
    exposed_to: Option<Vec<String>>,
    signal: Option<web_sys::AbortSignal>,
}

/// Reads the `signal` member of an options dictionary.
fn read_signal(options: &JsValue, method: &str) -> Result<Option<web_sys::AbortSignal>, JsValue> {
    match js::get(options, "signal")? {
        v if v.is_undefined() => Ok(None),
        v => v.dyn_into::<web_sys::AbortSignal>().map(Some).map_err(|_| {
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
    check_dictionary(
        options,
        "Failed to execute 'registerTool' on 'ModelContext': parameter 2",
    )?;
    Ok(RegisterOptions {
        exposed_to: read_strings(&js::get(options, "exposedTo")?, "exposedTo")?,
        signal: read_signal(options, "registerTool")?,
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

/// `registerTool(tool, options)`; also returns the tool's name and registration id.
///
/// Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-registertool> (digest: `shared/spec/WEBMCP.md`,
/// "registerTool"); the numbered steps below are the spec's.
fn register_tool(
    inner: &Rc<EngineInner>,
    tool: &JsValue,
    options: &JsValue,
) -> Result<(Promise, String, u64), JsValue> {
    // WebIDL conversions: the tool dictionary, then the options dictionary.
    let dict = read_tool_dict(tool)?;
    let options = read_register_options(options)?;
    // Step 1: the document must be fully active (and origin-keyed).
    check_document(inner)?;
    super::frames::check_policy(inner)?;
    // Steps 2–4: the name and the description.
    check_name_and_description(inner, &dict)?;
    // Step 5: serialize the input schema.
    let schema_json = serialize_input_schema(&dict.input_schema)?;
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
    // Step 8: store the tool (the registry queues `toolchange`), then resolve in a task
    // queued after it.
    let name = dict.name.clone();
    let registration = store_tool(inner, dict, schema_json, Door::WebMcp, exposed_to)?;
    let done = js::Deferred::new();
    // Step 6, later: an abort unregisters the tool and rejects a still-pending promise.
    if let Some(sig) = options.signal {
        let me = inner.clone();
        let d = done.clone();
        let s = sig.clone();
        let n = name.clone();
        js::on_abort(&sig, move || {
            unregister_if_current(&me, &n, registration);
            d.settle(false, &s.reason());
        });
    }
    let d = done.clone();
    inner.queue(move || d.settle(true, &JsValue::UNDEFINED));
    Ok((done.promise().clone(), name, registration))
}

/// Earlier drafts (and libraries built on them) let `registerTool(tool)`'s return value
/// `unregister()` the tool. The promise gets a non-enumerable `unregister` that removes
/// this very registration (a no-op when registration failed), with a deprecation warning.
fn with_draft_unregister(
    inner: &Rc<EngineInner>,
    promise: Promise,
    registered: Rc<std::cell::RefCell<Option<(String, u64)>>>,
) -> Promise {
    let me = Rc::downgrade(inner);
    let unregister = Closure::<dyn Fn()>::new(move || {
        js::warn_once(
            "unregister",
            "modelcontext-polyfill: registerTool(tool).unregister() is deprecated (earlier WebMCP drafts); \
             pass an AbortSignal to registerTool() and abort it instead.",
        );
        let registered = registered.borrow().clone();
        if let (Some(me), Some((name, registration))) = (me.upgrade(), registered) {
            unregister_if_current(&me, &name, registration);
        }
    });
    js::define_hidden(&promise, "unregister", &unregister.into_js_value());
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
    // Tools of frames of other origins that exposed them to this one (frames/listing.rs):
    // asked first, listed with the rest once they answered.
    match super::frames::listing::list(inner, &origins) {
        None => Ok(Promise::resolve(&local_and_peer_tools(inner, Vec::new()))),
        Some(remote) => {
            let me = inner.clone();
            let done = js::Deferred::new();
            let d = done.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let remote = wasm_bindgen_futures::JsFuture::from(remote)
                    .await
                    .map(|r| Array::from(&r).to_vec())
                    .unwrap_or_default();
                d.settle(true, &local_and_peer_tools(&me, remote));
            });
            Ok(done.promise().clone())
        }
    }
}

/// The tools of this document and of the other same-origin documents of the frame tree
/// (super::frames), as fresh dictionaries, with `more` (other origins' tools), sorted by name.
fn local_and_peer_tools(inner: &EngineInner, more: Vec<JsValue>) -> JsValue {
    let mut tools: Vec<(String, JsValue)> = inner
        .server()
        .tools()
        .iter()
        .map(|t| (t.def.name.clone(), registered_tool(inner, t)))
        .collect();
    for t in super::frames::peer_tools(inner).into_iter().chain(more) {
        let name = js::get_string(&t, "name").unwrap_or_default();
        tools.push((name, t));
    }
    crate::collections::sort_by(&mut tools, |a, b| a.0.cmp(&b.0));
    let out: Array = tools.into_iter().map(|(_, t)| t).collect();
    out.into()
}

/// Serializes an `execute` result the way `executeTool` reports it: strings as they are,
/// other primitives by string conversion (`undefined` → `"undefined"`, `10n` → `"10"`, as
/// Chromium does), objects with `JSON.stringify`; what cannot be serialized (a function,
/// a symbol, a cycle) is an `UnknownError`.
fn serialize_result(name: &str, v: &JsValue) -> Result<String, DomError> {
    if let Some(s) = v.as_string() {
        return Ok(s);
    }
    let failed = |why: String| {
        DomError::Unknown(format!(
            "The result of tool {name:?} cannot be serialized: {why}"
        ))
    };
    if !v.is_object() && !v.is_function() {
        return js::to_dom_string(v).map_err(|e| failed(js::error_message(&e)));
    }
    match js::stringify(v) {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(failed("JSON.stringify gives undefined".into())),
        Err(e) => Err(failed(js::error_message(&e))),
    }
}

/// WebIDL conversion of `RegisteredTool` (members in lexicographic order); returns the
/// name, origin and window.
fn read_registered_tool(tool: &JsValue) -> Result<(String, String, JsValue), JsValue> {
    check_dictionary(
        tool,
        "Failed to execute 'executeTool' on 'ModelContext': parameter 1",
    )?;
    let d = "RegisteredTool";
    js::to_dom_string(&required(tool, "description", d)?)?;
    let name = js::to_dom_string(&required(tool, "name", d)?)?;
    let origin = js::to_dom_string(&required(tool, "origin", d)?)?;
    let window = required(tool, "window", d)?;
    if !js::is_window(&window) {
        return Err(js::type_error(
            "Failed to read the 'window' property from 'RegisteredTool': The provided value is not of type 'Window'.",
        ));
    }
    Ok((name, origin, window))
}

/// The `inputObject` argument as JSON: an object (absent means `{}`), handed over as a JSON
/// copy. Chromium ≤ 154 took the input as a JSON string (`executeTool(tool, inputJson)`), and
/// pages written for it still pass one: such a string is parsed (it must hold an object or an
/// array, as an object input may be), with a one-time deprecation warning.
fn read_input(input: &JsValue) -> Result<Value, JsValue> {
    let not_object = || {
        js::type_error(
            "Failed to execute 'executeTool' on 'ModelContext': the input is not an object.",
        )
    };
    if input.is_undefined() {
        return Ok(Value::Object(Map::new()));
    }
    if let Some(text) = input.as_string() {
        js::warn_once(
            "executeTool-json",
            "modelcontext-polyfill: executeTool(tool, inputJsonString) is deprecated (Chromium 154 and earlier); \
             pass the input as an object.",
        );
        return match serde_json::from_str::<Value>(&text) {
            Ok(v @ (Value::Object(_) | Value::Array(_))) => Ok(v),
            Ok(_) => Err(not_object()),
            Err(e) => Err(js::type_error(&format!(
                "Failed to execute 'executeTool' on 'ModelContext': the input string is not JSON ({e})."
            ))),
        };
    }
    if !input.is_object() {
        return Err(not_object());
    }
    js::to_json(input)?.ok_or_else(|| {
        js::type_error(
            "Failed to execute 'executeTool' on 'ModelContext': the input cannot be serialized to JSON.",
        )
    })
}

/// One `executeTool` call in flight.
struct Execution {
    inner: Rc<EngineInner>,
    name: String,
    done: js::Deferred,
    /// Aborts the signal handed to `execute`.
    controller: web_sys::AbortController,
    /// Whether `execute` has been called.
    started: Cell<bool>,
    /// A form's tool: its `execute` is the declarative API's own.
    form: bool,
}

impl Execution {
    /// The caller's signal aborted: if the tool is running, fire `toolcancel` at the
    /// ModelContext and abort the signal handed to `execute`; reject with the reason.
    fn cancel(&self, reason: &JsValue) {
        if self.done.is_settled() {
            return;
        }
        if self.started.get() {
            let abort = || {
                self.controller.abort_with_reason(
                    &DomError::Abort("The tool call was cancelled.".into()).into_js(),
                )
            };
            // A form's call ends (its active marks cleared) before `toolcancel`, as in
            // Chromium; the page never sees that `execute`'s signal, so the digest's order
            // (D3) holds for every signal a page can see.
            if self.form {
                abort();
                self.inner.fire_cancel(&self.name);
            } else {
                self.inner.fire_cancel(&self.name);
                abort();
            }
        }
        self.done.settle(false, reason);
    }
}

/// `executeTool(tool, inputObject, options)`.
///
/// Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-executetool> (digest: "executeTool"); the input check
/// against the schema is beyond the spec (digest: "Input validation").
fn execute_tool(
    inner: &Rc<EngineInner>,
    tool: &JsValue,
    input: &JsValue,
    options: &JsValue,
) -> Result<Promise, JsValue> {
    // WebIDL conversions: the RegisteredTool, then the options.
    let (name, origin, window) = read_registered_tool(tool)?;
    check_dictionary(
        options,
        "Failed to execute 'executeTool' on 'ModelContext': parameter 3",
    )?;
    let signal = read_signal(options, "executeTool")?;
    // The document checks come before the input is looked at (as in Chromium).
    check_document(inner)?;
    super::frames::check_policy(inner)?;
    let args = read_input(input)?;
    // An unknown tool, or one of another window or origin → UnknownError.
    let unknown = || DomError::Unknown(format!("No tool named {name:?} is available.")).into_js();
    if window != *inner.global() {
        // The tool's document went away (its frame was detached or navigated away).
        if js::get(&window, "closed").ok() == Some(JsValue::TRUE) {
            return Err(DomError::InvalidState(
                "The tool's document is not fully active (its frame was detached).".into(),
            )
            .into_js());
        }
        // A tool of another same-origin document of the frame tree runs there, through that
        // document's own executeTool (its checks, its toolactivated).
        if let Some(peer) = super::frames::peer_for(inner, &window) {
            let outcome = js::call(&peer, "executeTool", &[tool, input, options])?;
            return Ok(settle_unless_gone(&window, outcome)?.promise().clone());
        }
        // A tool of another origin's document runs there, over the frame wire, if that
        // document listed it for this one.
        if let Some(sig) = &signal {
            if sig.aborted() {
                return Err(sig.reason());
            }
        }
        return super::frames::calls::call(inner, &window, &origin, &name, &args, signal)
            .map_err(DomError::into_js);
    }
    if origin != inner.origin() {
        return Err(unknown());
    }
    let Some((registered, data)) = inner.tool_data(&name) else {
        return Err(unknown());
    };
    // A form's controls take text: input is coerced as native Chromium fills them.
    let args = if data.door == Door::Form {
        super::forms::coerce(&registered.def.input_schema, args)
    } else {
        args
    };
    // An already-aborted signal rejects with its reason.
    if let Some(sig) = &signal {
        if sig.aborted() {
            return Err(sig.reason());
        }
    }
    // Beyond the spec: the input must satisfy the tool's input schema (DataError). While the
    // validator module is loading (super::validator) the check waits for it, in the task
    // below; if it cannot be loaded, the call rejects with an UnknownError naming its URL.
    let validator = registered
        .input
        .as_ref()
        .and_then(|_| inner.server().validator_ready(&name));
    if validator.is_none() {
        check_input(&registered, &name, &args)?;
    }
    let run = Rc::new(Execution {
        inner: inner.clone(),
        name,
        done: js::Deferred::new(),
        controller: web_sys::AbortController::new()?,
        started: Cell::new(false),
        form: data.door == Door::Form,
    });
    // options.signal aborted later → toolcancel, the execute signal aborts, reject.
    if let Some(sig) = signal {
        let r = run.clone();
        let s = sig.clone();
        js::on_abort(&sig, move || r.cancel(&s.reason()));
    }
    // In a later microtask: fire `toolactivated` at the ModelContext and at the window,
    // then call `execute(inputObject, { signal })`.
    let r = run.clone();
    let promise = run.done.promise().clone();
    wasm_bindgen_futures::spawn_local(async move {
        if let Some(ready) = validator {
            let checked = match ready.await {
                Ok(()) => check_input(&registered, &r.name, &args),
                Err(e) => Err(DomError::Unknown(e.to_string())),
            };
            if let Err(e) = checked {
                r.done.settle(false, &e.into_js());
            }
        }
        if r.done.is_settled() {
            return; // cancelled before the tool started
        }
        r.started.set(true);
        let me = &r.inner;
        // A form is filled by its `execute`: there `toolactivated` fires once the controls
        // hold the input (as in Chromium); any other tool hears it before it runs.
        let form = data.door == Door::Form;
        if !form {
            me.fire_activated(&r.name);
        }
        let ctx = RequestContext::detached(CancellationToken::new());
        let call_opts = call_options(&ctx, &r.controller.signal());
        let called = data
            .execute
            .call2(&JsValue::UNDEFINED, &js::from_json(&args), &call_opts);
        if form {
            me.fire_activated(&r.name);
        }
        let outcome = settled(called).await;
        // Result: a string as is, anything else serialized; a throw or rejection →
        // UnknownError keeping the message.
        match outcome {
            // A form whose submission went ahead (it navigates): null, as in Chromium.
            Ok(v) if data.door == Door::Form && super::forms::is_navigated(&v) => {
                r.done.settle(true, &JsValue::NULL)
            }
            Ok(v) => match serialize_result(&r.name, &v) {
                Ok(text) => r.done.settle(true, &JsValue::from_str(&text)),
                Err(e) => r.done.settle(false, &e.into_js()),
            },
            // A form's own failure (reset, preventDefault without respondWith, an invalid
            // form, a newer call) is already the exception to report.
            Err(e) if data.door == Door::Form && super::forms::is_own_failure(&e) => {
                r.done.settle(false, &e)
            }
            Err(e) => r.done.settle(
                false,
                &DomError::Unknown(format!(
                    "Tool {:?} failed: {}",
                    r.name,
                    js::error_message(&e)
                ))
                .into_js(),
            ),
        }
    });
    Ok(promise)
}

/// A promise settled as `outcome` (another document's promise: adopted, not cast), or
/// rejected with `UnknownError` if that document (`window`'s) goes away first.
fn settle_unless_gone(window: &JsValue, outcome: JsValue) -> Result<js::Deferred, JsValue> {
    let done = js::Deferred::new();
    let d = done.clone();
    let gone = js::Listener::dom(window, "pagehide", move |_, _| {
        let e = DomError::Unknown("The tool's document went away before it answered.".into());
        d.settle(false, &e.into_js());
    })?;
    let d = done.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let r = wasm_bindgen_futures::JsFuture::from(Promise::resolve(&outcome)).await;
        drop(gone);
        match r {
            Ok(v) => d.settle(true, &v),
            Err(e) => d.settle(false, &e),
        }
    });
    Ok(done)
}

fn reject_on_error(r: Result<Promise, JsValue>) -> Promise {
    r.unwrap_or_else(|e| Promise::reject(&e))
}

/// `executeTool` as this document runs it for another origin's document (the frame wire's
/// executor, `frames::calls`).
pub(crate) fn execute(
    inner: &Rc<EngineInner>,
    tool: &JsValue,
    input: &JsValue,
    options: &JsValue,
) -> Promise {
    reject_on_error(execute_tool(inner, tool, input, options))
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
    let done = js::Deferred::new();
    let d = done.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(answer).await;
        match wasm_bindgen_futures::JsFuture::from(f()).await {
            Ok(v) => d.settle(true, &v),
            Err(e) => d.settle(false, &e),
        }
    });
    done.promise().clone()
}

#[wasm_bindgen]
impl Engine {
    /// W3C `registerTool(tool, options)`.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, tool: JsValue, options: JsValue) -> Promise {
        let me = self.inner.clone();
        let registered: Rc<std::cell::RefCell<Option<(String, u64)>>> = Rc::default();
        let r = registered.clone();
        let promise = after_policy(&self.inner, move || {
            match register_tool(&me, &tool, &options) {
                Ok((promise, name, registration)) => {
                    *r.borrow_mut() = Some((name, registration));
                    promise
                }
                Err(e) => Promise::reject(&e),
            }
        });
        with_draft_unregister(&self.inner, promise, registered)
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

//! The W3C WebMCP API: `registerTool`, `getTools`, `executeTool`, step by step as
//! `shared/spec/WEBMCP.md` and `webmcp.idl` give them. Where the digest is silent, native
//! Chromium's behaviour is followed (see `tests/page/NATIVE_DIFFERENCES.md`).

use js_sys::{Array, Function, Promise};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Door, Engine, EngineInner, JsToolData};
use super::error::DomError;
use super::js_handler::{call_options, invoke, JsTool};
use crate::js;
use crate::server::registry::{check_tool_name, RegistryError};
use crate::server::{CallError, CancellationToken, RequestContext, ToolDef};

/// The four WebMCP annotations (`ToolAnnotations` members), in lexicographic order: the
/// order WebIDL reads them from a page's object and writes them into `RegisteredTool`.
pub const WEBMCP_HINTS: [&str; 4] = [
    "consequentialHint",
    "debugging",
    "readOnlyHint",
    "untrustedContentHint",
];

/// A `ModelContextTool` dictionary after WebIDL conversion.
pub struct ToolDict {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Option<JsValue>,
    pub execute: Function,
    /// `None` when the page gave no `annotations` member.
    pub annotations: Option<Map<String, Value>>,
}

/// `ModelContextRegisterToolOptions` after WebIDL conversion.
struct RegisterOptions {
    exposed_to: Option<Vec<String>>,
    signal: Option<web_sys::AbortSignal>,
}

fn required(dict: &JsValue, key: &str, dict_name: &str) -> Result<JsValue, JsValue> {
    let v = js::get(dict, key)?;
    if v.is_undefined() {
        return Err(js::type_error(&format!(
            "Failed to read the '{key}' property from '{dict_name}': Required member is undefined."
        )));
    }
    Ok(v)
}

/// WebIDL: a dictionary argument must be `undefined`, `null` or an object.
fn check_dictionary(v: &JsValue, what: &str) -> Result<(), JsValue> {
    if v.is_undefined() || v.is_null() || v.is_object() || v.is_function() {
        Ok(())
    } else {
        Err(js::type_error(&format!("{what} is not an object.")))
    }
}

/// Reads `ToolAnnotations`: the four hints, each defaulting to false.
pub fn read_annotations(v: &JsValue) -> Result<Map<String, Value>, JsValue> {
    check_dictionary(v, "The 'annotations' member")?;
    let mut out = Map::new();
    for k in WEBMCP_HINTS {
        out.insert(k.to_string(), Value::Bool(js::to_bool(&js::get(v, k)?)));
    }
    Ok(out)
}

/// WebIDL conversion of `ModelContextTool` (members in lexicographic order).
pub fn read_tool_dict(tool: &JsValue) -> Result<ToolDict, JsValue> {
    check_dictionary(
        tool,
        "Failed to execute 'registerTool' on 'ModelContext': parameter 1",
    )?;
    let d = "ModelContextTool";
    let annotations = match js::get(tool, "annotations")? {
        v if v.is_undefined() => None,
        v => Some(read_annotations(&v)?),
    };
    let description = js::to_dom_string(&required(tool, "description", d)?)?;
    let execute = required(tool, "execute", d)?;
    let execute: Function = execute.dyn_into().map_err(|_| {
        js::type_error("Failed to read the 'execute' property from 'ModelContextTool': The provided value is not a function.")
    })?;
    let input_schema = match js::get(tool, "inputSchema")? {
        v if v.is_undefined() => None,
        v if v.is_object() || v.is_function() => Some(v),
        _ => {
            return Err(js::type_error(
                "Failed to read the 'inputSchema' property from 'ModelContextTool': The provided value is not of type 'object'.",
            ))
        }
    };
    let name = js::to_dom_string(&required(tool, "name", d)?)?;
    let title = match js::get(tool, "title")? {
        v if v.is_undefined() => None,
        v => Some(js::to_dom_string(&v)?),
    };
    Ok(ToolDict {
        name,
        title,
        description,
        input_schema,
        execute,
        annotations,
    })
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

/// The checks every method makes of the document it belongs to, before anything else
/// touches it (WebMCP: "If this's relevant global object's associated Document is not fully
/// active, reject with InvalidStateError"; and the origin-keyed check Chromium makes):
/// - a detached frame's, or a navigated-away, document → `InvalidStateError`;
/// - a document that is not origin-keyed (served with `Origin-Agent-Cluster: ?0`, so it may
///   set `document.domain` and reach other origins' objects) → `SecurityError`.
///
/// Workers have no document; only the agent-cluster check applies to them.
pub fn check_document(inner: &EngineInner) -> Result<(), DomError> {
    if let Ok(doc) = js::get(&inner.global, "document") {
        let detached = doc.is_object()
            && js::get(&doc, "defaultView")
                .map(|w| w.is_null() || w != inner.global)
                .unwrap_or(true);
        if detached {
            return Err(DomError::InvalidState(
                "The document is not fully active (its frame was detached or navigated away)."
                    .into(),
            ));
        }
    }
    if js::get(&inner.global, "originAgentCluster").ok() == Some(JsValue::FALSE) {
        return Err(DomError::Security(
            "WebMCP needs an origin-keyed document; this one was served with Origin-Agent-Cluster: ?0."
                .into(),
        ));
    }
    Ok(())
}

/// registerTool steps 2–4: the name is free, name and description are not empty, and the
/// name follows the rule.
fn check_name_and_description(inner: &EngineInner, dict: &ToolDict) -> Result<(), DomError> {
    // Step 2: a tool of that name already registered.
    if inner.server.tool(&dict.name).is_some() {
        return Err(DomError::InvalidState(format!(
            "A tool named {:?} is already registered.",
            dict.name
        )));
    }
    // Step 3: empty name or description.
    if dict.name.is_empty() || dict.description.is_empty() {
        return Err(DomError::InvalidState(
            "A tool needs a non-empty name and a non-empty description.".into(),
        ));
    }
    // Step 4: at most 128 of A-Z a-z 0-9 _ - .
    check_tool_name(&dict.name).map_err(|e| DomError::InvalidState(e.to_string()))
}

/// registerTool step 5: the input schema serialized as `JSON.stringify` would. `undefined`
/// → `TypeError`; a throw (cycle, BigInt, throwing `toJSON`) → that very exception.
fn serialize_input_schema(schema: &Option<JsValue>) -> Result<Option<String>, JsValue> {
    match schema {
        None => Ok(None),
        Some(s) => match js::stringify(s)? {
            Some(text) => Ok(Some(text)),
            None => Err(js::type_error(
                "The inputSchema cannot be serialized to JSON (JSON.stringify gives undefined).",
            )),
        },
    }
}

/// registerTool step 8's "store the tool" (the registry then queues `toolchange`).
/// Returns the registration id.
///
/// The spec stores any serializable schema; the engine compiles schemas to validate
/// arguments and refuses ones it cannot use (`[1, 2]`, `{ "type": "string" }`). Such a
/// tool is still registered, as the spec asks, with its schema kept for `getTools()` but
/// not used for validation (a console warning says so).
fn store_tool(
    inner: &Rc<EngineInner>,
    dict: ToolDict,
    schema_json: Option<String>,
    door: Door,
) -> Result<u64, JsValue> {
    let registration = inner.next_registration();
    let mut def = ToolDef::new(
        dict.name.clone(),
        dict.description,
        JsTool {
            name: dict.name.clone(),
            f: dict.execute.clone(),
        },
    );
    def.title = dict.title;
    def.input_schema = match &schema_json {
        Some(text) => Some(
            serde_json::from_str(text)
                .map_err(|e| js::type_error(&format!("The inputSchema is not valid JSON: {e}")))?,
        ),
        None => None,
    };
    def.annotations = dict.annotations.unwrap_or_default();
    def.attachment = Some(Rc::new(JsToolData {
        execute: dict.execute,
        input_schema_json: schema_json,
        door,
        registration,
    }));
    register_lenient(inner, def).map(|()| registration)
}

/// Registers `def`; if the engine refuses its input schema (it validates arguments with
/// it), registers it without one and warns: the W3C API stores any serializable schema,
/// and the tool's stored JSON text still reports it through `getTools()`.
pub fn register_lenient(inner: &EngineInner, mut def: ToolDef) -> Result<(), JsValue> {
    match inner.server.register_tool(def.clone()) {
        Ok(()) => Ok(()),
        Err(RegistryError::InvalidSchema {
            which: "inputSchema",
            message,
        }) if def.input_schema.is_some() => {
            js::warn(&format!(
                "modelcontext-polyfill: the inputSchema of tool {:?} cannot validate arguments ({message}); \
                 the tool is registered and its input is not validated.",
                def.name
            ));
            def.input_schema = None;
            inner
                .server
                .register_tool(def)
                .map_err(|e| super::engine::registry_error_to_js(&e))
        }
        Err(e) => Err(super::engine::registry_error_to_js(&e)),
    }
}

/// registerTool steps 2–5 and the store of step 8, for the doors without a signal or
/// `exposedTo` (`provideContext`). Returns the registration id.
pub fn register_web_tool(
    inner: &Rc<EngineInner>,
    dict: ToolDict,
    door: Door,
) -> Result<u64, JsValue> {
    check_name_and_description(inner, &dict)?;
    let schema_json = serialize_input_schema(&dict.input_schema)?;
    store_tool(inner, dict, schema_json, door)
}

/// Removes tool `name` if it is still registration `registration`.
pub fn unregister_if_current(inner: &EngineInner, name: &str, registration: u64) -> bool {
    match inner.tool_data(name) {
        Some((_, data)) if data.registration == registration => inner.server.unregister_tool(name),
        _ => false,
    }
}

/// A promise and its resolving functions; settling twice is a no-op.
#[derive(Clone)]
struct Deferred {
    promise: Promise,
    fns: Rc<RefCell<Option<(Function, Function)>>>,
}

impl Deferred {
    fn new() -> Deferred {
        let fns = Rc::new(RefCell::new(None));
        let f = fns.clone();
        let promise = Promise::new(&mut |resolve, reject| {
            *f.borrow_mut() = Some((resolve, reject));
        });
        Deferred { promise, fns }
    }

    fn is_settled(&self) -> bool {
        self.fns.borrow().is_none()
    }

    fn settle(&self, ok: bool, v: &JsValue) {
        let taken = self.fns.borrow_mut().take();
        if let Some((resolve, reject)) = taken {
            let f = if ok { resolve } else { reject };
            let _ = f.call1(&JsValue::UNDEFINED, v);
        }
    }
}

/// Runs `f` once when `signal` aborts.
fn on_abort(signal: &web_sys::AbortSignal, f: impl FnOnce() + 'static) {
    let cb = Closure::once_into_js(f);
    let opts = web_sys::AddEventListenerOptions::new();
    opts.set_once(true);
    let _ = signal.add_event_listener_with_callback_and_add_event_listener_options(
        "abort",
        cb.unchecked_ref(),
        &opts,
    );
}

/// `registerTool(tool, options)`; also returns the tool's name and registration id.
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
    // Step 7: every exposedTo entry must be a URL with a potentially trustworthy origin.
    for entry in options.exposed_to.iter().flatten() {
        if trustworthy_url_origin(entry).is_none() {
            return Err(security_error("exposedTo", entry).into_js());
        }
    }
    // Step 8: store the tool (the registry queues `toolchange`), then resolve in a task
    // queued after it.
    let name = dict.name.clone();
    let registration = store_tool(inner, dict, schema_json, Door::WebMcp)?;
    let done = Deferred::new();
    // Step 6, later: an abort unregisters the tool and rejects a still-pending promise.
    if let Some(sig) = options.signal {
        let me = inner.clone();
        let d = done.clone();
        let s = sig.clone();
        let n = name.clone();
        on_abort(&sig, move || {
            unregister_if_current(&me, &n, registration);
            d.settle(false, &s.reason());
        });
    }
    let d = done.clone();
    inner
        .tasks
        .queue(move || d.settle(true, &JsValue::UNDEFINED));
    Ok((done.promise, name, registration))
}

/// Earlier drafts (and libraries built on them) let `registerTool(tool)`'s return value
/// `unregister()` the tool. The promise gets a non-enumerable `unregister` that removes
/// this very registration (a no-op when registration failed), with a deprecation warning.
fn with_draft_unregister(
    inner: &Rc<EngineInner>,
    promise: Promise,
    registered: Option<(String, u64)>,
) -> Promise {
    let me = Rc::downgrade(inner);
    let unregister = Closure::<dyn Fn()>::new(move || {
        js::warn_once(
            "unregister",
            "modelcontext-polyfill: registerTool(tool).unregister() is deprecated (earlier WebMCP drafts); \
             pass an AbortSignal to registerTool() and abort it instead.",
        );
        if let (Some(me), Some((name, registration))) = (me.upgrade(), registered.as_ref()) {
            unregister_if_current(&me, name, *registration);
        }
    });
    js::define_hidden(&promise, "unregister", &unregister.into_js_value());
    promise
}

/// The `RegisteredTool` dictionary for `tool` (members in lexicographic order). Tools
/// registered without annotations have no `annotations` member; otherwise all four hints.
pub fn registered_tool(inner: &EngineInner, tool: &crate::server::registry::Tool) -> JsValue {
    let o: JsValue = js::object().into();
    if !tool.def.annotations.is_empty() {
        let ann: JsValue = js::object().into();
        for k in WEBMCP_HINTS {
            let b = tool
                .def
                .annotations
                .get(k)
                .and_then(Value::as_bool)
                .unwrap_or(false);
            js::set(&ann, k, &JsValue::from_bool(b));
        }
        js::set(&o, "annotations", &ann);
    }
    js::set(&o, "description", &JsValue::from_str(&tool.def.description));
    if let Some(text) = stored_schema(tool) {
        if let Ok(v) = js::parse(&text) {
            js::set(&o, "inputSchema", &v);
        }
    }
    js::set(&o, "name", &JsValue::from_str(&tool.def.name));
    js::set(&o, "origin", &JsValue::from_str(&inner.origin));
    js::set(
        &o,
        "title",
        &JsValue::from_str(tool.def.title.as_deref().unwrap_or("")),
    );
    js::set(&o, "window", &inner.global);
    o
}

/// The tool's input schema as stored: the JSON text taken at registration (W3C step 5),
/// else the engine's schema.
pub fn stored_schema(tool: &crate::server::registry::Tool) -> Option<String> {
    tool.def
        .attachment
        .clone()
        .and_then(|a| a.downcast::<JsToolData>().ok())
        .and_then(|d| d.input_schema_json.clone())
        .or_else(|| tool.def.input_schema.as_ref().map(|s| s.to_string()))
}

/// `getTools(options)`.
fn get_tools(inner: &Rc<EngineInner>, options: &JsValue) -> Result<Promise, JsValue> {
    // WebIDL conversion of ModelContextGetToolOptions.
    check_dictionary(
        options,
        "Failed to execute 'getTools' on 'ModelContext': parameter 1",
    )?;
    let from = read_strings(&js::get(options, "fromOrigins")?, "fromOrigins")?;
    check_document(inner)?;
    // Each fromOrigins entry must be a URL with a potentially trustworthy origin (as
    // Chromium checks it). The list adds the tools of other frames of those origins to the
    // same-origin ones (WEBMCP.md, "Frames, origins and policy"); this document's own tools
    // are always listed.
    for entry in from.iter().flatten() {
        trustworthy_url_origin(entry).ok_or_else(|| security_error("fromOrigins", entry))?;
    }
    // The tools, sorted by name (the registry's order), as fresh dictionaries.
    let out = Array::new();
    for t in inner.server.tools() {
        out.push(&registered_tool(inner, &t));
    }
    Ok(Promise::resolve(&JsValue::from(out)))
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
    done: Deferred,
    /// Aborts the signal handed to `execute`.
    controller: web_sys::AbortController,
    /// Whether `execute` has been called.
    started: Cell<bool>,
}

impl Execution {
    /// The caller's signal aborted: if the tool is running, fire `toolcancel` at the
    /// ModelContext and abort the signal handed to `execute`; reject with the reason.
    fn cancel(&self, reason: &JsValue) {
        if self.done.is_settled() {
            return;
        }
        if self.started.get() {
            self.inner
                .fire_tool_event(&self.inner.cancel_event, "toolcancel", &self.name, false);
            self.controller.abort_with_reason(
                &DomError::Abort("The tool call was cancelled.".into()).into_js(),
            );
        }
        self.done.settle(false, reason);
    }
}

/// `executeTool(tool, inputObject, options)`.
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
    let args = read_input(input)?;
    // An unknown tool, or one of another window or origin → UnknownError.
    let unknown = || DomError::Unknown(format!("No tool named {name:?} is available.")).into_js();
    if window != inner.global {
        // The tool's document went away (its frame was detached or navigated away).
        if js::get(&window, "closed").ok() == Some(JsValue::TRUE) {
            return Err(DomError::InvalidState(
                "The tool's document is not fully active (its frame was detached).".into(),
            )
            .into_js());
        }
        return Err(unknown());
    }
    if origin != inner.origin {
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
        .and_then(|_| inner.server.validator_ready(&name));
    if validator.is_none() {
        check_input(&registered, &name, &args)?;
    }
    let run = Rc::new(Execution {
        inner: inner.clone(),
        name,
        done: Deferred::new(),
        controller: web_sys::AbortController::new()?,
        started: Cell::new(false),
    });
    // options.signal aborted later → toolcancel, the execute signal aborts, reject.
    if let Some(sig) = signal {
        let r = run.clone();
        let s = sig.clone();
        on_abort(&sig, move || r.cancel(&s.reason()));
    }
    // In a later microtask: fire `toolactivated` at the ModelContext and at the window,
    // then call `execute(inputObject, { signal })`.
    let r = run.clone();
    let promise = run.done.promise.clone();
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
        me.fire_tool_event(&me.activated_event, "toolactivated", &r.name, true);
        let ctx = RequestContext::detached(CancellationToken::new());
        let call_opts = call_options(&ctx, &r.controller.signal());
        let outcome = invoke(&data.execute, &js::from_json(&args), &call_opts).await;
        // Result: a string as is, anything else serialized; a throw or rejection →
        // UnknownError keeping the message.
        match outcome {
            Ok(v) => match serialize_result(&r.name, &v) {
                Ok(text) => r.done.settle(true, &JsValue::from_str(&text)),
                Err(e) => r.done.settle(false, &e.into_js()),
            },
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

/// `args` against the tool's input schema: a `DataError` naming each violation's path and
/// keyword.
pub(crate) fn check_input(
    registered: &crate::server::registry::Tool,
    name: &str,
    args: &Value,
) -> Result<(), DomError> {
    let Some(schema) = &registered.input else {
        return Ok(());
    };
    let violations = schema.validate(args);
    if violations.is_empty() {
        return Ok(());
    }
    let e = CallError::InvalidArguments {
        tool: name.to_string(),
        violations,
    };
    Err(DomError::Data(e.to_string()))
}

fn reject_on_error(r: Result<Promise, JsValue>) -> Promise {
    r.unwrap_or_else(|e| Promise::reject(&e))
}

#[wasm_bindgen]
impl Engine {
    /// W3C `registerTool(tool, options)`.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, tool: JsValue, options: JsValue) -> Promise {
        match register_tool(&self.inner, &tool, &options) {
            Ok((promise, name, registration)) => {
                with_draft_unregister(&self.inner, promise, Some((name, registration)))
            }
            Err(e) => with_draft_unregister(&self.inner, Promise::reject(&e), None),
        }
    }

    /// W3C `getTools(options)`.
    #[wasm_bindgen(js_name = getTools)]
    pub fn get_tools(&self, options: JsValue) -> Promise {
        reject_on_error(get_tools(&self.inner, &options))
    }

    /// W3C `executeTool(tool, inputObject, options)`.
    #[wasm_bindgen(js_name = executeTool)]
    pub fn execute_tool(&self, tool: JsValue, input: JsValue, options: JsValue) -> Promise {
        reject_on_error(execute_tool(&self.inner, &tool, &input, &options))
    }
}

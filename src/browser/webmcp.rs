//! The W3C WebMCP API: `registerTool`, `getTools`, `executeTool`, step by step as
//! `shared/spec/WEBMCP.md` and `webmcp.idl` give them.

use js_sys::{Array, Function, Promise};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{registry_error_to_js, Door, Engine, EngineInner, JsToolData};
use super::js;
use super::js_handler::{call_options, invoke, JsTool};
use crate::server::registry::check_tool_name;
use crate::server::{CallError, CancellationToken, RequestContext, ToolDef};

/// The four WebMCP annotations, in IDL member order.
pub const WEBMCP_HINTS: [&str; 4] = [
    "readOnlyHint",
    "untrustedContentHint",
    "consequentialHint",
    "debugging",
];

/// A `ModelContextTool` dictionary after WebIDL conversion.
pub struct ToolDict {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Option<JsValue>,
    pub execute: Function,
    pub annotations: Map<String, Value>,
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

fn check_dictionary(v: &JsValue, what: &str) -> Result<(), JsValue> {
    if v.is_undefined() || v.is_null() || v.is_object() || v.is_function() {
        Ok(())
    } else {
        Err(js::type_error(&format!("{what} is not an object.")))
    }
}

/// Reads `ToolAnnotations` (all four hints default to false) plus any other member.
pub fn read_annotations(v: &JsValue) -> Result<Map<String, Value>, JsValue> {
    let mut out = Map::new();
    check_dictionary(v, "The 'annotations' member")?;
    // Members in lexicographic order, as WebIDL reads them.
    let mut order = WEBMCP_HINTS.to_vec();
    order.sort_unstable();
    for k in order {
        out.insert(k.to_string(), Value::Bool(js::to_bool(&js::get(v, k)?)));
    }
    let mut ordered = Map::new();
    for k in WEBMCP_HINTS {
        ordered.insert(k.to_string(), out[k].clone());
    }
    Ok(ordered)
}

/// WebIDL conversion of `ModelContextTool` (members in lexicographic order).
pub fn read_tool_dict(tool: &JsValue) -> Result<ToolDict, JsValue> {
    check_dictionary(
        tool,
        "Failed to execute 'registerTool' on 'ModelContext': parameter 1",
    )?;
    let d = "ModelContextTool";
    let annotations = read_annotations(&js::get(tool, "annotations")?)?;
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

fn read_signal(options: &JsValue, method: &str) -> Result<Option<web_sys::AbortSignal>, JsValue> {
    check_dictionary(
        options,
        &format!("Failed to execute '{method}' on 'ModelContext': the options"),
    )?;
    match js::get(options, "signal")? {
        v if v.is_undefined() => Ok(None),
        v => v.dyn_into::<web_sys::AbortSignal>().map(Some).map_err(|_| {
            js::type_error(&format!(
                "Failed to execute '{method}' on 'ModelContext': member signal is not of type 'AbortSignal'."
            ))
        }),
    }
}

fn read_strings(v: &JsValue, what: &str) -> Result<Option<Vec<String>>, JsValue> {
    if v.is_undefined() {
        return Ok(None);
    }
    if !v.is_object() {
        return Err(js::type_error(&format!("{what} is not iterable.")));
    }
    let arr = Array::from(v);
    arr.iter()
        .map(|x| js::to_dom_string(&x))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Whether `url` has a potentially trustworthy origin.
fn trustworthy(url: &web_sys::Url) -> bool {
    let protocol = url.protocol();
    let host = url.hostname();
    matches!(protocol.as_str(), "https:" | "wss:" | "file:")
        || host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "[::1]"
}

/// Runs the registration steps shared by `registerTool` (W3C) and `provideContext`.
/// Returns the registration id.
pub fn register_web_tool(
    inner: &Rc<EngineInner>,
    dict: ToolDict,
    door: Door,
) -> Result<u64, JsValue> {
    // Step 2: a tool of that name already registered.
    if inner.server.tool(&dict.name).is_some() {
        return Err(js::dom_exception(
            "InvalidStateError",
            &format!("A tool named \"{}\" is already registered.", dict.name),
        ));
    }
    // Step 3: empty name or description.
    if dict.name.is_empty() || dict.description.is_empty() {
        return Err(js::dom_exception(
            "InvalidStateError",
            "A tool needs a non-empty name and a non-empty description.",
        ));
    }
    // Step 4: the name rule.
    if let Err(e) = check_tool_name(&dict.name) {
        return Err(js::dom_exception("InvalidStateError", &e.to_string()));
    }
    // Step 5: serialize the input schema as JSON.stringify would.
    let (schema_json, schema) =
        match &dict.input_schema {
            None => (None, None),
            Some(s) => match js::stringify(s)? {
                None => return Err(js::type_error(
                    "The inputSchema could not be serialized to JSON (it serializes to undefined).",
                )),
                Some(text) => {
                    let v: Value = serde_json::from_str(&text).map_err(|e| {
                        js::type_error(&format!("The inputSchema is not valid JSON: {e}"))
                    })?;
                    (Some(text), Some(v))
                }
            },
        };
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
    def.input_schema = schema;
    def.annotations = dict.annotations;
    def.attachment = Some(Rc::new(JsToolData {
        execute: dict.execute,
        input_schema_json: schema_json,
        door,
        registration,
    }));
    inner
        .server
        .register_tool(def)
        .map_err(|e| registry_error_to_js(&e))?;
    Ok(registration)
}

/// Removes tool `name` if it is still registration `registration`.
pub fn unregister_if_current(inner: &EngineInner, name: &str, registration: u64) -> bool {
    match inner.tool_data(name) {
        Some((_, data)) if data.registration == registration => inner.server.unregister_tool(name),
        _ => false,
    }
}

type Settle = Rc<RefCell<Option<(Function, Function)>>>;

fn settle(s: &Settle, ok: bool, v: &JsValue) {
    if let Some((resolve, reject)) = s.borrow_mut().take() {
        let f = if ok { resolve } else { reject };
        let _ = f.call1(&JsValue::UNDEFINED, v);
    }
}

fn register_tool(
    inner: &Rc<EngineInner>,
    tool: &JsValue,
    options: &JsValue,
) -> Result<Promise, JsValue> {
    let dict = read_tool_dict(tool)?;
    let signal = read_signal(options, "registerTool")?;
    let exposed_to = read_strings(&js::get(options, "exposedTo")?, "exposedTo")?;
    // Step 1: the document must be fully active.
    if let Ok(doc) = js::get(&inner.global, "document") {
        if doc.is_object()
            && js::get(&doc, "defaultView")
                .map(|w| w.is_null())
                .unwrap_or(false)
        {
            return Err(js::dom_exception(
                "InvalidStateError",
                "The document is not fully active.",
            ));
        }
    }
    // Steps 2–5 run inside register_web_tool, but step 6 (signal) and 7 (exposedTo) must
    // fail before anything is stored, so check them first when they would fail.
    let pre = |e| -> Result<Promise, JsValue> { Err(e) };
    if inner.server.tool(&dict.name).is_some()
        || dict.name.is_empty()
        || dict.description.is_empty()
        || check_tool_name(&dict.name).is_err()
    {
        return register_web_tool(inner, dict, Door::WebMcp)
            .map(|_| Promise::resolve(&JsValue::UNDEFINED));
    }
    if let Some(s) = &dict.input_schema {
        match js::stringify(s) {
            Err(e) => return pre(e),
            Ok(None) => {
                return pre(js::type_error(
                    "The inputSchema could not be serialized to JSON (it serializes to undefined).",
                ))
            }
            Ok(Some(_)) => {}
        }
    }
    // Step 6: an already-aborted signal.
    if let Some(sig) = &signal {
        if sig.aborted() {
            return pre(sig.reason());
        }
    }
    // Step 7: every exposedTo entry must be a URL with a potentially trustworthy origin.
    for entry in exposed_to.unwrap_or_default() {
        let ok = web_sys::Url::new(&entry)
            .map(|u| trustworthy(&u))
            .unwrap_or(false);
        if !ok {
            return pre(js::dom_exception(
                "SecurityError",
                &format!(
                    "exposedTo entry {entry:?} is not a URL with a potentially trustworthy origin."
                ),
            ));
        }
    }
    let name = dict.name.clone();
    // Step 8: store the tool (this queues `toolchange`), then resolve in a later task.
    let registration = register_web_tool(inner, dict, Door::WebMcp)?;
    let settler: Settle = Rc::new(RefCell::new(None));
    let s = settler.clone();
    let promise = Promise::new(&mut |resolve, reject| {
        *s.borrow_mut() = Some((resolve, reject));
    });
    if let Some(sig) = signal {
        let me = inner.clone();
        let s = settler.clone();
        let n = name.clone();
        let sig2 = sig.clone();
        let on_abort = Closure::once_into_js(move || {
            unregister_if_current(&me, &n, registration);
            settle(&s, false, &sig2.reason());
        });
        let opts = web_sys::AddEventListenerOptions::new();
        opts.set_once(true);
        let _ = sig.add_event_listener_with_callback_and_add_event_listener_options(
            "abort",
            on_abort.unchecked_ref(),
            &opts,
        );
    }
    let s = settler.clone();
    inner
        .tasks
        .queue(move || settle(&s, true, &JsValue::UNDEFINED));
    Ok(promise)
}

/// The `RegisteredTool` dictionary for tool `name` (members in lexicographic order).
pub fn registered_tool(inner: &EngineInner, tool: &crate::server::registry::Tool) -> JsValue {
    let o: JsValue = js::object().into();
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
    js::set(&o, "description", &JsValue::from_str(&tool.def.description));
    let data = tool
        .def
        .attachment
        .clone()
        .and_then(|a| a.downcast::<JsToolData>().ok());
    let schema_text = data
        .as_ref()
        .and_then(|d| d.input_schema_json.clone())
        .or_else(|| tool.def.input_schema.as_ref().map(|s| s.to_string()));
    if let Some(text) = schema_text {
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

fn get_tools(inner: &Rc<EngineInner>, options: &JsValue) -> Result<Promise, JsValue> {
    check_dictionary(
        options,
        "Failed to execute 'getTools' on 'ModelContext': the options",
    )?;
    let from = read_strings(&js::get(options, "fromOrigins")?, "fromOrigins")?;
    let visible = match from {
        None => true,
        Some(list) => list.iter().any(|o| {
            web_sys::Url::new(o)
                .map(|u| u.origin() == inner.origin)
                .unwrap_or(false)
        }),
    };
    let out = Array::new();
    if visible {
        for t in inner.server.tools() {
            out.push(&registered_tool(inner, &t));
        }
    }
    Ok(Promise::resolve(&JsValue::from(out)))
}

/// Serializes an `execute` result the way `executeTool` reports it: strings as they are,
/// other primitives by string conversion (`undefined` → `"undefined"`, `10n` → `"10"`, as
/// Chromium does), objects with `JSON.stringify`.
fn serialize_result(v: &JsValue) -> Result<String, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(s);
    }
    if !v.is_object() && !v.is_function() {
        return js::to_dom_string(v).map_err(|e| {
            js::dom_exception(
                "UnknownError",
                &format!(
                    "The tool's result could not be converted: {}",
                    js::error_message(&e)
                ),
            )
        });
    }
    match js::stringify(v) {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(js::dom_exception(
            "UnknownError",
            "The tool's result could not be serialized to JSON.",
        )),
        Err(e) => Err(js::dom_exception(
            "UnknownError",
            &format!(
                "The tool's result could not be serialized to JSON: {}",
                js::error_message(&e)
            ),
        )),
    }
}

fn execute_tool(
    inner: &Rc<EngineInner>,
    tool: &JsValue,
    input: &JsValue,
    options: &JsValue,
) -> Result<Promise, JsValue> {
    check_dictionary(
        tool,
        "Failed to execute 'executeTool' on 'ModelContext': parameter 1",
    )?;
    let d = "RegisteredTool";
    // RegisteredTool members in lexicographic order: description, name, origin, window.
    js::to_dom_string(&required(tool, "description", d)?)?;
    let name = js::to_dom_string(&required(tool, "name", d)?)?;
    let origin = js::to_dom_string(&required(tool, "origin", d)?)?;
    let window = required(tool, "window", d)?;
    let input = if input.is_undefined() {
        JsValue::from(js::object())
    } else if input.is_object() {
        input.clone()
    } else {
        return Err(js::type_error(
            "Failed to execute 'executeTool' on 'ModelContext': the input is not an object.",
        ));
    };
    let signal = read_signal(options, "executeTool")?;
    let unknown = || {
        js::dom_exception(
            "UnknownError",
            &format!("No tool named \"{name}\" is available."),
        )
    };
    if window != inner.global || origin != inner.origin {
        return Err(unknown());
    }
    let Some((registered, data)) = inner.tool_data(&name) else {
        return Err(unknown());
    };
    if let Some(sig) = &signal {
        if sig.aborted() {
            return Err(sig.reason());
        }
    }
    // Beyond the spec: validate the input against the tool's schema.
    let args = js::to_json(&input)?.unwrap_or(Value::Object(Map::new()));
    match inner.server.check_call(&name, &args) {
        Ok(_) => {}
        Err(e @ CallError::InvalidArguments { .. }) => {
            return Err(js::dom_exception("DataError", &e.to_string()))
        }
        Err(CallError::UnknownTool(_)) => return Err(unknown()),
        Err(e) => return Err(js::type_error(&e.to_string())),
    }
    drop(registered);
    let me = inner.clone();
    let token = CancellationToken::new();
    let ctx = RequestContext::detached(token.clone());
    let controller = web_sys::AbortController::new()?;
    let settler: Settle = Rc::new(RefCell::new(None));
    let s = settler.clone();
    let promise = Promise::new(&mut |resolve, reject| {
        *s.borrow_mut() = Some((resolve, reject));
    });
    if let Some(sig) = signal {
        let me2 = me.clone();
        let s = settler.clone();
        let c = controller.clone();
        let n = name.clone();
        let sig2 = sig.clone();
        let on_abort = Closure::once_into_js(move || {
            me2.fire_tool_event(&me2.cancel_event, "toolcancel", &n, false);
            c.abort_with_reason(&sig2.reason());
            settle(&s, false, &sig2.reason());
        });
        let opts = web_sys::AddEventListenerOptions::new();
        opts.set_once(true);
        let _ = sig.add_event_listener_with_callback_and_add_event_listener_options(
            "abort",
            on_abort.unchecked_ref(),
            &opts,
        );
    }
    me.fire_tool_event(&me.activated_event, "toolactivated", &name, true);
    let call_input = js::from_json(&args);
    let call_opts = call_options(&ctx, &controller.signal());
    let f = data.execute.clone();
    let s = settler.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let r = invoke(&f, &call_input, &call_opts).await;
        let _keep = ctx;
        match r {
            Ok(v) => match serialize_result(&v) {
                Ok(text) => settle(&s, true, &JsValue::from_str(&text)),
                Err(e) => settle(&s, false, &e),
            },
            Err(e) => settle(
                &s,
                false,
                &js::dom_exception("UnknownError", &js::error_message(&e)),
            ),
        }
    });
    Ok(promise)
}

fn reject_on_error(r: Result<Promise, JsValue>) -> Promise {
    r.unwrap_or_else(|e| Promise::reject(&e))
}

#[wasm_bindgen]
impl Engine {
    /// W3C `registerTool(tool, options)`.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, tool: JsValue, options: JsValue) -> Promise {
        reject_on_error(register_tool(&self.inner, &tool, &options))
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

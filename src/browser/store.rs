//! The tool store of the browser layer: what it keeps with each tool ([`JsToolData`], which
//! door the tool came through), the `ModelContextTool` dictionary read as WebIDL does, and the
//! registration steps every door shares (the W3C API in `webmcp/`, the earlier drafts in
//! `legacy.rs`, forms, the native bridge, the session API): checks, storing a tool,
//! removing it only if it is still the same registration, and the `RegisteredTool` a page
//! sees. It imports none of those features.
//!
//! Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-registertool>
//! (digest: `shared/spec/WEBMCP.md`).

use js_sys::Function;
use serde_json::{Map, Value};
use std::cell::OnceCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::EngineInner;
use super::js_handler::JsTool;
use crate::js;
use crate::js::DomError;
use crate::server::registry::{check_tool_name, RegistryError, Tool};
use crate::server::{
    CallError, HandlerResult, HeldArguments, HeldPlace, LocalBoxFuture, RequestContext, SchemaText, ToolDef,
    ToolHandler,
};

/// Which door a tool came through.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Door {
    /// `registerTool(tool, options)` (W3C).
    WebMcp,
    /// `registerTool(name, def)` (session API), on `modelContext` or on a session.
    Session,
    /// `provideContext({ tools })` (early drafts).
    Provided,
    /// A proxy for a tool registered on the browser's native `document.modelContext`.
    Native,
    /// A `<form toolname>` (the declarative API, `forms/`).
    Form,
}

/// What the browser layer keeps with each tool: the registry's attachment, and the tool's
/// handler too ([`JsToolData::into_def`]), so a tool holds its page function once.
pub struct JsToolData {
    /// The page function to run, with the tool's name (its error messages name the tool).
    pub tool: JsTool,
    /// The input schema as `JSON.stringify` produced it (W3C step 5), when the engine could
    /// not use it (the tool is registered without one, and `getTools()` still reports it);
    /// otherwise the tool's [`SchemaText`] holds that text, shared with the other tools of the
    /// same schema, and this is empty. Set once, when the engine refuses the schema.
    pub input_schema_json: OnceCell<Rc<str>>,
    /// Which API registered it.
    pub door: Door,
    /// The origins of other documents of the frame tree the tool is exposed to
    /// (`registerTool`'s `exposedTo`, serialized origins).
    pub exposed_to: Vec<String>,
    /// Unique per registration, so a stale `AbortSignal` cannot remove a newer tool.
    pub registration: u64,
}

impl JsToolData {
    /// The page function.
    pub fn execute(&self) -> &Function {
        &self.tool.f
    }

    /// A definition of the tool this describes, with `description`: run by its page
    /// function, with this as its attachment (one object for both).
    pub fn into_def(self, description: String) -> ToolDef {
        let data = Rc::new(self);
        let mut def = ToolDef::with_handler(String::from(&*data.tool.name), description, data.clone());
        def.attachment = Some(data);
        def
    }
}

impl ToolHandler for JsToolData {
    fn call(&self, args: Value, ctx: RequestContext) -> LocalBoxFuture<'static, HandlerResult> {
        self.tool.call(args, ctx)
    }
    fn call_shared(
        &self,
        args: Rc<Value>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        self.tool.call_shared(args, ctx)
    }
    fn call_holding(
        &self,
        args: Rc<Value>,
        held: Rc<HeldArguments>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        self.tool.call_holding(args, held, ctx)
    }
    fn takes_text(&self) -> bool {
        self.tool.takes_text()
    }
    fn call_text_holding(
        &self,
        args: Rc<str>,
        places: Rc<[HeldPlace]>,
        held: Rc<HeldArguments>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        self.tool.call_text_holding(args, places, held, ctx)
    }
    fn call_text(
        &self,
        args: Rc<str>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        self.tool.call_text(args, ctx)
    }
}

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
    /// `name`.
    pub name: String,
    /// `title`, when given.
    pub title: Option<String>,
    /// `description`.
    pub description: String,
    /// `inputSchema`, when given (an object; serialized at registration).
    pub input_schema: Option<JsValue>,
    /// `execute`.
    pub execute: Function,
    /// `None` when the page gave no `annotations` member.
    pub annotations: Option<Map<String, Value>>,
    /// Beyond the spec: the tool's `outputSchema` member (read after the dictionary's own),
    /// as `@mcp-b/global` and the MCP TypeScript SDK take it; `undefined` when absent.
    pub output_schema: JsValue,
}

/// `dict[key]`, or the `TypeError` WebIDL gives for a required member that is missing.
pub fn required(dict: &JsValue, key: &'static str, dict_name: &str) -> Result<JsValue, JsValue> {
    must_be_present(js::get(dict, key)?, key, dict_name)
}

/// A required member's value, or the `TypeError` WebIDL gives when it is undefined.
fn must_be_present(v: JsValue, key: &str, dict_name: &str) -> Result<JsValue, JsValue> {
    if v.is_undefined() {
        return Err(js::type_error(&format!(
            "Failed to read the '{key}' property from '{dict_name}': Required member is undefined."
        )));
    }
    Ok(v)
}

/// WebIDL: a dictionary argument must be `undefined`, `null` or an object.
pub fn check_dictionary(v: &JsValue, what: &str) -> Result<(), JsValue> {
    Dictionary::new(v, what).map(|_| ())
}

/// A dictionary argument after WebIDL's type check (`undefined`, `null` or an object): its
/// members are then read without testing its type again for each (an absent dictionary has
/// every member undefined).
pub struct Dictionary<'a>(Option<&'a JsValue>);

impl<'a> Dictionary<'a> {
    /// Checks `v` (the common case, an object, first); `what` names it in the `TypeError`.
    pub fn new(v: &'a JsValue, what: &str) -> Result<Dictionary<'a>, JsValue> {
        if v.is_object() || v.is_function() {
            Ok(Dictionary(Some(v)))
        } else if v.is_undefined() || v.is_null() {
            Ok(Dictionary(None))
        } else {
            Err(js::type_error(&format!("{what} is not an object.")))
        }
    }

    /// The member `key` (its getter's exception, if it throws).
    pub fn get(&self, key: &'static str) -> Result<JsValue, JsValue> {
        match self.0 {
            Some(d) => js::field(d, key),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The required member `key` of the dictionary type `dict_name`.
    pub fn required(&self, key: &'static str, dict_name: &str) -> Result<JsValue, JsValue> {
        must_be_present(self.get(key)?, key, dict_name)
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
    // Beyond the spec, after the dictionary's members: `outputSchema` (store_tool uses it
    // when it can, and warns when it cannot).
    let output_schema = js::get(tool, "outputSchema").unwrap_or(JsValue::UNDEFINED);
    Ok(ToolDict {
        name,
        title,
        description,
        input_schema,
        execute,
        annotations,
        output_schema,
    })
}

/// Maps registry errors to the exceptions pages see: the WebMCP name and duplicate checks
/// are `InvalidStateError` DOMExceptions; malformed definitions are `TypeError`s.
pub fn registry_error_to_js(e: &RegistryError) -> JsValue {
    match e {
        RegistryError::Duplicate { .. } | RegistryError::InvalidName { .. } => {
            DomError::InvalidState(e.to_string())
        }
        RegistryError::InvalidSchema { .. }
        | RegistryError::InvalidUri { .. }
        | RegistryError::InvalidField { .. } => DomError::Type(e.to_string()),
    }
    .into_js()
}

impl EngineInner {
    /// The data the browser layer attached to tool `name`.
    pub fn tool_data(&self, name: &str) -> Option<(Rc<Tool>, Rc<JsToolData>)> {
        let tool = self.server().tool(name)?;
        let data = attached(&tool.def)?;
        Some((tool, data))
    }
}

/// The data the browser layer attached to the tool `def` defines (none for tools registered
/// without it).
pub fn attached(def: &ToolDef) -> Option<Rc<JsToolData>> {
    def.attachment
        .clone()
        .and_then(|a| a.downcast::<JsToolData>().ok())
}

/// The checks every method makes of the document it belongs to, before anything else
/// touches it (WebMCP: "If this's relevant global object's associated Document is not fully
/// active, reject with InvalidStateError"; and the origin-keyed check Chromium makes):
/// - a detached frame's, or a navigated-away, document → `InvalidStateError`;
/// - a document that is not origin-keyed (served with `Origin-Agent-Cluster: ?0`, so it may
///   set `document.domain` and reach other origins' objects) → `SecurityError`. An opaque
///   origin cannot set `document.domain`: a page opened from a `file:` URL, which Chromium
///   calls not origin-keyed, is served (as Chromium's own WebMCP serves it).
///
/// Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-registertool>, steps 3
/// and 4 (`getTools` and `executeTool` begin the same way).
///
/// Beyond the spec: the origin-keyed step holds only in a browser that origin-keys documents
/// (Chromium and its derivatives, where a page is origin-keyed unless it opts out). A browser
/// that origin-keys none (Firefox: `originAgentCluster` is false in every page) would refuse
/// every call of every page, and there is no native WebMCP to match, so there it is skipped.
/// Such a browser is told apart by its lack of `navigator.userAgentData` (User-Agent Client
/// Hints, which only Chromium has); it is read only when `originAgentCluster` is false.
///
/// Workers have no document; only the agent-cluster check applies to them.
pub fn check_document(inner: &EngineInner) -> Result<(), DomError> {
    // (The global is an object: read without `js::get`'s type test.)
    let global = inner.global();
    if let Ok(doc) = js::field(global, "document") {
        // A null `defaultView` is not the global either.
        let detached =
            doc.is_object() && js::field(&doc, "defaultView").map_or(true, |w| w != *global);
        if detached {
            return Err(DomError::InvalidState(
                "The document is not fully active (its frame was detached or navigated away)."
                    .into(),
            ));
        }
    }
    if inner.origin() != "null"
        && js::field(global, "originAgentCluster").is_ok_and(|v| v.as_bool() == Some(false))
        && origin_keys_documents(global)
    {
        return Err(DomError::Security(
            "WebMCP needs an origin-keyed document; this one was served with Origin-Agent-Cluster: ?0."
                .into(),
        ));
    }
    Ok(())
}

/// Whether this browser origin-keys documents (see [`check_document`]): it has
/// `navigator.userAgentData`. (Inlined: the core's first module keeps [`check_document`], and
/// a page's registrations before the deferred module has arrived run it.)
#[inline(always)]
fn origin_keys_documents(global: &JsValue) -> bool {
    js::field(global, "navigator")
        .and_then(|n| js::field(&n, "userAgentData"))
        .is_ok_and(|d| d.is_object())
}

/// registerTool steps 2–4: the name is free, name and description are not empty, and the
/// name follows the rule.
pub fn check_name_and_description(inner: &EngineInner, dict: &ToolDict) -> Result<(), DomError> {
    // Step 2: a tool of that name already registered.
    if inner.server().tool(&dict.name).is_some() {
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

thread_local! {
    /// `polyfill/src/standard_schema.js`'s `__mcpStandardSchema` and `__mcpPromptArguments`,
    /// from the engine's config ([`use_schema_helpers`]).
    static STANDARD_SCHEMA: js::Helper = const { js::Helper::new("standardSchema") };
    static PROMPT_ARGUMENTS: js::Helper = const { js::Helper::new("promptArguments") };
}

/// Takes `config.standardSchema` (absent: a Standard Schema serializes as any object does) and
/// `config.promptArguments` (absent: a prompt's `argsSchema` is a `TypeError`).
pub fn use_schema_helpers(config: &JsValue) {
    STANDARD_SCHEMA.with(|h| h.take(config));
    PROMPT_ARGUMENTS.with(|h| h.take(config));
}

/// A prompt's `arguments` from the MCP TypeScript SDK's `argsSchema` (a schema of an object,
/// or the SDK v1's object of schemas), for the session API's `registerPrompt`.
pub fn prompt_arguments(schema: &JsValue) -> Result<JsValue, JsValue> {
    PROMPT_ARGUMENTS
        .with(|h| h.with(|f| f.call1(&JsValue::UNDEFINED, schema)))
        .unwrap_or_else(|| Err(js::type_error("argsSchema is not supported here")))
}

/// A tool schema given as a Standard Schema (<https://standardschema.dev>: zod 4.2+, ArkType,
/// …), as the MCP TypeScript SDK and `@mcp-b/global` take them.
pub struct StandardSchema {
    /// The JSON Schema the library gives, which the engine lists and validates with.
    pub json: JsValue,
    /// Puts a tool function behind the library's own parse.
    validate: Function,
}

impl StandardSchema {
    /// `execute` behind the library's parse: it gets the parsed value (defaults, transforms),
    /// and input the library refuses is a `DataError`.
    pub fn validating(&self, execute: &Function) -> Result<Function, JsValue> {
        Ok(self
            .validate
            .call1(&JsValue::UNDEFINED, execute)?
            .unchecked_into())
    }
}

/// Whether `e`, thrown by a tool function behind [`StandardSchema::validating`], is the
/// library's refusal of the input (a `DataError` to report as it is) rather than the tool's
/// own failure.
pub fn refused_input(e: &JsValue) -> bool {
    e.is_object()
        && js_sys::Reflect::get(
            e,
            &js_sys::Symbol::for_("modelcontext-polyfill.refused-input"),
        )
        .is_ok_and(|v| v.is_truthy())
}

/// Beyond the spec: `schema` as a Standard Schema for `io` (`"input"` or `"output"`), or `None`
/// for any other value. A Standard Schema that gives no JSON Schema, or an object of schemas,
/// is a `TypeError` saying what to pass (polyfill/src/standard_schema.js).
pub fn standard_schema(
    schema: &JsValue,
    io: &'static str,
) -> Result<Option<StandardSchema>, JsValue> {
    let found = STANDARD_SCHEMA.with(|h| {
        h.with(|f| f.call2(&JsValue::UNDEFINED, schema, &js::name(io)))
    });
    match found {
        None => Ok(None),
        Some(found) => {
            let found = found?;
            if found.is_undefined() {
                return Ok(None);
            }
            Ok(Some(StandardSchema {
                json: js::get(&found, "json")?,
                validate: js::get(&found, "validate")?.unchecked_into(),
            }))
        }
    }
}

/// registerTool step 5: the input schema serialized as `JSON.stringify` would. `undefined`
/// → `TypeError`; a throw (cycle, BigInt, throwing `toJSON`) → that very exception.
pub fn serialize_input_schema(dict: &mut ToolDict) -> Result<Option<String>, JsValue> {
    // Beyond the spec: a Standard Schema (zod …) serializes as the JSON Schema it gives, not as
    // the library's internals, and `execute` gets the value the library parses.
    if let Some(schema) = &dict.input_schema {
        if let Some(standard) = standard_schema(schema, "input")? {
            dict.execute = standard.validating(&dict.execute)?;
            dict.input_schema = Some(standard.json);
        }
    }
    match &dict.input_schema {
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
pub fn store_tool(
    inner: &Rc<EngineInner>,
    dict: ToolDict,
    schema_json: Option<String>,
    door: Door,
    exposed_to: Vec<String>,
) -> Result<u64, JsValue> {
    let registration = inner.next_registration();
    let data = JsToolData {
        tool: JsTool {
            name: dict.name.into(),
            f: dict.execute,
        },
        input_schema_json: OnceCell::new(),
        door,
        exposed_to,
        registration,
    };
    let mut def = data.into_def(dict.description);
    def.title = dict.title;
    def.input_schema = match &schema_json {
        Some(text) => Some(
            SchemaText::parse(text)
                .map_err(|e| js::type_error(&format!("The inputSchema is not valid JSON: {e}")))?,
        ),
        None => None,
    };
    def.annotations = dict.annotations.filter(|a| !a.is_empty()).map(Box::new);
    def.output_schema = output_schema(&def.name, &dict.output_schema);
    register_lenient(inner, def).map(|()| registration)
}

/// Beyond the spec: a W3C tool's `outputSchema` member (a JSON Schema, or a Standard Schema
/// that gives one) as JSON text, or `None` — with a console warning when it is there but
/// cannot be used: the spec does not know the member, so it never fails a registration.
fn output_schema(tool: &str, value: &JsValue) -> Option<SchemaText> {
    if value.is_undefined() || value.is_null() {
        return None;
    }
    let text = standard_schema(value, "output")
        .and_then(|s| js::stringify(&s.map_or_else(|| value.clone(), |s| s.json)))
        .map_err(|e| js::error_message(&e))
        .and_then(|t| t.ok_or_else(|| "it serializes to nothing".to_string()))
        .and_then(|t| SchemaText::parse(&t).map_err(|e| e.to_string()));
    text.map_err(|why| warn_output_schema_unused(tool, &why)).ok()
}

/// The console warning for an `outputSchema` left out of a registration (it never fails one).
fn warn_output_schema_unused(tool: &str, why: &str) {
    js::warn(&format!(
        "modelcontext-polyfill: the outputSchema of tool {tool:?} is not used ({why})."
    ));
}

/// Registers `def`; if the engine refuses its input schema (it validates arguments with
/// it), registers it without one and warns: the W3C API stores any serializable schema,
/// and the tool's stored JSON text still reports it through `getTools()`. An output schema
/// the engine refuses (beyond the spec, see `output_schema`) is dropped the same way.
pub fn register_lenient(inner: &EngineInner, mut def: ToolDef) -> Result<(), JsValue> {
    loop {
        match inner.server().register_tool(def.clone()) {
            Ok(()) => return Ok(()),
            Err(RegistryError::InvalidSchema {
                which: "inputSchema",
                message,
            }) if def.input_schema.is_some() => {
                js::warn(&format!(
                    "modelcontext-polyfill: the inputSchema of tool {:?} cannot validate arguments ({message}); \
                     the tool is registered and its input is not validated.",
                    def.name
                ));
                // The browser layer keeps the text for `getTools()`.
                let text = def.input_schema.take();
                if let (Some(data), Some(text)) = (attached(&def), text) {
                    let _ = data.input_schema_json.set(text.shared());
                }
            }
            Err(RegistryError::InvalidSchema {
                which: "outputSchema",
                message,
            }) if def.output_schema.is_some() => {
                warn_output_schema_unused(&def.name, &message);
                def.output_schema = None;
            }
            Err(e) => return Err(registry_error_to_js(&e)),
        }
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
    let mut dict = dict;
    let schema_json = serialize_input_schema(&mut dict)?;
    store_tool(inner, dict, schema_json, door, Vec::new())
}

/// Removes tool `name` if it is still registration `registration`.
pub fn unregister_if_current(inner: &EngineInner, name: &str, registration: u64) -> bool {
    match inner.tool_data(name) {
        Some((_, data)) if data.registration == registration => {
            inner.server().unregister_tool(name)
        }
        _ => false,
    }
}

/// A `ToolAnnotations` dictionary with all four hints, each `hint(name)`.
pub fn hints(hint: impl Fn(&'static str) -> bool) -> JsValue {
    let ann: JsValue = js::object().into();
    for k in WEBMCP_HINTS {
        js::set(&ann, k, &JsValue::from_bool(hint(k)));
    }
    ann
}

/// The `RegisteredTool` dictionary for `tool` (members in lexicographic order). Tools
/// registered without annotations have no `annotations` member; otherwise all four hints.
pub fn registered_tool(inner: &EngineInner, tool: &Tool) -> JsValue {
    let o: JsValue = js::object().into();
    if let Some(given) = &tool.def.annotations {
        let hint = |k: &str| given.get(k).and_then(Value::as_bool);
        js::set(&o, "annotations", &hints(|k| hint(k).unwrap_or(false)));
    }
    js::set(&o, "description", &JsValue::from_str(&tool.def.description));
    if let Some(text) = stored_schema(tool) {
        if let Ok(v) = js::parse(&text) {
            js::set(&o, "inputSchema", &v);
        }
    }
    js::set(&o, "name", &JsValue::from_str(&tool.def.name));
    js::set(&o, "origin", &JsValue::from_str(inner.origin()));
    js::set(
        &o,
        "title",
        &JsValue::from_str(tool.def.title.as_deref().unwrap_or("")),
    );
    js::set(&o, "window", inner.global());
    o
}

/// A `RegisteredTool` dictionary of another same-origin document (made by its engine's
/// [`registered_tool`], of its realm), made again of this realm's objects, as the browser
/// gives a caller dictionaries of the caller's realm: the same members, the schema parsed
/// here from its JSON, the same window.
pub fn adopt_registered_tool(theirs: &JsValue) -> JsValue {
    let o: JsValue = js::object().into();
    let member = |k: &'static str| js::get(theirs, k).unwrap_or(JsValue::UNDEFINED);
    let annotations = member("annotations");
    if annotations.is_object() {
        js::set(&o, "annotations", &hints(|k| js::get(&annotations, k).is_ok_and(|v| v.is_truthy())));
    }
    js::set(&o, "description", &member("description"));
    let schema = member("inputSchema");
    if let Ok(Some(text)) = js::stringify(&schema) {
        if let Ok(v) = js::parse(&text) {
            js::set(&o, "inputSchema", &v);
        }
    }
    for k in ["name", "origin", "title", "window"] {
        js::set(&o, k, &member(k));
    }
    o
}

/// The tool's input schema as stored: the JSON text taken at registration (W3C step 5),
/// else the engine's schema.
pub fn stored_schema(tool: &Tool) -> Option<String> {
    attached(&tool.def)
        .and_then(|d| d.input_schema_json.get().map(|text| text.to_string()))
        .or_else(|| tool.def.input_schema.as_ref().map(|s| s.as_str().to_string()))
}

/// `args` against the tool's input schema: a `DataError` naming each violation's path and
/// keyword.
pub(crate) fn check_input(registered: &Tool, name: &str, args: &Value) -> Result<(), DomError> {
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

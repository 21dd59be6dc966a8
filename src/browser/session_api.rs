//! The design card's session API: `connect(options)` → a session with
//! `registerTool(name, def)`, `registerResource(uriOrTemplate, def)`,
//! `registerPrompt(name, def)`, `notify`, `isConnected`, `disconnect`; the same
//! registration methods (and `disconnect`) also live on `modelContext` itself.

use js_sys::{Array, Function, Promise};
use serde_json::{Map, Value};
use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Engine, EngineInner};
use super::js_handler::{JsCompleter, JsPrompt, JsResource, JsTool};
use super::scope::{begin_registration, check_open, scoped_unregister, Scope};
use super::setup::server_info_from_js;
use super::store::{
    prompt_arguments, registry_error_to_js, standard_schema, unregister_if_current, Door,
    JsToolData, StandardSchema,
};
use crate::js;
use crate::server::{
    LogLevel, PromptArgument, PromptDef, ResourceDef, SchemaText, TaskSupport,
};

fn opt_string(def: &JsValue, key: &'static str) -> Result<Option<String>, JsValue> {
    js::opt_string(def, key, "", js::StringRule::DomString)
}

fn opt_json(def: &JsValue, key: &'static str) -> Result<Option<Value>, JsValue> {
    Ok(opt_schema(def, key, None)?.0)
}

/// `def[key]` as JSON (`None` when absent). With `io`, it is a tool schema: a Standard Schema
/// (zod …) is the JSON Schema it gives for `io`, and is returned too (store.rs).
fn opt_schema(
    def: &JsValue,
    key: &'static str,
    io: Option<&'static str>,
) -> Result<(Option<Value>, Option<StandardSchema>), JsValue> {
    let v = js::get(def, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok((None, None));
    }
    let standard = match io {
        Some(io) => standard_schema(&v, io)?,
        None => None,
    };
    let v = standard.as_ref().map_or(v, |s| s.json.clone());
    let json = js::to_json(&v)?
        .ok_or_else(|| js::type_error(&format!("{key} cannot be serialized to JSON")))?;
    Ok((Some(json), standard))
}

fn handler(def: &JsValue, keys: &[&'static str], what: &str) -> Result<Function, JsValue> {
    for k in keys {
        let v = js::get(def, k)?;
        if !v.is_undefined() {
            return v
                .dyn_into::<Function>()
                .map_err(|_| js::type_error(&format!("{what}: \"{k}\" must be a function")));
        }
    }
    Err(js::type_error(&format!(
        "{what}: a \"{}\" function is required",
        keys[0]
    )))
}

fn completers(def: &JsValue, what: &str) -> Result<Vec<(String, Rc<Function>)>, JsValue> {
    let c = js::get(def, "complete")?;
    if c.is_undefined() || c.is_null() {
        return Ok(Vec::new());
    }
    let keys = js_sys::Object::keys(&c.clone().dyn_into::<js_sys::Object>().map_err(|_| {
        js::type_error(&format!(
            "{what}: \"complete\" must be an object of functions"
        ))
    })?);
    keys.iter()
        .map(|k| {
            let name = k.as_string().unwrap_or_default();
            let f = js::get_any(&c, &name)?
                .dyn_into::<Function>()
                .map_err(|_| {
                    js::type_error(&format!("{what}: complete.{name} must be a function"))
                })?;
            Ok((name, Rc::new(f)))
        })
        .collect()
}

/// `def.icons`: absent is none, anything but an array a `TypeError`.
fn icons(def: &JsValue, what: &str) -> Result<Vec<Value>, JsValue> {
    match opt_json(def, "icons")? {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(js::type_error(&format!("{what}: icons must be an array"))),
    }
}

/// Whether a resource's or prompt's attachment is the registration id `registration`.
fn is_registration(attachment: &Option<Rc<dyn Any>>, registration: u64) -> bool {
    attachment
        .clone()
        .and_then(|a| a.downcast::<u64>().ok())
        .is_some_and(|id| *id == registration)
}

/// `registerTool(name, { title, description, inputSchema, outputSchema, annotations, icons,
/// handler })` → unregister function.
pub fn register_tool(
    inner: &Rc<EngineInner>,
    scope: &Rc<Scope>,
    name: &JsValue,
    def: &JsValue,
) -> Result<Function, JsValue> {
    let (name, what) = begin_registration(scope, "registerTool", "name", name, def)?;
    let f = handler(def, &["handler", "execute"], &what)?;
    let mut annotations = Map::new();
    if let Some(a) = opt_json(def, "annotations")? {
        match a {
            Value::Object(o) => annotations = o,
            _ => {
                return Err(js::type_error(&format!(
                    "{what}: annotations must be an object"
                )))
            }
        }
    }
    let registration = inner.next_registration();
    let (input_schema, standard) = opt_schema(def, "inputSchema", Some("input"))?;
    let f = match standard {
        Some(s) => s.validating(&f)?,
        None => f,
    };
    let data = JsToolData {
        tool: JsTool {
            name: name.as_str().into(),
            f,
        },
        input_schema_json: Default::default(),
        door: Door::Session,
        exposed_to: Vec::new(),
        registration,
    };
    let mut t = data.into_def(opt_string(def, "description")?.unwrap_or_default());
    t.title = opt_string(def, "title")?;
    t.input_schema = input_schema.map(SchemaText::from);
    t.output_schema = opt_schema(def, "outputSchema", Some("output"))?
        .0
        .map(SchemaText::from);
    t.annotations = (!annotations.is_empty()).then(|| Box::new(annotations));
    t.icons = icons(def, &what)?;
    t.meta = opt_json(def, "_meta")?.map(Box::new);
    t.task_support = match opt_string(def, "taskSupport")? {
        None => TaskSupport::Forbidden,
        Some(s) => TaskSupport::parse(&s).ok_or_else(|| {
            js::type_error(&format!(
                "{what}: taskSupport must be \"forbidden\", \"optional\" or \"required\", got {s:?}"
            ))
        })?,
    };
    inner
        .server()
        .register_tool(t)
        .map_err(|e| registry_error_to_js(&e))?;
    Ok(scoped_unregister(
        inner,
        scope,
        |s| &s.tools,
        name,
        registration,
        |inner, name, registration| {
            unregister_if_current(inner, name, registration);
        },
    ))
}

/// Unregisters the resource at `uri` if it is still registration `registration`.
fn unregister_resource_if_current(inner: &EngineInner, uri: &str, registration: u64) {
    let current = inner
        .server()
        .resources()
        .iter()
        .any(|r| r.def.uri == uri && is_registration(&r.def.attachment, registration));
    if current {
        inner.server().unregister_resource(uri);
    }
}

/// Unregisters the prompt `name` if it is still registration `registration`.
fn unregister_prompt_if_current(inner: &EngineInner, name: &str, registration: u64) {
    let current = inner
        .server()
        .prompts()
        .iter()
        .any(|p| p.name == name && is_registration(&p.attachment, registration));
    if current {
        inner.server().unregister_prompt(name);
    }
}

/// `registerResource(uriOrTemplate, { name, title, description, mimeType, size,
/// annotations, icons, handler, complete })` → unregister function.
pub fn register_resource(
    inner: &Rc<EngineInner>,
    scope: &Rc<Scope>,
    uri: &JsValue,
    def: &JsValue,
) -> Result<Function, JsValue> {
    let (uri, what) = begin_registration(scope, "registerResource", "uri", uri, def)?;
    let f = handler(def, &["handler", "read"], &what)?;
    let registration = inner.next_registration();
    let mut r = ResourceDef::new(
        uri.clone(),
        opt_string(def, "name")?.unwrap_or_else(|| uri.clone()),
        JsResource { f },
    );
    r.title = opt_string(def, "title")?;
    r.description = opt_string(def, "description")?;
    r.mime_type = opt_string(def, "mimeType")?;
    r.size = js::get(def, "size")?
        .as_f64()
        .filter(|s| *s >= 0.0)
        .map(|s| s as u64);
    r.annotations = opt_json(def, "annotations")?;
    r.icons = icons(def, &what)?;
    r.meta = opt_json(def, "_meta")?.map(Box::new);
    for (var, f) in completers(def, &what)? {
        r.completers.insert(var, Rc::new(JsCompleter { f }));
    }
    r.attachment = Some(Rc::new(registration));
    inner
        .server()
        .register_resource(r)
        .map_err(|e| registry_error_to_js(&e))?;
    Ok(scoped_unregister(
        inner,
        scope,
        |s| &s.resources,
        uri,
        registration,
        unregister_resource_if_current,
    ))
}

/// `registerPrompt(name, { title, description, arguments, handler, complete })` →
/// unregister function. Without `arguments`, the MCP TypeScript SDK's `argsSchema` (a schema
/// of an object, or the SDK v1's object of schemas) gives them.
pub fn register_prompt(
    inner: &Rc<EngineInner>,
    scope: &Rc<Scope>,
    name: &JsValue,
    def: &JsValue,
) -> Result<Function, JsValue> {
    let (name, what) = begin_registration(scope, "registerPrompt", "name", name, def)?;
    let f = handler(def, &["handler", "get"], &what)?;
    let registration = inner.next_registration();
    let mut p = PromptDef::new(
        name.clone(),
        JsPrompt {
            name: name.clone(),
            f,
        },
    );
    p.title = opt_string(def, "title")?;
    p.description = opt_string(def, "description")?;
    let mut args = js::get(def, "arguments")?;
    if args.is_undefined() || args.is_null() {
        let schema = js::get(def, "argsSchema")?;
        if !schema.is_undefined() && !schema.is_null() {
            args = prompt_arguments(&schema)?;
        }
    }
    if !args.is_undefined() && !args.is_null() {
        if !Array::is_array(&args) {
            return Err(js::type_error(&format!(
                "{what}: arguments must be an array"
            )));
        }
        for a in Array::from(&args).iter() {
            let arg_name = opt_string(&a, "name")?
                .ok_or_else(|| js::type_error(&format!("{what}: every argument needs a name")))?;
            p.arguments.push(PromptArgument {
                name: arg_name,
                title: opt_string(&a, "title")?,
                description: opt_string(&a, "description")?,
                required: js::to_bool(&js::get(&a, "required")?),
            });
        }
    }
    p.icons = icons(def, &what)?;
    p.meta = opt_json(def, "_meta")?.map(Box::new);
    for (arg, f) in completers(def, &what)? {
        p.completers.insert(arg, Rc::new(JsCompleter { f }));
    }
    p.attachment = Some(Rc::new(registration));
    inner
        .server()
        .register_prompt(p)
        .map_err(|e| registry_error_to_js(&e))?;
    Ok(scoped_unregister(
        inner,
        scope,
        |s| &s.prompts,
        name,
        registration,
        unregister_prompt_if_current,
    ))
}

/// Undoes everything `scope` registered.
pub fn close_scope(inner: &EngineInner, scope: &Scope) {
    for (name, reg) in scope.tools.entries.take() {
        unregister_if_current(inner, &name, reg);
    }
    for (uri, reg) in scope.resources.entries.take() {
        unregister_resource_if_current(inner, &uri, reg);
    }
    for (name, reg) in scope.prompts.entries.take() {
        unregister_prompt_if_current(inner, &name, reg);
    }
    for (uri, reg) in scope.skills.entries.take() {
        super::skill_api::unregister_skill_if_current(inner, &uri, reg);
    }
}

/// `notify(method, params)`: resource updates go to their subscribers, log messages
/// through the log filter, anything else to every connected client.
pub fn notify(inner: &EngineInner, method: &JsValue, params: &JsValue) -> Result<(), JsValue> {
    let method = js::to_dom_string(method)?;
    if !method.starts_with("notifications/") {
        return Err(js::type_error(&format!(
            "notify: {method:?} is not a notification method (they start with \"notifications/\")"
        )));
    }
    let params = if params.is_undefined() || params.is_null() {
        None
    } else {
        match js::to_json(params)? {
            Some(v @ Value::Object(_)) => Some(v),
            _ => return Err(js::type_error("notify: params must be an object")),
        }
    };
    match method.as_str() {
        "notifications/resources/updated" => {
            let uri = params
                .as_ref()
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
                .ok_or_else(|| js::type_error("notify: resources/updated needs params.uri"))?;
            inner.server().resource_updated(uri);
        }
        "notifications/message" => {
            let p = params.unwrap_or_default();
            let level = p
                .get("level")
                .and_then(Value::as_str)
                .and_then(LogLevel::parse)
                .ok_or_else(|| {
                    js::type_error("notify: notifications/message needs a valid params.level")
                })?;
            inner.server().log(
                level,
                p.get("logger").and_then(Value::as_str),
                p.get("data").cloned().unwrap_or(Value::Null),
            );
        }
        _ => inner.server().broadcast(&method, params),
    }
    Ok(())
}

/// Beyond the spec: the `tools` policy (`super::frames::policy`) governs the session API's
/// registrations as it governs `registerTool(tool)`; a document without the feature registers
/// nothing through either (`NotAllowedError`). These methods answer at once, so while the
/// document still waits for its cross-origin embedder's answer the registration is made, and
/// withdrawn, with a console warning, if the answer is no.
fn policed(
    inner: &Rc<EngineInner>,
    what: &JsValue,
    register: impl FnOnce() -> Result<Function, JsValue>,
) -> Result<Function, JsValue> {
    super::frames::check_policy(inner)?;
    let unregister = register()?;
    let undo = unregister.clone();
    let what = what.as_string().unwrap_or_default();
    super::frames::with_policy(inner, move |_, allowed| {
        if !allowed {
            let _ = undo.call0(&JsValue::UNDEFINED);
            js::warn(&format!(
                "modelcontext-polyfill: {what:?} was withdrawn: this document does not have \
                 the tools feature (Permissions Policy)"
            ));
        }
    });
    Ok(unregister)
}

/// A session opened with `modelContext.connect(options)`.
#[wasm_bindgen]
pub struct ModelContextSession {
    inner: Rc<EngineInner>,
    scope: Rc<Scope>,
    connection: RefCell<Option<crate::transport::Connection>>,
    /// `session.transport`: the transport object (`null` on the default tab server).
    transport: JsValue,
}

#[wasm_bindgen]
impl ModelContextSession {
    /// `session.registerTool(name, def)`: a tool this session owns; returns its unregister
    /// function.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, name: JsValue, def: JsValue) -> Result<Function, JsValue> {
        policed(&self.inner, &name, || {
            register_tool(&self.inner, &self.scope, &name, &def)
        })
    }

    /// `session.registerResource(uri, def)`: a resource (or a template, when `uri` has
    /// `{variables}`) this session owns; returns its unregister function.
    #[wasm_bindgen(js_name = registerResource)]
    pub fn register_resource(&self, uri: JsValue, def: JsValue) -> Result<Function, JsValue> {
        policed(&self.inner, &uri, || {
            register_resource(&self.inner, &self.scope, &uri, &def)
        })
    }

    /// `session.registerPrompt(name, def)`: a prompt this session owns; returns its unregister
    /// function.
    #[wasm_bindgen(js_name = registerPrompt)]
    pub fn register_prompt(&self, name: JsValue, def: JsValue) -> Result<Function, JsValue> {
        policed(&self.inner, &name, || {
            register_prompt(&self.inner, &self.scope, &name, &def)
        })
    }

    /// `session.registerSkill(name, def)`: a skill (the Skills extension) this session owns;
    /// returns its unregister function.
    #[wasm_bindgen(js_name = registerSkill)]
    pub fn register_skill(&self, name: JsValue, def: JsValue) -> Result<Function, JsValue> {
        policed(&self.inner, &name, || {
            super::skill_api::register_skill(&self.inner, &self.scope, &name, &def)
        })
    }

    /// `session.notify(method, params)`: see [`notify`].
    pub fn notify(&self, method: JsValue, params: JsValue) -> Result<(), JsValue> {
        check_open(&self.scope)?;
        notify(&self.inner, &method, &params)
    }

    /// The transport object this session serves on (see `transport/classes.rs`), or `null`
    /// when it rides the default tab server.
    #[wasm_bindgen(getter)]
    pub fn transport(&self) -> JsValue {
        self.transport.clone()
    }

    /// Not disconnected, and its transport (if it has its own) still serves.
    #[wasm_bindgen(js_name = isConnected)]
    pub fn is_connected(&self) -> bool {
        !self.scope.closed.get()
            && self
                .connection
                .borrow()
                .as_ref()
                .is_none_or(|c| c.is_open())
    }

    /// Unregisters everything this session registered and closes its transport.
    /// Idempotent.
    pub fn disconnect(&self) {
        if !self.scope.closed.replace(true) {
            close_scope(&self.inner, &self.scope);
            if let Some(c) = self.connection.borrow_mut().take() {
                c.close();
            }
        }
    }
}

#[wasm_bindgen]
impl Engine {
    /// `modelContext.registerTool(name, def)` (session-API form).
    #[wasm_bindgen(js_name = registerToolDef)]
    pub fn register_tool_def(&self, name: JsValue, def: JsValue) -> Result<Function, JsValue> {
        policed(&self.inner, &name, || {
            register_tool(&self.inner, &self.inner.state::<Scope>(), &name, &def)
        })
    }

    /// `modelContext.registerResource(uri, def)` (session-API form, owned by the page).
    #[wasm_bindgen(js_name = registerResource)]
    pub fn register_resource(&self, uri: JsValue, def: JsValue) -> Result<Function, JsValue> {
        policed(&self.inner, &uri, || {
            register_resource(&self.inner, &self.inner.state::<Scope>(), &uri, &def)
        })
    }

    /// `modelContext.registerPrompt(name, def)` (session-API form, owned by the page).
    #[wasm_bindgen(js_name = registerPrompt)]
    pub fn register_prompt(&self, name: JsValue, def: JsValue) -> Result<Function, JsValue> {
        policed(&self.inner, &name, || {
            register_prompt(&self.inner, &self.inner.state::<Scope>(), &name, &def)
        })
    }

    /// `modelContext.registerSkill(name, def)` (the Skills extension, owned by the page).
    #[wasm_bindgen(js_name = registerSkill)]
    pub fn register_skill(&self, name: JsValue, def: JsValue) -> Result<Function, JsValue> {
        policed(&self.inner, &name, || {
            super::skill_api::register_skill(&self.inner, &self.inner.state::<Scope>(), &name, &def)
        })
    }

    /// `modelContext.notify(method, params)`: see [`notify`].
    pub fn notify(&self, method: JsValue, params: JsValue) -> Result<(), JsValue> {
        notify(&self.inner, &method, &params)
    }

    /// `connect({ serverInfo })` → a session. Starts the default tab server if stopped.
    /// Beyond the spec: a document without the `tools` feature gets `NotAllowedError`, once
    /// its policy is known (see `policed`).
    pub fn connect(&self, options: JsValue) -> Promise {
        let me = Engine {
            inner: self.inner.clone(),
        };
        super::webmcp::after_policy(&self.inner, move || {
            match super::frames::check_policy(&me.inner) {
                Ok(()) => me.connect_now(options),
                Err(e) => Promise::reject(&e.into()),
            }
        })
    }

    fn connect_now(&self, options: JsValue) -> Promise {
        let r = (|| -> Result<(ModelContextSession, Option<Promise>), JsValue> {
            if !(options.is_undefined() || options.is_null() || options.is_object()) {
                return Err(js::type_error(
                    "connect(options): options must be an object",
                ));
            }
            let info = server_info_from_js(
                &js::get(&options, "serverInfo")?,
                self.inner.server().info(),
            )?;
            let transport = js::get(&options, "transport")?;
            // Without a transport the session rides the default tab server; with one, the
            // session owns that transport and closes it on disconnect.
            let connection = if transport.is_undefined() {
                self.start_tab()?;
                None
            } else {
                Some(crate::transport::open(self.inner.server(), &transport)?)
            };
            self.inner.server().set_info(info);
            self.inner.state::<Scope>().closed.set(false);
            let transport = connection.as_ref().map_or(JsValue::NULL, |c| c.transport());
            // Some transports are ready only after a handshake (iframeParent).
            let ready = connection.as_ref().and_then(|c| c.ready());
            Ok((
                ModelContextSession {
                    inner: self.inner.clone(),
                    scope: Rc::new(Scope::default()),
                    connection: RefCell::new(connection),
                    transport,
                },
                ready,
            ))
        })();
        match r {
            Ok((s, None)) => Promise::resolve(&JsValue::from(s)),
            Ok((s, Some(ready))) => wasm_bindgen_futures::future_to_promise(async move {
                wasm_bindgen_futures::JsFuture::from(ready).await?;
                Ok(JsValue::from(s))
            }),
            Err(e) => Promise::reject(&e),
        }
    }

    /// `modelContext.disconnect()`: unregisters what was registered through the
    /// session-API methods on `modelContext` and stops the default tab server.
    pub fn disconnect(&self) {
        close_scope(&self.inner, &self.inner.state::<Scope>());
        self.stop_tab();
    }

    /// Whether the default tab server is running.
    #[wasm_bindgen(js_name = isConnected)]
    pub fn is_connected(&self) -> bool {
        self.inner.tab_running()
    }
}

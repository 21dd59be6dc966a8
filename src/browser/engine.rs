//! The per-realm engine behind one `ModelContext` object: the MCP server, the event
//! target, the task queue, and the default tab transport.

use js_sys::{Function, Reflect};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::DomError;
use super::runtime::{BrowserRuntime, TaskQueue};
use crate::js;
use crate::server::{ListKind, RegistryError, Server, ServerConfig, ServerInfo};
use crate::transport::persist::{self, TabConfig};
use crate::transport::Running;

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
    /// A `<form toolname>` (the declarative API, `forms.rs`).
    Form,
}

/// What the browser layer keeps with each tool (the registry's attachment).
pub struct JsToolData {
    /// The page function to run.
    pub execute: Function,
    /// The input schema as `JSON.stringify` produced it (W3C step 5).
    pub input_schema_json: Option<String>,
    pub door: Door,
    /// Unique per registration, so a stale `AbortSignal` cannot remove a newer tool.
    pub registration: u64,
}

pub struct EngineInner {
    pub server: Server,
    /// The `ModelContext` object events are fired at.
    pub target: web_sys::EventTarget,
    pub activated_event: Function,
    pub cancel_event: Function,
    pub tasks: TaskQueue,
    pub global: JsValue,
    pub origin: String,
    pub tool_change_callbacks: RefCell<Vec<Function>>,
    pub tab: RefCell<Option<Box<dyn Running>>>,
    pub tab_options: RefCell<TabConfig>,
    /// What the session-API methods on `modelContext` itself registered.
    pub default_scope: Rc<super::session_api::Scope>,
    /// The declarative API, once started (`forms.rs`).
    pub forms: RefCell<Option<Rc<super::forms::Forms>>>,
    /// Skill URI → the registration that holds it (`skill_api.rs`).
    pub skills: RefCell<std::collections::HashMap<String, u64>>,
    next_registration: Cell<u64>,
}

impl EngineInner {
    pub fn next_registration(&self) -> u64 {
        let n = self.next_registration.get() + 1;
        self.next_registration.set(n);
        n
    }

    /// Warns once per `key` (deprecated methods).
    pub fn warn_once(&self, key: &'static str, message: &str) {
        js::warn_once(key, message);
    }

    /// The data the browser layer attached to tool `name`.
    pub fn tool_data(
        &self,
        name: &str,
    ) -> Option<(Rc<crate::server::registry::Tool>, Rc<JsToolData>)> {
        let tool = self.server.tool(name)?;
        let data = tool
            .def
            .attachment
            .clone()
            .and_then(|a| a.downcast::<JsToolData>().ok())?;
        Some((tool, data))
    }

    /// `new <EventClass>(type, { toolName })`, dispatched at the ModelContext and, when
    /// `also_global`, at the global object.
    pub fn fire_tool_event(
        &self,
        class: &Function,
        kind: &str,
        tool_name: &str,
        also_global: bool,
    ) {
        let init: JsValue = js::object().into();
        js::set(&init, "toolName", &JsValue::from_str(tool_name));
        let args = js_sys::Array::of2(&JsValue::from_str(kind), &init);
        if let Ok(ev) = Reflect::construct(class, &args) {
            if let Ok(ev) = ev.dyn_into::<web_sys::Event>() {
                let _ = self.target.dispatch_event(&ev);
            }
        }
        if also_global {
            if let Ok(ev) = Reflect::construct(class, &args) {
                if let (Ok(ev), Some(t)) = (
                    ev.dyn_into::<web_sys::Event>(),
                    self.global.dyn_ref::<web_sys::EventTarget>(),
                ) {
                    let _ = t.dispatch_event(&ev);
                }
            }
        }
    }

    fn tools_changed(self: &Rc<Self>) {
        let me = self.clone();
        self.tasks.queue(move || {
            if let Ok(ev) = web_sys::Event::new("toolchange") {
                let _ = me.target.dispatch_event(&ev);
            }
            let callbacks = me.tool_change_callbacks.borrow().clone();
            for cb in callbacks {
                let _ = cb.call0(&JsValue::UNDEFINED);
            }
        });
    }
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

fn global_origin(global: &JsValue) -> String {
    js::get(global, "origin")
        .ok()
        .and_then(|o| o.as_string())
        .unwrap_or_else(|| "null".into())
}

/// Reads `modelContextPolyfillConfig.limits`: `{ maxInFlight, maxQueued, maxQueuedBytes,
/// maxMessageBytes, maxDepth, toolTimeoutMs, pageSize }`, each optional (a positive number; `toolTimeoutMs` also `null`
/// for none). They apply to every session of every transport (`server::Limits`).
pub fn server_config_from_js(v: &JsValue) -> Result<ServerConfig, JsValue> {
    const CTX: &str = "modelContextPolyfillConfig.limits";
    let mut c = ServerConfig::default();
    if v.is_undefined() || v.is_null() {
        return Ok(c);
    }
    if !v.is_object() {
        return Err(js::type_error(&format!("{CTX} must be an object")));
    }
    let count = |key: &str| -> Result<Option<usize>, JsValue> {
        let n = js::get(v, key)?;
        if n.is_undefined() {
            return Ok(None);
        }
        match n.as_f64() {
            Some(f) if f.is_finite() && f >= 1.0 && f.fract() == 0.0 => Ok(Some(f as usize)),
            _ => Err(js::type_error(&format!(
                "{CTX}.{key} must be a positive integer, got {}",
                js::to_dom_string(&n).unwrap_or_default()
            ))),
        }
    };
    let l = &mut c.limits;
    l.max_in_flight = count("maxInFlight")?.unwrap_or(l.max_in_flight);
    l.max_queued = match js::get(v, "maxQueued")?.as_f64() {
        // 0: nothing waits; past `maxInFlight` calls are refused.
        Some(0.0) => 0,
        _ => count("maxQueued")?.unwrap_or(l.max_queued),
    };
    l.max_queued_bytes = count("maxQueuedBytes")?.unwrap_or(l.max_queued_bytes);
    l.max_message_bytes = count("maxMessageBytes")?.unwrap_or(l.max_message_bytes);
    l.max_depth = count("maxDepth")?.unwrap_or(l.max_depth);
    c.page_size = count("pageSize")?.unwrap_or(c.page_size);
    if !js::get(v, "toolTimeoutMs")?.is_null() {
        c.tool_timeout_ms = count("toolTimeoutMs")?.map(|n| n as u64);
    }
    Ok(c)
}

/// Reads `{ name, version, title, description, websiteUrl, instructions }`.
pub fn server_info_from_js(v: &JsValue, fallback: ServerInfo) -> Result<ServerInfo, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(fallback);
    }
    let s = |k: &str| -> Result<Option<String>, JsValue> {
        let x = js::get(v, k)?;
        if x.is_undefined() || x.is_null() {
            Ok(None)
        } else {
            js::to_dom_string(&x).map(Some)
        }
    };
    Ok(ServerInfo {
        name: s("name")?.unwrap_or(fallback.name),
        version: s("version")?.unwrap_or(fallback.version),
        title: s("title")?.or(fallback.title),
        description: s("description")?.or(fallback.description),
        website_url: s("websiteUrl")?.or(fallback.website_url),
        icons: match js::get(v, "icons")? {
            x if x.is_undefined() || x.is_null() => fallback.icons,
            x => match js::to_json(&x)? {
                Some(Value::Array(a)) => a,
                _ => return Err(js::type_error("serverInfo.icons must be an array")),
            },
        },
        instructions: s("instructions")?.or(fallback.instructions),
    })
}

/// The engine behind one `ModelContext`. Created by the polyfill's installer.
#[wasm_bindgen]
pub struct Engine {
    pub(crate) inner: Rc<EngineInner>,
}

#[wasm_bindgen]
impl Engine {
    /// `new Engine(modelContext, { ToolActivatedEvent, ToolCancelEvent, serverInfo, tab, limits, native })`
    /// where `tab` is `false` (no default tab server) or `{ channelId, allowedOrigins,
    /// rateLimit, maxMessageBytes, persist, … }` (`persist::TabConfig`), and
    /// `native` is the browser's own `document.modelContext`, if any (see `native.rs`).
    #[wasm_bindgen(constructor)]
    pub fn new(target: web_sys::EventTarget, config: JsValue) -> Result<Engine, JsValue> {
        let global = js_sys::global().into();
        js::remember_constructors(&global);
        let origin = global_origin(&global);
        let default_name = js::get(&global, "location")
            .ok()
            .and_then(|l| js::get(&l, "host").ok())
            .and_then(|h| h.as_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "modelcontext-polyfill".into());
        let info = server_info_from_js(
            &js::get(&config, "serverInfo")?,
            ServerInfo::new(default_name, env!("CARGO_PKG_VERSION")),
        )?;
        // The validator loads when a tool first needs it (super::validator).
        let (compiler, lazy_validator) = super::validator::engine_compiler(&config)?;
        let server_config =
            server_config_from_js(&js::get(&config, "limits")?).unwrap_or_else(|e| {
                // Bad limits cost the page its settings, not the polyfill.
                js::warn(&format!(
                    "modelcontext-polyfill: {}; using the default limits",
                    js::error_message(&e)
                ));
                ServerConfig::default()
            });
        let server = Server::new(info, server_config, Rc::new(BrowserRuntime), compiler);
        if let Some(lazy) = &lazy_validator {
            lazy.report_to_console(&server);
        }
        // A random key for signing the requestState of input-required results.
        if let Some(key) = random_bytes(&global, 32) {
            server.set_state_key(&key);
        }
        let class = |k: &str| -> Result<Function, JsValue> {
            js::get(&config, k)?
                .dyn_into::<Function>()
                .map_err(|_| js::type_error(&format!("Engine needs the {k} class")))
        };
        let tab_config = js::get(&config, "tab")?;
        let mut tab_options = TabConfig::from_js(&tab_config, "modelContextPolyfillConfig.tab")
            .unwrap_or_else(|e| {
                // Bad tab options cost the default tab server, not the whole polyfill.
                js::warn(&format!(
                    "modelcontext-polyfill: the default tab transport did not start: {}",
                    js::error_message(&e)
                ));
                TabConfig::from_js(&JsValue::FALSE, "").expect("false is valid")
            });
        if web_sys::window().is_none() {
            // Workers have no window to post to; they serve over explicit transports.
            tab_options.tab.enabled = false;
        }
        let inner = Rc::new(EngineInner {
            server,
            target,
            activated_event: class("ToolActivatedEvent")?,
            cancel_event: class("ToolCancelEvent")?,
            tasks: TaskQueue::new()?,
            global,
            origin,
            tool_change_callbacks: RefCell::new(Vec::new()),
            tab: RefCell::new(None),
            tab_options: RefCell::new(tab_options),
            default_scope: Rc::new(Default::default()),
            forms: RefCell::new(None),
            skills: RefCell::new(Default::default()),
            next_registration: Cell::new(0),
        });
        let weak = Rc::downgrade(&inner);
        inner.server.observe(move |kind| {
            if kind == ListKind::Tools {
                if let Some(me) = weak.upgrade() {
                    me.tools_changed();
                }
            }
        });
        if let Some(native) = super::native::native_from_config(&config) {
            super::native::NativeBridge::attach(&inner, native);
        }
        let engine = Engine { inner };
        if let Err(e) = engine.start_tab() {
            js::warn(&format!(
                "modelcontext-polyfill: the default tab transport did not start: {}",
                js::error_message(&e)
            ));
        }
        Ok(engine)
    }

    /// Starts the default tab server (if enabled and not running).
    #[wasm_bindgen(js_name = startTab)]
    pub fn start_tab(&self) -> Result<(), JsValue> {
        let opts = self.inner.tab_options.borrow().clone();
        if !opts.tab.enabled || self.inner.tab.borrow().is_some() {
            return Ok(());
        }
        let tab = persist::start(&self.inner.server, opts)?.running;
        *self.inner.tab.borrow_mut() = Some(tab);
        Ok(())
    }

    /// Stops the default tab server (posts `mcp-server-stopped`).
    #[wasm_bindgen(js_name = stopTab)]
    pub fn stop_tab(&self) {
        if let Some(tab) = self.inner.tab.borrow_mut().take() {
            tab.stop();
        }
    }

    /// Opens an MCP session whose outgoing JSON text goes to `sink(text)`; for transports
    /// and tests.
    #[wasm_bindgen(js_name = openSession)]
    pub fn open_session(&self, sink: Function) -> McpSession {
        let session = self.inner.server.connect(move |text| {
            let _ = sink.call1(&JsValue::UNDEFINED, &JsValue::from_str(&text));
        });
        McpSession { session }
    }
}

/// One MCP session on the page's server, for transports written in JS and for tests.
#[wasm_bindgen]
pub struct McpSession {
    session: crate::server::Session,
}

#[wasm_bindgen]
impl McpSession {
    /// Feeds one incoming message (JSON text).
    pub fn receive(&self, text: &str) {
        self.session.receive(text);
    }

    pub fn close(&self) {
        self.session.close();
    }

    #[wasm_bindgen(js_name = isClosed)]
    pub fn is_closed(&self) -> bool {
        self.session.is_closed()
    }
}

/// `n` bytes from `crypto.getRandomValues`, when the global has it.
fn random_bytes(global: &JsValue, n: u32) -> Option<Vec<u8>> {
    let crypto = js::get(global, "crypto").ok().filter(|c| c.is_object())?;
    let get = js::get(&crypto, "getRandomValues")
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    let bytes = js_sys::Uint8Array::new_with_length(n);
    get.call1(&crypto, &bytes).ok()?;
    Some(bytes.to_vec())
}

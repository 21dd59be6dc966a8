//! Making the engine for a `ModelContext`: reading the installer's config (server info,
//! limits, the default tab server, the native `document.modelContext`), wiring the server,
//! its validator and the native bridge, and starting the default tab server; and raw MCP
//! sessions for transports written in JS.

use js_sys::Function;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::{Engine, EngineInner, ToolEvents};
use super::runtime::BrowserRuntime;
use crate::js;
use crate::server::{Server, ServerConfig, ServerInfo};
use crate::transport::persist::TabConfig;

/// Reads `modelContextPolyfillConfig.limits`: `{ maxInFlight, maxQueued, maxQueuedBytes,
/// maxMessageBytes, maxMessageValues, maxDepth, toolTimeoutMs, pageSize,
/// listChangedIntervalMs }`, each optional (a positive number; `toolTimeoutMs` also `null`
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
    let count = |key: &'static str| -> Result<Option<usize>, JsValue> {
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
    // A count for which 0 means something (none at all).
    let count_or_zero = |key: &'static str| -> Result<Option<usize>, JsValue> {
        match js::get(v, key)?.as_f64() {
            Some(0.0) => Ok(Some(0)),
            _ => count(key),
        }
    };
    let l = &mut c.limits;
    l.max_in_flight = count("maxInFlight")?.unwrap_or(l.max_in_flight);
    // 0: nothing waits; past `maxInFlight` calls are refused.
    l.max_queued = count_or_zero("maxQueued")?.unwrap_or(l.max_queued);
    l.max_queued_bytes = count("maxQueuedBytes")?.unwrap_or(l.max_queued_bytes);
    l.max_message_bytes = count("maxMessageBytes")?.unwrap_or(l.max_message_bytes);
    l.max_depth = count("maxDepth")?.unwrap_or(l.max_depth);
    l.max_values = count("maxMessageValues")?.unwrap_or(l.max_values);
    c.page_size = count("pageSize")?.unwrap_or(c.page_size);
    if !js::get(v, "toolTimeoutMs")?.is_null() {
        c.tool_timeout_ms = count("toolTimeoutMs")?.map(|n| n as u64);
    }
    // 0: each turn's changes are announced at once.
    c.list_changed_interval_ms =
        count_or_zero("listChangedIntervalMs")?.map_or(c.list_changed_interval_ms, |n| n as u64);
    Ok(c)
}

/// Reads `{ name, version, title, description, websiteUrl, instructions }`.
pub fn server_info_from_js(v: &JsValue, fallback: ServerInfo) -> Result<ServerInfo, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(fallback);
    }
    let s = |k: &'static str| -> Result<Option<String>, JsValue> {
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
        let default_name = js::get(&global, "location")
            .ok()
            .and_then(|l| js::get(&l, "host").ok())
            .and_then(|h| h.as_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "modelcontext-polyfill".into());
        let defaults = || ServerInfo::new(default_name.clone(), env!("CARGO_PKG_VERSION"));
        let info = server_info_from_js(&js::get(&config, "serverInfo")?, defaults())
            .unwrap_or_else(|e| {
                // A bad serverInfo costs the page its server's description, not the polyfill.
                js::warn(&format!(
                    "modelcontext-polyfill: {}; using the default serverInfo",
                    js::error_message(&e)
                ));
                defaults()
            });
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
        let function = |k: &'static str, what: &str| -> Result<Function, JsValue> {
            js::get(&config, k)?
                .dyn_into::<Function>()
                .map_err(|_| js::type_error(&format!("Engine needs the {k} {what}")))
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
        let events = ToolEvents {
            activated: function("ToolActivatedEvent", "class")?,
            cancel: function("ToolCancelEvent", "class")?,
            fire: function("fireToolEvent", "function")?.unchecked_into(),
        };
        super::js_handler::use_call_options(&config)?;
        js::use_message_gate(&config);
        crate::wire::mcpb::use_post_envelope(&config);
        js::wait::use_await_settled(&config);
        super::js_handler::use_clones_as_json(&config);
        crate::transport::guard::use_message_text(&config)?;
        crate::transport::emitter::use_create_emitter(&config)?;
        super::forms::use_form_changes(&config);
        super::forms::use_shadow_roots(&config);
        super::runtime::use_task_channel(&config);
        super::store::use_schema_helpers(&config);
        super::webmcp::use_registered_tool(&config)?;
        let inner = EngineInner::new(server, target, events, global, tab_options)?;
        super::frames::attach(&inner, super::webmcp::execute);
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
        self.inner.start_tab()
    }

    /// Stops the default tab server (posts `mcp-server-stopped`).
    #[wasm_bindgen(js_name = stopTab)]
    pub fn stop_tab(&self) {
        self.inner.stop_tab()
    }

    /// Opens an MCP session whose outgoing JSON text goes to `sink(text)`; for transports
    /// and tests.
    #[wasm_bindgen(js_name = openSession)]
    pub fn open_session(&self, sink: Function) -> McpSession {
        let session = self.inner.server().connect(move |text| {
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

    /// Closes the session (see [`crate::server::Session::close`]).
    pub fn close(&self) {
        self.session.close();
    }

    /// Whether the session is closed (see [`crate::server::Session::is_closed`]).
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

//! Living beside a native `document.modelContext` (Chromium with `--enable-features=WebMCP`).
//!
//! The polyfill never replaces the browser's object: `document.modelContext` stays native and
//! `navigator.modelContext` is the polyfill's. The two registries are kept in step, both ways:
//!
//! - **Polyfill → native.** Every tool in the engine that did not come from the native object
//!   (W3C `registerTool` on `navigator.modelContext`, the session API, `provideContext`) is
//!   registered on the native object too, with an `AbortSignal` this bridge aborts when the
//!   tool leaves the engine; the mirrored `execute` validates the input and calls the page's
//!   own function. So the browser's agent sees the polyfill's tools.
//! - **Native → polyfill.** On every native `toolchange` (and once at start) the bridge reads
//!   the native `getTools()` and registers, for each tool it did not mirror itself, a proxy in
//!   the engine whose handler calls native `executeTool`. So MCP clients of the page's server
//!   see the tools a page registered directly on the native object.
//!
//! Names are one namespace: a name already taken on the other side is skipped (with a console
//! warning when the browser refuses a mirror).

use crate::collections::{VecMap, VecSet};
use js_sys::{Function, Promise, Reflect};
use serde_json::Value;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::engine::EngineInner;
use super::js_handler::{call_options, invoke, JsTool};
use super::store::{
    register_lenient, stored_schema, unregister_if_current, Door, JsToolData, WEBMCP_HINTS,
};
use crate::js;
use crate::js::DomError;
use crate::js::Listener;
use crate::server::registry::Tool;
use crate::server::{CancellationToken, ListKind, RequestContext, SchemaText};
use crate::transport::held;

/// The bridge between one engine and the native `ModelContext`.
pub struct NativeBridge {
    inner: Weak<EngineInner>,
    /// The browser's own `ModelContext` (`document.modelContext`).
    native: JsValue,
    /// Engine tools registered on the native object: name → (registration, the controller
    /// whose signal unregisters the native copy).
    mirrored: RefCell<VecMap<String, (u64, web_sys::AbortController)>>,
    /// Native tools served through the engine: name → registration of the proxy.
    proxies: RefCell<VecMap<String, u64>>,
    /// A mirror pass is queued.
    mirror_queued: Cell<bool>,
    /// A pass over the native tools is running; `again` asks it to run once more.
    reading: Cell<bool>,
    again: Cell<bool>,
    /// The native object's `toolchange` listener, removed when the bridge goes.
    on_toolchange: RefCell<Option<Listener>>,
    /// The native `executeTool` takes its input as JSON text, as Chromium 154 did and
    /// `@mcp-b/webmcp-polyfill` does, not as an object (Chromium 155 on); found on the first
    /// call it refuses (see [`text_form_refusal`]: `@mcp-b/webmcp-polyfill`'s refusal, the one
    /// this machine can run).
    text_input: Rc<Cell<bool>>,
}

/// Whether `e`, a native `executeTool`'s rejection, refuses an object input before running
/// anything, as an implementation that takes JSON text does: `@mcp-b/webmcp-polyfill` rejects
/// with an `UnknownError` "Failed to parse input arguments", having looked the tool up and
/// parsed nothing else. The call is then made again with the input as text, so the message
/// must be that one exactly: a tool's own failure must never run the tool twice.
fn text_form_refusal(e: &JsValue) -> bool {
    js::get_string(e, "message").as_deref() == Some("Failed to parse input arguments")
}

/// Calls `obj[method](...args)`.
fn call_method(obj: &JsValue, method: &'static str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = js::get(obj, method)?
        .dyn_into()
        .map_err(|_| js::type_error(&format!("the native modelContext has no {method}()")))?;
    f.apply(obj, &args.iter().collect::<js_sys::Array>())
}

impl NativeBridge {
    /// Starts bridging `inner`'s engine with `native`. The engine's server keeps the bridge
    /// (through the registry observer added here) for the engine's lifetime; the bridge keeps
    /// its native `toolchange` listener, which holds it only weakly.
    pub fn attach(inner: &Rc<EngineInner>, native: JsValue) -> Rc<NativeBridge> {
        let bridge = Rc::new(NativeBridge {
            inner: Rc::downgrade(inner),
            native,
            mirrored: RefCell::new(VecMap::new()),
            proxies: RefCell::new(VecMap::new()),
            mirror_queued: Cell::new(false),
            reading: Cell::new(false),
            again: Cell::new(false),
            on_toolchange: RefCell::new(None),
            text_input: Rc::new(Cell::new(false)),
        });
        // Polyfill → native: after every change to the engine's tools.
        let b = bridge.clone();
        inner.server().observe(move |kind| {
            if kind == ListKind::Tools {
                b.queue_mirror();
            }
        });
        // Native → polyfill: on every native toolchange, and now.
        if bridge.native.dyn_ref::<web_sys::EventTarget>().is_some() {
            let b = Rc::downgrade(&bridge);
            let listener = Listener::dom(&bridge.native, "toolchange", move |_, _| {
                if let Some(b) = b.upgrade() {
                    b.read_native();
                }
            });
            *bridge.on_toolchange.borrow_mut() = listener.ok();
        }
        bridge.clone().read_native();
        bridge.queue_mirror();
        bridge
    }

    // ---- polyfill → native ------------------------------------------------------------

    /// Runs [`NativeBridge::mirror`] in a microtask (one pass for a burst of changes), once the
    /// core's deferred module, which holds it, has arrived (`held::after_deferred`; the page's
    /// start and registrations go on meanwhile).
    fn queue_mirror(self: &Rc<Self>) {
        if self.mirror_queued.replace(true) {
            return;
        }
        let me = self.clone();
        held::after_deferred(move || {
            js::spawn(async move {
                me.mirror_queued.set(false);
                me.mirror();
            })
        });
    }

    /// Brings the native object's copies in line with the engine's own tools.
    fn mirror(self: &Rc<Self>) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        // Unregister copies whose tool left the engine (or was replaced).
        let stale: Vec<String> = self
            .mirrored
            .borrow()
            .iter()
            .filter(|(name, (reg, _))| {
                !matches!(inner.tool_data(name), Some((_, d)) if d.registration == *reg)
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in stale {
            if let Some((_, controller)) = self.mirrored.borrow_mut().remove(&name) {
                controller.abort();
            }
        }
        // Register copies of the engine's tools that are not yet mirrored (proxies of
        // native tools excepted: they are native already).
        for tool in inner.server().tools() {
            let Some((_, data)) = inner.tool_data(&tool.def.name) else {
                continue;
            };
            if data.door == Door::Native || self.mirrored.borrow().contains_key(&tool.def.name) {
                continue;
            }
            if let Err(e) = self.register_copy(&tool, &data) {
                js::warn(&format!(
                    "modelcontext-polyfill: could not register tool {:?} with the browser's modelContext: {}",
                    tool.def.name,
                    js::error_message(&e)
                ));
            }
        }
    }

    /// `native.registerTool(copy, { signal })` for one engine tool.
    fn register_copy(self: &Rc<Self>, tool: &Tool, data: &JsToolData) -> Result<(), JsValue> {
        let name = tool.def.name.clone();
        let registration = data.registration;
        let dict: JsValue = js::object().into();
        js::set(&dict, "name", &JsValue::from_str(&name));
        // The browser requires a description; the session API does not.
        let description = [
            Some(tool.def.description.as_str()),
            tool.def.title.as_deref(),
            Some(name.as_str()),
        ]
        .into_iter()
        .flatten()
        .find(|s| !s.is_empty())
        .unwrap_or_default();
        js::set(&dict, "description", &JsValue::from_str(description));
        if let Some(title) = &tool.def.title {
            js::set(&dict, "title", &JsValue::from_str(title));
        }
        if let Some(text) = stored_schema(tool) {
            js::set(&dict, "inputSchema", &js::parse(&text)?);
        }
        if let Some(given) = &tool.def.annotations {
            let ann: JsValue = js::object().into();
            for k in WEBMCP_HINTS {
                if let Some(b) = given.get(k).and_then(Value::as_bool) {
                    js::set(&ann, k, &JsValue::from_bool(b));
                }
            }
            js::set(&dict, "annotations", &ann);
        }
        js::set(
            &dict,
            "execute",
            &self.mirrored_execute(&name, registration),
        );
        let controller = web_sys::AbortController::new()?;
        let signal = controller.signal();
        let options: JsValue = js::object().into();
        js::set(&options, "signal", &signal);
        self.mirrored
            .borrow_mut()
            .insert(name.clone(), (registration, controller));
        let promise: Promise = call_method(&self.native, "registerTool", &[dict, options])?
            .dyn_into()
            .map_err(|_| js::type_error("native registerTool did not return a promise"))?;
        // A refusal (say, the name is taken natively) forgets the copy; a rejection
        // because we aborted the signal is the normal end of a copy.
        let me = Rc::downgrade(self);
        js::spawn(async move {
            let Err(e) = JsFuture::from(promise).await else {
                return;
            };
            if signal.aborted() {
                return;
            }
            if let Some(me) = me.upgrade() {
                let ours =
                    matches!(me.mirrored.borrow().get(&name), Some((r, _)) if *r == registration);
                if ours {
                    me.mirrored.borrow_mut().remove(&name);
                }
            }
            js::warn(&format!(
                "modelcontext-polyfill: the browser's modelContext refused tool {name:?}: {}",
                js::error_message(&e)
            ));
        });
        Ok(())
    }

    /// The `execute` of a mirrored tool: validate the input, then call the page's function
    /// for tool `name` (if it is still registration `registration`).
    fn mirrored_execute(&self, name: &str, registration: u64) -> JsValue {
        let inner = self.inner.clone();
        let name = name.to_string();
        let f = Closure::<dyn Fn(JsValue, JsValue) -> Promise>::new(
            move |input: JsValue, options: JsValue| -> Promise {
                let Some(inner) = inner.upgrade() else {
                    return Promise::reject(
                        &DomError::Unknown("The page is gone.".into()).into_js(),
                    );
                };
                let Some((tool, data)) = inner
                    .tool_data(&name)
                    .filter(|(_, d)| d.registration == registration)
                else {
                    return Promise::reject(
                        &DomError::Unknown(format!("No tool named {name:?} is available."))
                            .into_js(),
                    );
                };
                // Beyond the spec, as on every path: validate against the input schema.
                let args = match js::to_json(&input) {
                    Ok(Some(v)) => v,
                    Ok(None) => Value::Object(Default::default()),
                    Err(e) => return Promise::reject(&e),
                };
                // (While the validator module loads, the check waits for it, below.)
                let validator = tool
                    .input
                    .as_ref()
                    .and_then(|_| inner.server().validator_ready_for(&tool));
                if validator.is_none() {
                    if let Err(e) = super::store::check_input(&tool, &name, &args) {
                        return Promise::reject(&e.into_js());
                    }
                }
                let signal = js::get(&options, "signal")
                    .ok()
                    .and_then(js::abort_signal);
                let signal = match signal {
                    Some(s) => s,
                    None => match web_sys::AbortController::new() {
                        Ok(c) => c.signal(),
                        Err(e) => return Promise::reject(&e),
                    },
                };
                let execute = data.execute().clone();
                let name = name.clone();
                wasm_bindgen_futures::future_to_promise(async move {
                    if let Some(ready) = validator {
                        ready.await.map_err(|e| DomError::Unknown(e.to_string()))?;
                        super::store::check_input(&tool, &name, &args)?;
                    }
                    let ctx = RequestContext::detached(CancellationToken::new());
                    let opts = call_options(&ctx, Some(&signal));
                    invoke(&execute, &input, &opts).await
                })
            },
        );
        f.into_js_value()
    }

    // ---- native → polyfill ------------------------------------------------------------

    /// Reads the native tools and updates the engine's proxies; coalesces overlapping calls.
    /// Once the core's deferred module, which holds it, has arrived (as [`Self::queue_mirror`]).
    fn read_native(self: Rc<Self>) {
        if self.reading.replace(true) {
            self.again.set(true);
            return;
        }
        held::after_deferred(move || self.read_now());
    }

    fn read_now(self: Rc<Self>) {
        js::spawn(async move {
            loop {
                self.again.set(false);
                if let Err(e) = self.sync_proxies().await {
                    js::warn(&format!(
                        "modelcontext-polyfill: could not read the browser's modelContext tools: {}",
                        js::error_message(&e)
                    ));
                }
                if !self.again.get() {
                    break;
                }
            }
            self.reading.set(false);
        });
    }

    async fn sync_proxies(&self) -> Result<(), JsValue> {
        let list = call_method(&self.native, "getTools", &[])?;
        let list = JsFuture::from(Promise::resolve(&list)).await?;
        let Some(inner) = self.inner.upgrade() else {
            return Ok(());
        };
        let mut seen = VecSet::new();
        for t in js_sys::Array::from(&list).iter() {
            let Some(name) = js::get(&t, "name")?.as_string() else {
                continue;
            };
            // Our own mirrors are not native tools.
            if self.mirrored.borrow().contains_key(&name) {
                continue;
            }
            seen.insert(name.clone());
            let current = self.proxies.borrow().get(&name).copied();
            if let Some(reg) = current {
                if matches!(inner.tool_data(&name), Some((_, d)) if d.registration == reg) {
                    continue;
                }
            }
            if inner.server().tool(&name).is_some() {
                continue; // the name is the polyfill's
            }
            match self.register_proxy(&inner, &name, &t) {
                Ok(reg) => {
                    self.proxies.borrow_mut().insert(name, reg);
                }
                Err(e) => js::warn(&format!(
                    "modelcontext-polyfill: could not serve the browser's tool {name:?}: {}",
                    js::error_message(&e)
                )),
            }
        }
        // Proxies of tools the native object no longer has.
        let gone: Vec<(String, u64)> = self
            .proxies
            .borrow()
            .iter()
            .filter(|(n, _)| !seen.contains(*n))
            .map(|(n, r)| (n.clone(), *r))
            .collect();
        for (name, reg) in gone {
            self.proxies.borrow_mut().remove(&name);
            unregister_if_current(&inner, &name, reg);
        }
        Ok(())
    }

    /// Registers, in the engine, a proxy for the native `RegisteredTool` `t`.
    fn register_proxy(&self, inner: &EngineInner, name: &str, t: &JsValue) -> Result<u64, JsValue> {
        let opt_string =
            |k: &'static str| -> Option<String> { js::get(t, k).ok().and_then(|v| v.as_string()) };
        let schema_json = match js::get(t, "inputSchema")? {
            v if v.is_undefined() || v.is_null() => None,
            v => js::stringify(&v)?,
        };
        // Its execute: native executeTool(t, input, { signal }), the input as an object or,
        // for an implementation that takes JSON text, as text.
        let native = self.native.clone();
        let tool = t.clone();
        let text_input = self.text_input.clone();
        let execute: Function = Closure::<dyn Fn(JsValue, JsValue) -> JsValue>::new(
            move |input: JsValue, options: JsValue| -> JsValue {
                let opts: JsValue = js::object().into();
                if let Ok(signal) = js::get(&options, "signal") {
                    js::set(&opts, "signal", &signal);
                }
                let (native, tool, text_input) = (native.clone(), tool.clone(), text_input.clone());
                let run = move |input: &JsValue, as_text: bool| -> Result<JsFuture, JsValue> {
                    let input = if as_text {
                        JsValue::from_str(&js::stringify(input)?.unwrap_or_else(|| "{}".into()))
                    } else {
                        input.clone()
                    };
                    let p = call_method(&native, "executeTool", &[tool.clone(), input, opts.clone()])?;
                    Ok(JsFuture::from(Promise::resolve(&p)))
                };
                wasm_bindgen_futures::future_to_promise(async move {
                    let as_text = text_input.get();
                    match run(&input, as_text)?.await {
                        Err(e) if !as_text && text_form_refusal(&e) => {
                            text_input.set(true);
                            run(&input, true)?.await
                        }
                        outcome => outcome,
                    }
                })
                .into()
            },
        )
        .into_js_value()
        .unchecked_into();
        let registration = inner.next_registration();
        let input_schema = schema_json
            .as_deref()
            .and_then(|text| SchemaText::parse(text).ok());
        let data = JsToolData {
            tool: JsTool {
                name: name.into(),
                f: execute,
            },
            // (A text that is not JSON: kept for `getTools()`, not validated with.)
            input_schema_json: match (&input_schema, schema_json) {
                (None, Some(text)) => OnceCell::from(Rc::from(text)),
                _ => OnceCell::new(),
            },
            door: Door::Native,
            exposed_to: Vec::new(),
            registration,
        };
        let mut def = data.into_def(opt_string("description").unwrap_or_default());
        def.title = opt_string("title").filter(|s| !s.is_empty());
        def.input_schema = input_schema;
        let ann = js::get(t, "annotations")?;
        if ann.is_object() {
            for k in WEBMCP_HINTS {
                def.annotations
                    .get_or_insert_with(Box::default)
                    .insert(k.to_string(), Value::Bool(js::to_bool(&js::get(&ann, k)?)));
            }
        }
        register_lenient(inner, def)?;
        Ok(registration)
    }
}

/// Reads the `native` member of the engine's configuration: the browser's own
/// `ModelContext`, when there is one.
pub fn native_from_config(config: &JsValue) -> Option<JsValue> {
    let v = js::get(config, "native").ok()?;
    (v.is_object() && Reflect::has(&v, &JsValue::from_str("registerTool")).unwrap_or(false))
        .then_some(v)
}

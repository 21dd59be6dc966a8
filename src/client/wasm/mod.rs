//! wasm only: the exported `McpClient` class — a page's MCP client for a server behind any
//! client transport (a worker, an iframe, another tab, the same page).
//!
//! ```js
//! const client = new McpClient(new PostMessageClientTransport({ target: worker }), {
//!   timeoutMs: 60000, heartbeatMs: 0,
//!   reconnect: { initialDelayMs: 1000, maxDelayMs: 30000, factor: 2, maxRetries: 5, scheduler },
//! });
//! await client.connect();
//! const { tools } = await client.listTools();
//! const result = await client.callTool('search', { q: 'x' }, { timeoutMs: 5000, signal });
//! ```

use js_sys::{Function, Promise};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::future_to_promise;

use super::bridge::{self, JsScheduler, JsTransport};
use super::core::{Client, RequestOptions, ServerDetails};
use super::error::ClientError;
use crate::browser::runtime::BrowserRuntime;
use crate::js;

mod options;

use options::{call_options, client_options, details_to_js, params_value, CallOptions};

const CTX: &str = "new McpClient(transport, options): options";

/// The page's hooks (`onclose`, `onerror`, `onreconnect`).
#[derive(Default)]
struct Hooks {
    onclose: RefCell<JsValue>,
    onerror: RefCell<JsValue>,
    onreconnect: RefCell<JsValue>,
}

fn call_hook(slot: &RefCell<JsValue>, arg: &JsValue) {
    let f = slot.borrow().clone();
    if let Some(f) = f.dyn_ref::<Function>() {
        if let Err(e) = f.call1(&JsValue::UNDEFINED, arg) {
            js::report(&e);
        }
    }
}

/// Lets go of the page's functions once the client is closed for good (not between
/// reconnection attempts): its hooks, notification and request handlers. Kept here, each would
/// be a root of this module's reference table, and a function that holds the client
/// (`() => client.listTools()`, as handlers do) would keep it, and this object, for the page's
/// life. The page's client object (`polyfill/src/client.js`) keeps them itself and hands them
/// back at the next `connect()`.
fn release(hooks: &Hooks, client: &Client) {
    for slot in [&hooks.onclose, &hooks.onerror, &hooks.onreconnect] {
        *slot.borrow_mut() = JsValue::NULL;
    }
    client.clear_handlers();
}

fn hook_value(v: JsValue) -> JsValue {
    if v.is_function() {
        v
    } else {
        JsValue::NULL
    }
}

/// An MCP client over a client transport.
#[wasm_bindgen]
pub struct McpClient {
    client: Client,
    hooks: Rc<Hooks>,
    transport: JsValue,
}

/// A [`Client`] request by name with arguments: [`Client::call_tool`], [`Client::get_prompt`].
type NamedCall = fn(
    &Client,
    &str,
    Option<Value>,
    RequestOptions,
) -> crate::server::LocalBoxFuture<'static, Result<Value, ClientError>>;

fn rejected(e: JsValue) -> Promise {
    Promise::reject(&e)
}

impl McpClient {
    /// Runs a request future as a promise, mapping errors once.
    fn run(
        &self,
        fut: crate::server::LocalBoxFuture<'static, Result<Value, ClientError>>,
        opts: CallOptions,
    ) -> Promise {
        future_to_promise(async move {
            let out = fut.await;
            drop(opts.abort_listener);
            match out {
                Ok(v) => Ok(js::from_json(&v)),
                Err(e) => Err(bridge::to_js_error(&e, opts.signal.as_ref())),
            }
        })
    }
}

#[wasm_bindgen]
impl McpClient {
    /// `new McpClient(transport, { timeoutMs = 60000, heartbeatMs = 0, heartbeatTimeoutMs,
    /// reconnect, clientInfo, capabilities })`.
    #[wasm_bindgen(constructor)]
    pub fn new(transport: JsValue, options: JsValue) -> Result<McpClient, JsValue> {
        let adapter = JsTransport::new(transport.clone(), "new McpClient(transport, options)")?;
        let (opts, scheduler) = client_options(&options)?;
        let client = Client::new(Rc::new(BrowserRuntime), Rc::new(adapter), opts);
        if let Some(s) = scheduler {
            client.set_scheduler(Rc::new(JsScheduler(s)));
        }
        client.set_random(Rc::new(js_sys::Math::random));
        let hooks = Rc::new(Hooks::default());
        let h = Rc::downgrade(&hooks);
        let me = client.downgrade();
        client.set_on_close(Some(Rc::new(move |reason: Option<String>| {
            if let Some(h) = h.upgrade() {
                let arg = reason
                    .map(|r| JsValue::from_str(&r))
                    .unwrap_or(JsValue::UNDEFINED);
                call_hook(&h.onclose, &arg);
                if let Some(c) = me.upgrade() {
                    release(&h, &c);
                }
            }
        })));
        let h = Rc::downgrade(&hooks);
        client.set_on_error(Some(Rc::new(move |e: &ClientError| {
            if let Some(h) = h.upgrade() {
                call_hook(&h.onerror, &bridge::to_js_error(e, None));
            }
        })));
        let h = Rc::downgrade(&hooks);
        client.set_on_reconnect(Some(Rc::new(move |attempts: u32, d: &ServerDetails| {
            if let Some(h) = h.upgrade() {
                let info = details_to_js(d);
                js::set(&info, "attempts", &JsValue::from_f64(attempts as f64));
                call_hook(&h.onreconnect, &info);
            }
        })));
        Ok(McpClient {
            client,
            hooks,
            transport,
        })
    }

    /// Starts the transport and initializes; resolves with `{ protocolVersion, serverInfo,
    /// capabilities, instructions }`.
    pub fn connect(&self) -> Promise {
        let fut = self.client.connect();
        future_to_promise(async move {
            match fut.await {
                Ok(d) => Ok(details_to_js(&d)),
                Err(e) => Err(bridge::to_js_error(&e, None)),
            }
        })
    }

    /// `request(method, params?, { timeoutMs, signal, onprogress })` → the result.
    pub fn request(&self, method: JsValue, params: JsValue, options: JsValue) -> Promise {
        let method = match method.as_string() {
            Some(m) if !m.is_empty() => m,
            _ => {
                return rejected(js::type_error(
                    "request(method, params, options): method must be a non-empty string",
                ))
            }
        };
        let params = match params_value(&params, "request(method, params, options): params") {
            Ok(p) => p,
            Err(e) => return rejected(e),
        };
        match call_options(&options, "request(method, params, options): options") {
            Ok(o) => self.run(self.client.request(&method, params, o.core.clone()), o),
            Err(e) => rejected(e),
        }
    }

    /// A call by name with arguments (`callTool`, `getPrompt`): `name` must be a string,
    /// `args` JSON, `options` call options; `call` sends the request.
    fn named(
        &self,
        ctx: &str,
        name: &JsValue,
        args: &JsValue,
        options: &JsValue,
        call: NamedCall,
    ) -> Promise {
        let Some(name) = name.as_string() else {
            return rejected(js::type_error(&format!("{ctx}: name must be a string")));
        };
        let args = match params_value(args, &format!("{ctx}: args")) {
            Ok(a) => a,
            Err(e) => return rejected(e),
        };
        match call_options(options, &format!("{ctx}: options")) {
            Ok(o) => self.run(call(&self.client, &name, args, o.core.clone()), o),
            Err(e) => rejected(e),
        }
    }

    fn simple(&self, method: &str, params: &JsValue, options: &JsValue) -> Promise {
        let ctx = format!("{method}: ");
        let params = match params_value(params, &format!("{ctx}params")) {
            Ok(p) => p,
            Err(e) => return rejected(e),
        };
        match call_options(options, &format!("{ctx}options")) {
            Ok(o) => self.run(self.client.request(method, params, o.core.clone()), o),
            Err(e) => rejected(e),
        }
    }

    /// `listTools(params?, options?)` → `{ tools, nextCursor? }`.
    #[wasm_bindgen(js_name = listTools)]
    pub fn list_tools(&self, params: JsValue, options: JsValue) -> Promise {
        self.simple("tools/list", &params, &options)
    }

    /// `listResources(params?, options?)` → `{ resources, nextCursor? }`.
    #[wasm_bindgen(js_name = listResources)]
    pub fn list_resources(&self, params: JsValue, options: JsValue) -> Promise {
        self.simple("resources/list", &params, &options)
    }

    /// `listResourceTemplates(params?, options?)` → `{ resourceTemplates, nextCursor? }`.
    #[wasm_bindgen(js_name = listResourceTemplates)]
    pub fn list_resource_templates(&self, params: JsValue, options: JsValue) -> Promise {
        self.simple("resources/templates/list", &params, &options)
    }

    /// `listPrompts(params?, options?)` → `{ prompts, nextCursor? }`.
    #[wasm_bindgen(js_name = listPrompts)]
    pub fn list_prompts(&self, params: JsValue, options: JsValue) -> Promise {
        self.simple("prompts/list", &params, &options)
    }

    /// `callTool(name, args?, options?)` → the `CallToolResult`.
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(&self, name: JsValue, args: JsValue, options: JsValue) -> Promise {
        self.named(
            "callTool(name, args, options)",
            &name,
            &args,
            &options,
            Client::call_tool,
        )
    }

    /// `readResource(uri, options?)` → `{ contents }`.
    #[wasm_bindgen(js_name = readResource)]
    pub fn read_resource(&self, uri: JsValue, options: JsValue) -> Promise {
        let ctx = "readResource(uri, options)";
        let Some(uri) = uri.as_string() else {
            return rejected(js::type_error(&format!("{ctx}: uri must be a string")));
        };
        match call_options(&options, &format!("{ctx}: options")) {
            Ok(o) => self.run(self.client.read_resource(&uri, o.core.clone()), o),
            Err(e) => rejected(e),
        }
    }

    /// `getPrompt(name, args?, options?)` → `{ messages, description? }`.
    #[wasm_bindgen(js_name = getPrompt)]
    pub fn get_prompt(&self, name: JsValue, args: JsValue, options: JsValue) -> Promise {
        self.named(
            "getPrompt(name, args, options)",
            &name,
            &args,
            &options,
            Client::get_prompt,
        )
    }

    /// `ping(options?)` → `{}`.
    pub fn ping(&self, options: JsValue) -> Promise {
        self.simple("ping", &JsValue::UNDEFINED, &options)
    }

    /// `notify(method, params?)`: sends a notification (resolves once sent).
    pub fn notify(&self, method: JsValue, params: JsValue) -> Promise {
        let Some(method) = method.as_string() else {
            return rejected(js::type_error(
                "notify(method, params): method must be a string",
            ));
        };
        let params = match params_value(&params, "notify(method, params): params") {
            Ok(p) => p,
            Err(e) => return rejected(e),
        };
        match self.client.notify(&method, params) {
            Ok(()) => Promise::resolve(&JsValue::UNDEFINED),
            Err(e) => rejected(bridge::to_js_error(&e, None)),
        }
    }

    /// `onNotification(method, cb)`: `cb({ method, params })` for each notification named
    /// `method` (`'*'`: all). Returns a function that removes the handler.
    #[wasm_bindgen(js_name = onNotification)]
    pub fn on_notification(&self, method: JsValue, cb: JsValue) -> Result<Function, JsValue> {
        let method = method.as_string().ok_or_else(|| {
            js::type_error("onNotification(method, callback): method must be a string")
        })?;
        let cb: Function = cb.dyn_into().map_err(|_| {
            js::type_error("onNotification(method, callback): callback must be a function")
        })?;
        let id = self
            .client
            .on_notification(&method, bridge::notification_handler(cb));
        let client = self.client.clone();
        Ok(
            Closure::<dyn Fn()>::new(move || client.remove_notification_handler(id))
                .into_js_value()
                .unchecked_into(),
        )
    }

    /// `setRequestHandler(method, cb)`: `cb({ method, params }, { requestId, signal })`
    /// answers the server's requests named `method`; `null` removes it. A handler for
    /// `sampling/createMessage`, `elicitation/create` or `roots/list` declares the
    /// capability at the next `connect()`. `ping` is answered without a handler.
    #[wasm_bindgen(js_name = setRequestHandler)]
    pub fn set_request_handler(&self, method: JsValue, cb: JsValue) -> Result<(), JsValue> {
        let method = method.as_string().ok_or_else(|| {
            js::type_error("setRequestHandler(method, handler): method must be a string")
        })?;
        if cb.is_null() || cb.is_undefined() {
            self.client.set_request_handler(&method, None);
            return Ok(());
        }
        let cb: Function = cb.dyn_into().map_err(|_| {
            js::type_error("setRequestHandler(method, handler): handler must be a function or null")
        })?;
        self.client
            .set_request_handler(&method, Some(bridge::request_handler(cb)));
        Ok(())
    }

    /// Closes: cancels a scheduled reconnection, rejects every pending request with a
    /// `TransportClosedError`, closes the transport, calls `onclose`.
    pub fn close(&self) -> Promise {
        self.client.close();
        // (A client closed before it connected has no close to hook.)
        release(&self.hooks, &self.client);
        Promise::resolve(&JsValue::UNDEFINED)
    }

    /// `'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed'`.
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> String {
        self.client.phase().as_str().to_string()
    }

    /// The transport given to the constructor.
    #[wasm_bindgen(getter)]
    pub fn transport(&self) -> JsValue {
        self.transport.clone()
    }

    /// The negotiated protocol version (`undefined` before `connect()`).
    #[wasm_bindgen(getter, js_name = protocolVersion)]
    pub fn protocol_version(&self) -> Option<String> {
        self.client
            .server()
            .map(|d| d.protocol_version.as_str().to_string())
    }

    /// The server's `serverInfo` from the handshake (`undefined` before it).
    #[wasm_bindgen(getter, js_name = serverInfo)]
    pub fn server_info(&self) -> JsValue {
        self.client
            .server()
            .map(|d| js::from_json(&d.server_info))
            .unwrap_or(JsValue::UNDEFINED)
    }

    /// The server's `capabilities` from the handshake (`undefined` before it).
    #[wasm_bindgen(getter, js_name = serverCapabilities)]
    pub fn server_capabilities(&self) -> JsValue {
        self.client
            .server()
            .map(|d| js::from_json(&d.capabilities))
            .unwrap_or(JsValue::UNDEFINED)
    }

    /// The server's `instructions`, when it gave any.
    #[wasm_bindgen(getter)]
    pub fn instructions(&self) -> Option<String> {
        self.client.server().and_then(|d| d.instructions)
    }

    /// Requests sent or queued and not yet settled.
    #[wasm_bindgen(getter, js_name = pendingRequests)]
    pub fn pending_requests(&self) -> u32 {
        self.client.pending_requests() as u32
    }

    /// Called each time the client closes, with the reason (`undefined` for `close()`); `null`
    /// when unset.
    #[wasm_bindgen(getter)]
    pub fn onclose(&self) -> JsValue {
        self.hooks.onclose.borrow().clone()
    }
    /// Sets `onclose`; anything but a function unsets it.
    #[wasm_bindgen(setter)]
    pub fn set_onclose(&self, f: JsValue) {
        *self.hooks.onclose.borrow_mut() = hook_value(f);
    }
    /// Called with each error not tied to one request (a bad frame, a failed reconnection
    /// attempt); `null` when unset.
    #[wasm_bindgen(getter)]
    pub fn onerror(&self) -> JsValue {
        self.hooks.onerror.borrow().clone()
    }
    /// Sets `onerror`; anything but a function unsets it.
    #[wasm_bindgen(setter)]
    pub fn set_onerror(&self, f: JsValue) {
        *self.hooks.onerror.borrow_mut() = hook_value(f);
    }
    /// Called after a reconnection re-initialized, with the server's new details and
    /// `attempts`; `null` when unset.
    #[wasm_bindgen(getter)]
    pub fn onreconnect(&self) -> JsValue {
        self.hooks.onreconnect.borrow().clone()
    }
    /// Sets `onreconnect`; anything but a function unsets it.
    #[wasm_bindgen(setter)]
    pub fn set_onreconnect(&self, f: JsValue) {
        *self.hooks.onreconnect.borrow_mut() = hook_value(f);
    }
}

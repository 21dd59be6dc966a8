//! The server transport classes a page can build and hand to `connect({ transport })`:
//!
//! ```js
//! const { PostMessageServerTransport } = globalThis[Symbol.for('modelcontext-polyfill')].transports;
//! const transport = new PostMessageServerTransport(worker, { messageType: 'mcp' });
//! const session = await navigator.modelContext.connect({ transport });
//! transport.isConnected; transport.close();
//! ```
//!
//! Each class takes the options of its `type` (without `type`); a few also take the peer
//! first, as the seed's classes do: `new PostMessageServerTransport(target, options)`,
//! `new EventServerTransport(emitter, options)`, `new ExtensionServerTransport(port,
//! options)`. Options are checked in the constructor (a `TypeError` naming the option), also
//! while the core's deferred module is on its way (`connect()` then waits for it). A transport
//! serves one `connect()`. Every instance
//! has `type`, `options` (the effective options, frozen), `isConnected` and `close()`.
//! `connect()` called with an options object makes one of these too: it is
//! `session.transport`.

use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::Handle;
use crate::js;

macro_rules! transport_class {
    ($name:ident) => {
        /// A server transport a page builds and passes to `connect({ transport })`.
        #[wasm_bindgen]
        pub struct $name {
            h: Rc<Handle>,
        }

        #[wasm_bindgen]
        impl $name {
            /// The transport's `type` (`'postMessage'`, …).
            #[wasm_bindgen(getter, js_name = "type")]
            pub fn kind(&self) -> String {
                self.h.kind().to_string()
            }

            /// The effective options, defaults filled in (frozen).
            #[wasm_bindgen(getter)]
            pub fn options(&self) -> JsValue {
                self.h.options()
            }

            /// Whether it is serving.
            #[wasm_bindgen(getter, js_name = "isConnected")]
            pub fn is_connected(&self) -> bool {
                self.h.is_open()
            }

            /// Stops serving (idempotent); the session using it stops answering.
            pub fn close(&self) {
                self.h.close()
            }
        }
    };
}

transport_class!(TabServerTransport);
transport_class!(PostMessageServerTransport);
transport_class!(BroadcastChannelServerTransport);
transport_class!(IframeChildServerTransport);
transport_class!(IframeParentServerTransport);
transport_class!(EventServerTransport);
transport_class!(ExtensionServerTransport);

/// `options` with `peer` stored under `key` when the first argument is the peer itself.
fn positional(
    first: &JsValue,
    second: &JsValue,
    key: &'static str,
    is_peer: bool,
) -> Result<JsValue, JsValue> {
    if !is_peer {
        return Ok(if first.is_undefined() {
            js::object().into()
        } else {
            first.clone()
        });
    }
    if !(second.is_undefined() || second.is_null() || second.is_object()) {
        return Err(js::type_error(
            "the options (second argument) must be an object",
        ));
    }
    let o: JsValue = js::object().into();
    if second.is_object() {
        js_sys::Object::assign(
            o.unchecked_ref::<js_sys::Object>(),
            second.unchecked_ref::<js_sys::Object>(),
        );
    }
    js::set(&o, key, first);
    Ok(o)
}

/// A handle of `kind` (a name of [`super::kinds::KINDS`]) for its class's constructor, its
/// options read now (what each kind reads is in the core's first module, so a class made while
/// the deferred module is on its way reads nothing synchronously).
fn handle(kind: &str, opts: &JsValue) -> Result<Rc<Handle>, JsValue> {
    let class = super::kinds::find(kind).map_or(kind, |k| k.class);
    Handle::new(kind, opts, &format!("new {class}(options): options"))
}

#[wasm_bindgen]
impl TabServerTransport {
    /// `new TabServerTransport({ channelId?, allowedOrigins?, onOriginViolation?, persist? })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<TabServerTransport, JsValue> {
        let o = positional(&options, &JsValue::UNDEFINED, "", false)?;
        Ok(TabServerTransport {
            h: handle("tab", &o)?,
        })
    }
}

#[wasm_bindgen]
impl PostMessageServerTransport {
    /// `new PostMessageServerTransport({ target, origin?, messageType?, … })` or
    /// `new PostMessageServerTransport(target, options?)`
    #[wasm_bindgen(constructor)]
    pub fn new(a: JsValue, b: JsValue) -> Result<PostMessageServerTransport, JsValue> {
        let is_peer = js::has_method(&a, "postMessage");
        let o = positional(&a, &b, "target", is_peer)?;
        Ok(PostMessageServerTransport {
            h: handle("postMessage", &o)?,
        })
    }
}

#[wasm_bindgen]
impl BroadcastChannelServerTransport {
    /// `new BroadcastChannelServerTransport({ channelName, instanceId? })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<BroadcastChannelServerTransport, JsValue> {
        let o = positional(&options, &JsValue::UNDEFINED, "", false)?;
        Ok(BroadcastChannelServerTransport {
            h: handle("broadcastChannel", &o)?,
        })
    }

    /// The id this server's messages carry (given or generated).
    #[wasm_bindgen(getter, js_name = "instanceId")]
    pub fn instance_id(&self) -> Result<JsValue, JsValue> {
        js::get(&self.h.options(), "instanceId")
    }

    /// The `BroadcastChannel`'s name.
    #[wasm_bindgen(getter, js_name = "channelName")]
    pub fn channel_name(&self) -> Result<JsValue, JsValue> {
        js::get(&self.h.options(), "channelName")
    }
}

#[wasm_bindgen]
impl IframeChildServerTransport {
    /// `new IframeChildServerTransport({ parentOrigin, channelId? })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<IframeChildServerTransport, JsValue> {
        let o = positional(&options, &JsValue::UNDEFINED, "", false)?;
        Ok(IframeChildServerTransport {
            h: handle("iframeChild", &o)?,
        })
    }
}

#[wasm_bindgen]
impl IframeParentServerTransport {
    /// `new IframeParentServerTransport({ iframe, targetOrigin, channelId?,
    /// connectionTimeout? })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<IframeParentServerTransport, JsValue> {
        let o = positional(&options, &JsValue::UNDEFINED, "", false)?;
        Ok(IframeParentServerTransport {
            h: handle("iframeParent", &o)?,
        })
    }
}

#[wasm_bindgen]
impl EventServerTransport {
    /// `new EventServerTransport({ emitter?, sendEvent?, receiveEvent? })` or
    /// `new EventServerTransport(emitter, options?)`
    #[wasm_bindgen(constructor)]
    pub fn new(a: JsValue, b: JsValue) -> Result<EventServerTransport, JsValue> {
        let is_peer = js::has_method(&a, "emit");
        let o = positional(&a, &b, "emitter", is_peer)?;
        Ok(EventServerTransport {
            h: handle("event", &o)?,
        })
    }

    /// The emitter it listens on (the built-in one when none was given).
    #[wasm_bindgen(getter)]
    pub fn emitter(&self) -> Result<JsValue, JsValue> {
        js::get(&self.h.options(), "emitter")
    }
}

#[wasm_bindgen]
impl ExtensionServerTransport {
    /// `new ExtensionServerTransport({ port, messageType?, keepAlive?, keepAliveInterval?,
    /// onDisconnect? })` or `new ExtensionServerTransport(port, options?)`
    #[wasm_bindgen(constructor)]
    pub fn new(a: JsValue, b: JsValue) -> Result<ExtensionServerTransport, JsValue> {
        let is_peer =
            js::has_method(&a, "postMessage") && !js::get(&a, "onMessage")?.is_undefined();
        let o = positional(&a, &b, "port", is_peer)?;
        Ok(ExtensionServerTransport {
            h: handle("extension", &o)?,
        })
    }
}

/// The transport object for a handle `connect()` made from an options object.
pub fn wrap(h: Rc<Handle>) -> JsValue {
    match h.kind() {
        "tab" => TabServerTransport { h }.into(),
        "postMessage" => PostMessageServerTransport { h }.into(),
        "broadcastChannel" => BroadcastChannelServerTransport { h }.into(),
        "iframeChild" => IframeChildServerTransport { h }.into(),
        "iframeParent" => IframeParentServerTransport { h }.into(),
        "event" => EventServerTransport { h }.into(),
        _ => ExtensionServerTransport { h }.into(),
    }
}

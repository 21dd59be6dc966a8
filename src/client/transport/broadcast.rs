//! `BroadcastChannelClientTransport`: a client for a server in another same-origin page
//! (or worker), over a `BroadcastChannel` in the seed's format
//! `{ type: 'mcp', instanceId, payload }`. Messages carrying this client's own
//! `instanceId` are dropped (no echo); so are messages addressed (`to`) to another
//! instance. Once a server has answered, only that server's messages are read, so other
//! clients on the channel are not mistaken for the server; and the ids this client owns
//! travel tagged with its instance id ([`super::IdNamespace`]), so an answer meant for
//! another client never settles one of ours.
//!
//! ```js
//! const t = new BroadcastChannelClientTransport({ channelName: 'my-app-mcp' });
//! ```

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::base::{client_transport_class, opt_string, options_object, Base, Port, Ready, Wire};
use super::IdNamespace;
use crate::js;
use crate::js::Listener;
use crate::wire::broadcast;

struct BroadcastWire {
    channel_name: String,
    instance_id: String,
    ids: IdNamespace,
    channel: RefCell<Option<JsValue>>,
    listener: RefCell<Option<Listener>>,
}

impl Wire for BroadcastWire {
    fn open(&self, port: Port) -> Result<Ready, JsValue> {
        let ctor: js_sys::Function = js::get(&js::global(), "BroadcastChannel")?.into();
        let channel = js_sys::Reflect::construct(
            &ctor,
            &js_sys::Array::of1(&JsValue::from_str(&self.channel_name)),
        )?;
        let own = self.instance_id.clone();
        let ids = self.ids.clone();
        // The server's instanceId, learnt from its first answer.
        let server: Rc<RefCell<Option<String>>> = Rc::new(RefCell::new(None));
        let listener = Listener::dom(&channel, "message", move |ev: JsValue, _| {
            let data = js::get(&ev, "data").unwrap_or(JsValue::UNDEFINED);
            let Some(env) = broadcast::open_envelope(&data) else {
                return;
            };
            let (sender, payload) = (env.from, env.payload);
            if sender == own || env.to.is_some_and(|to| to != own) {
                return;
            }
            if payload.is_undefined() || payload.is_null() {
                return;
            }
            let is_answer = js_sys::Reflect::has(&payload, &"result".into()).unwrap_or(false)
                || js_sys::Reflect::has(&payload, &"error".into()).unwrap_or(false);
            {
                let mut s = server.borrow_mut();
                match s.as_deref() {
                    Some(known) if known != sender => return,
                    Some(_) => {}
                    // Before the server answered, another client's requests are not ours.
                    None if !is_answer => return,
                    None => *s = Some(sender),
                }
            }
            let Ok(Some(mut message)) = js::to_json(&payload) else {
                return port.message(payload);
            };
            if ids.incoming(&mut message) {
                port.message(js::from_json(&message));
            }
        })?;
        *self.channel.borrow_mut() = Some(channel);
        *self.listener.borrow_mut() = Some(listener);
        Ok(Box::pin(async { Ok(()) }))
    }

    fn post(&self, message: &JsValue) -> Result<(), JsValue> {
        let channel = self
            .channel
            .borrow()
            .clone()
            .ok_or_else(|| js::type_error("the channel is closed"))?;
        let mut tagged =
            js::to_json(message)?.ok_or_else(|| js::type_error("the message is not JSON"))?;
        self.ids.outgoing(&mut tagged);
        let env = broadcast::envelope(&self.instance_id, None, &js::from_json(&tagged));
        js::call(&channel, "postMessage", &[&env])?;
        Ok(())
    }

    fn shut(&self) {
        self.listener.borrow_mut().take();
        if let Some(c) = self.channel.borrow_mut().take() {
            let _ = js::call(&c, "close", &[]);
        }
    }
}

client_transport_class!(BroadcastChannelClientTransport);

#[wasm_bindgen]
impl BroadcastChannelClientTransport {
    /// `new BroadcastChannelClientTransport({ channelName, instanceId = crypto.randomUUID() })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<BroadcastChannelClientTransport, JsValue> {
        let ctx = "new BroadcastChannelClientTransport(options): options";
        let o = options_object(&options, ctx)?;
        let channel_name = opt_string(&o, "channelName", ctx)?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                js::type_error(&format!(
                    "{ctx}.channelName is required (a non-empty string)"
                ))
            })?;
        if !js::get(&js::global(), "BroadcastChannel")?.is_function() {
            return Err(js::type_error(&format!(
                "{ctx}: BroadcastChannel is not available in this context"
            )));
        }
        let instance_id = opt_string(&o, "instanceId", ctx)?
            .filter(|s| !s.is_empty())
            .unwrap_or_else(js::random_id);
        let wire = BroadcastWire {
            channel_name,
            ids: IdNamespace::new(&instance_id),
            instance_id,
            channel: RefCell::new(None),
            listener: RefCell::new(None),
        };
        Ok(BroadcastChannelClientTransport {
            base: Base::new("BroadcastChannelClientTransport", Box::new(wire)),
        })
    }
}

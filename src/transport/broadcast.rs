//! The BroadcastChannel transport (the seed's `BroadcastChannelTransport`): envelopes
//! `{ type: 'mcp', instanceId, payload }` on a same-origin `BroadcastChannel`. Each sender
//! `instanceId` is a peer with its own session; messages carrying the server's own
//! `instanceId` are dropped (no echo). Answers carry the server's `instanceId`, and `to`:
//! the `instanceId` of the client they answer (each client has its own session, so a
//! client can drop what is addressed to another). At most one server per channel name in a
//! window.

use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::guard::Security;
use super::hub::{Hub, HubServer, Reply};
use super::served::Served;
use super::{opt_string, Running, Started};
use crate::js;
use crate::js::Listener;
use crate::server::Server;
use crate::wire;

/// How many client instances one channel server keeps sessions for (least recently heard
/// from is forgotten first).
pub const MAX_PEERS: usize = 32;

/// A `broadcastChannel` transport's options.
#[derive(Clone)]
pub struct BroadcastConfig {
    /// The `BroadcastChannel`'s name (`channelName`).
    pub channel_name: String,
    /// This server's `instanceId`: its answers carry it; messages carrying it (its own) are
    /// dropped.
    pub instance_id: String,
    /// Rate limit, size limit and violation callback.
    pub security: Security,
}

impl BroadcastConfig {
    /// `{ channelName, instanceId? }`.
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<BroadcastConfig, JsValue> {
        let channel_name = opt_string(opts, "channelName", ctx)?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                js::option_error(ctx, ".channelName is required (a non-empty string)")
            })?;
        if js::get(&js::global(), "BroadcastChannel")?.is_undefined() {
            return Err(js::option_error(
                ctx,
                ": BroadcastChannel is not available in this context",
            ));
        }
        Ok(BroadcastConfig {
            channel_name,
            instance_id: opt_string(opts, "instanceId", ctx)?
                .filter(|s| !s.is_empty())
                .unwrap_or_else(js::random_id),
            // Any page of the origin, in any tab, may post on the channel: limited by default.
            security: Security::from_js(opts, ctx)?.limited_by_default(true),
        })
    }

    /// Writes the effective options (defaults filled in) onto `o`: `transport.options`.
    pub fn normalize(&self, o: &JsValue) {
        js::set(o, "channelName", &JsValue::from_str(&self.channel_name));
        js::set(o, "instanceId", &JsValue::from_str(&self.instance_id));
    }
}

/// A [`HubServer`] that also closes its `BroadcastChannel` when it stops.
struct BroadcastServer {
    served: HubServer,
    channel: JsValue,
}

impl Running for BroadcastServer {
    fn stop(&self) {
        self.served.stop();
        let _ = js::call(&self.channel, "close", &[]);
    }
    fn is_open(&self) -> bool {
        self.served.is_open()
    }
}

/// Starts serving `server` on the channel.
pub fn start(server: &Server, c: BroadcastConfig) -> Result<Started, JsValue> {
    let claim = Served::claim_name(
        &format!("broadcastChannel:{}", c.channel_name),
        &format!("The BroadcastChannel {:?}", c.channel_name),
    )?;
    let ctor: js_sys::Function = js::get(&js::global(), "BroadcastChannel")?.into();
    let channel = js_sys::Reflect::construct(
        &ctor,
        &js_sys::Array::of1(&JsValue::from_str(&c.channel_name)),
    )?;
    let hub = Hub::new(
        server.clone(),
        c.security.clone(),
        "broadcastChannel",
        MAX_PEERS,
    );
    let weak = Rc::downgrade(&hub);
    let own_id = c.instance_id.clone();
    let ch = channel.clone();
    // Answers are addressed: `to` names the client instance whose session sent them, so other
    // clients on the channel can ignore them (an addition to the seed's envelope; readers
    // that do not know `to` just see the seed's three fields plus one).
    let reply_to = move |to: &str| -> Reply {
        let (own_id, ch, to) = (own_id.clone(), ch.clone(), JsValue::from_str(to));
        Rc::new(move |msg: &JsValue| {
            let posted = js::post_or_json_copy(msg, |m| {
                let env = wire::broadcast::envelope(&own_id, Some(&to), m);
                js::call(&ch, "postMessage", &[&env])
            });
            if let Err(e) = posted {
                js::report(&e);
            }
        })
    };
    let own_id = c.instance_id.clone();
    let listener = Listener::dom(&channel, "message", move |ev: JsValue, _| {
        let Some(hub) = weak.upgrade() else { return };
        let data = js::get(&ev, "data").unwrap_or(JsValue::UNDEFINED);
        let Some(env) = wire::broadcast::open_envelope(&data) else {
            return;
        };
        if env.from == own_id || env.payload.is_undefined() || env.payload.is_null() {
            return;
        }
        hub.deliver(&env.from, &env.payload, reply_to(&env.from));
    })?;
    Ok(Started::new(BroadcastServer {
        served: HubServer::new(hub, listener, claim),
        channel,
    }))
}

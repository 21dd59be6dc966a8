//! Connecting: the `initialize` handshake, with the capabilities the client declares.

use serde_json::{json, Map, Value};
use std::rc::Rc;

use super::{timer, Inner, Phase, RequestOptions, ServerDetails, TransportSink};
use crate::client::error::ClientError;
use crate::client::wait::{select3, First};
use crate::protocol::jsonrpc;
use crate::protocol::{Era, ProtocolVersion};
use crate::server::LocalBoxFuture;

impl Inner {
    /// The capabilities declared in `initialize`.
    pub(super) fn capabilities(&self) -> Value {
        let mut caps = match &self.options.capabilities {
            Value::Object(o) => o.clone(),
            _ => Map::new(),
        };
        let handlers = self.request_handlers.borrow();
        for (method, cap) in [
            ("sampling/createMessage", "sampling"),
            ("elicitation/create", "elicitation"),
            ("roots/list", "roots"),
        ] {
            if handlers.contains_key(method) {
                caps.entry(cap).or_insert_with(|| json!({}));
            }
        }
        Value::Object(caps)
    }

    /// Starts the transport and initializes; on success the client is `Connected`, queued
    /// requests go out and the heartbeat starts.
    pub(super) async fn establish(
        me: &Rc<Inner>,
        epoch: u64,
    ) -> Result<ServerDetails, ClientError> {
        let lost = me.st.borrow().lost.clone();
        let sink = TransportSink {
            inner: Rc::downgrade(me),
            epoch,
        };
        let timeout = me.options.timeout_ms;
        let started = me.transport.start(sink);
        let lost_fut: LocalBoxFuture<'static, String> = Box::pin(lost.cancelled());
        match select3(started, timer(&me.runtime, timeout), lost_fut).await {
            First::A(Ok(())) => {}
            First::A(Err(m)) => return Err(ClientError::transport(m)),
            First::B(()) => {
                return Err(ClientError::transport(format!(
                    "the transport did not become ready within {timeout} ms"
                )))
            }
            First::C(reason) => return Err(ClientError::transport_closed(reason)),
        }
        let still = |me: &Inner| -> Result<(), ClientError> {
            if lost.is_cancelled() || !me.is_current(epoch) {
                Err(ClientError::transport_closed(lost.reason().unwrap_or_else(
                    || "The client was closed while connecting".into(),
                )))
            } else {
                Ok(())
            }
        };
        still(me)?;
        let params = json!({
            "protocolVersion": ProtocolVersion::LATEST_HANDSHAKE.as_str(),
            "capabilities": me.capabilities(),
            "clientInfo": me.options.client_info,
        });
        let result = Inner::request(
            me,
            "initialize",
            Some(params),
            RequestOptions::default(),
            true,
        )
        .await?;
        still(me)?;
        let offered = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ClientError::protocol(format!(
                    "the initialize result has no string \"protocolVersion\": {}",
                    jsonrpc::compact(&result)
                ))
            })?;
        let version = ProtocolVersion::parse(offered)
            .filter(|v| v.era() == Era::Handshake)
            .ok_or_else(|| ClientError::UnsupportedVersion {
                offered: offered.to_string(),
            })?;
        let details = ServerDetails {
            protocol_version: version,
            server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(String::from),
            result,
        };
        me.send_now(&jsonrpc::notification("notifications/initialized", None));
        still(me)?;
        let queued: Vec<Value> = {
            let mut st = me.st.borrow_mut();
            st.phase = Phase::Connected;
            st.server = Some(details.clone());
            st.pending
                .iter_mut()
                .map(|(_, p)| p)
                .filter(|p| p.sent_on.is_none())
                .map(|p| {
                    p.sent_on = Some(epoch);
                    p.message.clone()
                })
                .collect()
        };
        for m in queued {
            me.send_now(&m);
        }
        Inner::start_heartbeat(me, epoch);
        Ok(details)
    }
}

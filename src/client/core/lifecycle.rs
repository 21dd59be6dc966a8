//! Losing and closing a connection, reconnecting with backoff, and the heartbeat.

use std::rc::Rc;

use super::{timer, Inner, Outcome, Pending, Phase, RequestOptions, State};
use crate::client::error::ClientError;
use crate::client::wait::{never, select3, First};
use crate::peer::Sent;
use crate::server::{CancellationToken, LocalBoxFuture};

impl Inner {
    /// Takes the requests sent on the current connection (queued ones stay).
    fn take_sent(st: &mut State) -> Vec<Sent<Pending, Outcome>> {
        st.pending.take_where(|p| p.sent_on.is_some())
    }

    /// The connection `epoch` ended without `close()`.
    pub(super) fn lost(self: &Rc<Self>, epoch: u64, reason: String) {
        let (sent, incoming, heartbeat) = {
            let mut st = self.st.borrow_mut();
            if st.epoch != epoch {
                return;
            }
            match st.phase {
                Phase::Idle | Phase::Closed => return,
                Phase::Connecting | Phase::Reconnecting => {
                    // Mid-handshake: the attempt in progress fails and decides what is next.
                    st.lost.cancel(reason.clone());
                    let sent = Inner::take_sent(&mut st);
                    drop(st);
                    for p in sent {
                        p.answer(Err(ClientError::transport_closed(reason.clone())));
                    }
                    return;
                }
                Phase::Connected => {}
            }
            Inner::next_epoch(&mut st, &reason);
            (
                Inner::take_sent(&mut st),
                st.incoming.take_all(),
                st.heartbeat.take(),
            )
        };
        if let Some(h) = heartbeat {
            h.cancel("The connection was lost");
        }
        for t in incoming {
            t.cancel(reason.clone());
        }
        for p in sent {
            p.answer(Err(ClientError::transport_closed(reason.clone())));
        }
        self.transport.close();
        let retries = self
            .options
            .reconnect
            .as_ref()
            .is_some_and(|r| r.max_retries > 0);
        if retries {
            self.st.borrow_mut().phase = Phase::Reconnecting;
            self.schedule_reconnect(0, reason);
        } else {
            self.finish_close(Some(reason));
        }
    }

    /// Moves to `Closed`: cancels a scheduled reconnection, fails every pending request,
    /// cancels running handlers, closes the transport, calls `on_close` once.
    pub(super) fn finish_close(&self, reason: Option<String>) {
        let why = reason
            .clone()
            .unwrap_or_else(|| "The client was closed".into());
        let (cancel, heartbeat, pending, incoming) = {
            let mut st = self.st.borrow_mut();
            if st.phase == Phase::Closed {
                return;
            }
            st.phase = Phase::Closed;
            Inner::next_epoch(&mut st, &why);
            st.reconnect_ticket += 1;
            (
                st.cancel_reconnect.take(),
                st.heartbeat.take(),
                st.pending.take_where(|_| true),
                st.incoming.take_all(),
            )
        };
        if let Some(c) = cancel {
            c();
        }
        if let Some(h) = heartbeat {
            h.cancel("The client closed");
        }
        for p in pending {
            p.answer(Err(ClientError::transport_closed(why.clone())));
        }
        for t in incoming {
            t.cancel(why.clone());
        }
        self.transport.close();
        let hook = self.on_close.borrow().clone();
        if let Some(f) = hook {
            f(reason);
        }
    }

    fn schedule_reconnect(self: &Rc<Self>, attempt_count: u32, last_error: String) {
        let Some(opts) = self.options.reconnect.clone() else {
            return self.finish_close(Some(last_error));
        };
        if attempt_count >= opts.max_retries {
            return self.finish_close(Some(format!(
                "Reconnection failed after {attempt_count} attempt(s): {last_error}"
            )));
        }
        let random = (self.random.borrow().clone())();
        let delay = opts.delay(attempt_count, random);
        let ticket = {
            let mut st = self.st.borrow_mut();
            st.reconnect_ticket += 1;
            st.cancel_reconnect = None;
            st.reconnect_ticket
        };
        let weak = Rc::downgrade(self);
        let reconnect: Box<dyn FnOnce()> = Box::new(move || {
            if let Some(me) = weak.upgrade() {
                Inner::reconnect_now(&me, ticket, attempt_count);
            }
        });
        let scheduler = self.scheduler.borrow().clone();
        match scheduler.schedule(reconnect, delay, attempt_count) {
            Ok(cancel) => {
                let mut st = self.st.borrow_mut();
                // A scheduler may run `reconnect` before returning; its cancel is then moot.
                if st.reconnect_ticket == ticket && st.phase == Phase::Reconnecting {
                    st.cancel_reconnect = cancel;
                }
            }
            Err(message) => {
                let e =
                    ClientError::transport(format!("the reconnection scheduler failed: {message}"));
                self.emit_error(&e);
                self.finish_close(Some(e.to_string()));
            }
        }
    }

    fn reconnect_now(me: &Rc<Inner>, ticket: u64, attempt_count: u32) {
        let epoch = {
            let mut st = me.st.borrow_mut();
            if st.reconnect_ticket != ticket || st.phase != Phase::Reconnecting {
                return;
            }
            st.reconnect_ticket += 1;
            st.cancel_reconnect = None;
            Inner::next_epoch(&mut st, "A reconnection attempt began")
        };
        let me = me.clone();
        me.runtime.clone().spawn(Box::pin(async move {
            match Inner::establish(&me, epoch).await {
                Ok(details) => {
                    let hook = me.on_reconnect.borrow().clone();
                    if let Some(f) = hook {
                        f(attempt_count + 1, &details);
                    }
                }
                Err(e) => {
                    if !me.is_current(epoch) {
                        return;
                    }
                    me.transport.close();
                    me.emit_error(&ClientError::transport(format!(
                        "reconnection attempt {} failed: {e}",
                        attempt_count + 1
                    )));
                    me.schedule_reconnect(attempt_count + 1, e.to_string());
                }
            }
        }));
    }

    pub(super) fn start_heartbeat(me: &Rc<Inner>, epoch: u64) {
        let Some(every) = me.options.heartbeat_ms.filter(|ms| *ms > 0) else {
            return;
        };
        let wait = me.options.heartbeat_timeout_ms.unwrap_or(every);
        let stop = CancellationToken::new();
        if let Some(old) = me.st.borrow_mut().heartbeat.replace(stop.clone()) {
            old.cancel("replaced");
        }
        let weak = Rc::downgrade(me);
        let runtime = me.runtime.clone();
        me.runtime.spawn(Box::pin(async move {
            loop {
                let stopped: LocalBoxFuture<'static, String> = Box::pin(stop.cancelled());
                if !matches!(
                    select3(timer(&runtime, every), stopped, never::<()>()).await,
                    First::A(())
                ) {
                    return;
                }
                let ping = {
                    let Some(me) = weak.upgrade() else { return };
                    if !me.is_current(epoch) || me.st.borrow().phase != Phase::Connected {
                        return;
                    }
                    let opts = RequestOptions {
                        timeout_ms: Some(wait),
                        ..RequestOptions::default()
                    };
                    Inner::request(&me, "ping", None, opts, true)
                };
                match ping.await {
                    Err(ClientError::RequestTimeout { timeout_ms, .. }) => {
                        if let Some(me) = weak.upgrade() {
                            me.lost(
                                epoch,
                                format!("No answer to a heartbeat ping within {timeout_ms} ms"),
                            );
                        }
                        return;
                    }
                    Err(ClientError::TransportClosed { .. }) => return,
                    _ => {}
                }
            }
        }));
    }
}

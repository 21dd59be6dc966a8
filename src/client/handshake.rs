//! The readiness handshake of the MCP-B transports, as a pure algorithm: send a check
//! (`'mcp-check-ready'`) now and every `interval_ms` until the server says it is ready
//! (`'mcp-server-ready'`), failing after `timeout_ms` or when aborted.

use std::rc::Rc;

use crate::server::{CancellationToken, LocalBoxFuture, Runtime};

use super::core::timer;
use super::wait::{never, select3, First};

/// Why the handshake did not complete.
#[derive(Clone, Debug, PartialEq)]
pub enum HandshakeError {
    /// No ready signal within the timeout.
    TimedOut {
        /// The timeout, in ms.
        after_ms: u64,
        /// How many checks were sent.
        checks: u32,
    },
    /// The transport was closed while waiting.
    Aborted {
        /// Why it was closed.
        reason: String,
    },
}

/// How a handshake is run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handshake {
    /// Re-send the check this often until ready; `None` sends it once.
    pub interval_ms: Option<u64>,
    /// Give up after this long; `None` waits for ever (or until aborted).
    pub timeout_ms: Option<u64>,
}

impl Handshake {
    /// Runs the handshake: `check` is called at once and then every interval; resolves when
    /// `ready` fires. `ready` firing before the call is success without a check.
    pub fn run(
        self,
        runtime: Rc<dyn Runtime>,
        check: Rc<dyn Fn()>,
        ready: CancellationToken,
        abort: CancellationToken,
    ) -> LocalBoxFuture<'static, Result<(), HandshakeError>> {
        Box::pin(async move {
            if ready.is_cancelled() {
                return Ok(());
            }
            let checks = Rc::new(std::cell::Cell::new(0u32));
            let counted = checks.clone();
            let rt = runtime.clone();
            let interval = self.interval_ms;
            let polling: LocalBoxFuture<'static, ()> = Box::pin(async move {
                loop {
                    counted.set(counted.get() + 1);
                    check();
                    let tick: LocalBoxFuture<'static, ()> = match interval {
                        Some(ms) => timer(&rt, ms.max(1)),
                        None => never(),
                    };
                    let got_ready: LocalBoxFuture<'static, String> = Box::pin(ready.cancelled());
                    match select3(got_ready, tick, never::<()>()).await {
                        First::A(_) => return,
                        _ => continue,
                    }
                }
            });
            let deadline: LocalBoxFuture<'static, ()> = match self.timeout_ms {
                Some(ms) => timer(&runtime, ms),
                None => never(),
            };
            let aborted: LocalBoxFuture<'static, String> = Box::pin(abort.cancelled());
            match select3(polling, deadline, aborted).await {
                First::A(()) => Ok(()),
                First::B(()) => Err(HandshakeError::TimedOut {
                    after_ms: self.timeout_ms.unwrap_or_default(),
                    checks: checks.get(),
                }),
                First::C(reason) => Err(HandshakeError::Aborted { reason }),
            }
        })
    }
}

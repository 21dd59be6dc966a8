//! What the engine needs from its host: a way to run futures and a timer.
//!
//! The engine is single-threaded and never blocks. In a browser the host is
//! `wasm_bindgen_futures::spawn_local` plus `setTimeout`; natively it is
//! [`crate::executor::LocalExecutor`].

use std::future::Future;
use std::pin::Pin;

/// A boxed, non-`Send` future.
pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// The host the engine runs on.
pub trait Runtime {
    /// Runs `fut` to completion on the current thread, after the current turn.
    ///
    /// Work spawned during one turn (one synchronous run of page script or one incoming
    /// message) must not start before that turn ends: list-changed coalescing relies on it.
    /// (A request's own answer is not spawned work: the session polls it once as the request
    /// is received, and spawns it only if it waits.)
    fn spawn(&self, fut: LocalBoxFuture<'static, ()>);

    /// A future that completes after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;

    /// The wall clock, in milliseconds since the Unix epoch (task timestamps and expiry).
    /// Natively the system clock (a [`LocalExecutor`](crate::executor::LocalExecutor) on its
    /// virtual clock moves its own); a browser host overrides it with `Date.now()`.
    fn now_ms(&self) -> f64 {
        system_now_ms()
    }
}

/// The system clock in milliseconds since the Unix epoch; 0 in wasm, which has none of its own.
pub(crate) fn system_now_ms() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    }
    #[cfg(target_arch = "wasm32")]
    {
        0.0
    }
}

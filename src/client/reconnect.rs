//! Reconnection: the exponential backoff policy and the pluggable scheduler that runs
//! each attempt (seed 004: `(reconnect, delay, attemptCount) => cancel | void`).

use std::rc::Rc;

use crate::server::{CancellationToken, LocalBoxFuture, Runtime};

use super::wait::{select3, First};

/// A function that cancels a scheduled reconnection.
pub type CancelFn = Box<dyn FnOnce()>;

/// The backoff policy. Delays are `initial_delay_ms * factor^attemptCount`, capped at
/// `max_delay_ms`; with `jitter` > 0 each delay is reduced by up to that fraction at random.
#[derive(Clone, Debug, PartialEq)]
pub struct ReconnectOptions {
    /// The first attempt's delay, in ms.
    pub initial_delay_ms: u64,
    /// No delay is longer, in ms.
    pub max_delay_ms: u64,
    /// Each delay is the one before times this.
    pub factor: f64,
    /// Attempts allowed after a connection is lost; `0` never reconnects.
    pub max_retries: u32,
    /// Fraction in `[0, 1]`; `0` (the default) keeps delays deterministic.
    pub jitter: f64,
}

impl Default for ReconnectOptions {
    fn default() -> Self {
        ReconnectOptions {
            initial_delay_ms: 1_000,
            max_delay_ms: 30_000,
            factor: 2.0,
            max_retries: 5,
            jitter: 0.0,
        }
    }
}

impl ReconnectOptions {
    /// The delay before attempt number `attempt_count` (0 for the first), given a random
    /// number in `[0, 1)` (ignored without jitter).
    pub fn delay(&self, attempt_count: u32, random: f64) -> u64 {
        let exp = i32::try_from(attempt_count).unwrap_or(i32::MAX);
        let raw = self.initial_delay_ms as f64 * self.factor.powi(exp);
        let capped = if raw.is_finite() {
            raw.min(self.max_delay_ms as f64)
        } else {
            self.max_delay_ms as f64
        };
        let jitter = self.jitter.clamp(0.0, 1.0);
        let scaled = capped * (1.0 - jitter * random.clamp(0.0, 1.0));
        scaled.max(0.0).round() as u64
    }

    /// Checks the numbers; the message names the offending field and value.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.factor.is_finite() && self.factor >= 1.0) {
            return Err(format!(
                "reconnect.factor must be a finite number >= 1, got {}",
                self.factor
            ));
        }
        if !(0.0..=1.0).contains(&self.jitter) {
            return Err(format!(
                "reconnect.jitter must be between 0 and 1, got {}",
                self.jitter
            ));
        }
        if self.max_delay_ms < self.initial_delay_ms {
            return Err(format!(
                "reconnect.maxDelayMs ({}) must not be less than reconnect.initialDelayMs ({})",
                self.max_delay_ms, self.initial_delay_ms
            ));
        }
        Ok(())
    }
}

/// Runs `reconnect` after (about) `delay_ms`. May return a function that cancels it; the
/// client calls that function when it is closed before the reconnection ran. `Err` (a
/// throwing scheduler) ends reconnection: the client reports the error and closes.
///
/// `reconnect` is safe to call late, twice, or after the client closed: only the first
/// call of the current attempt does anything.
pub trait ReconnectScheduler {
    /// Runs `reconnect` after `delay_ms`, the `attempt_count`th attempt (from 0) since the
    /// connection was lost (see the trait).
    fn schedule(
        &self,
        reconnect: Box<dyn FnOnce()>,
        delay_ms: u64,
        attempt_count: u32,
    ) -> Result<Option<CancelFn>, String>;
}

/// The default scheduler: the runtime's timer. Its cancel function drops the timer.
pub struct RuntimeScheduler(pub Rc<dyn Runtime>);

impl ReconnectScheduler for RuntimeScheduler {
    fn schedule(
        &self,
        reconnect: Box<dyn FnOnce()>,
        delay_ms: u64,
        _attempt_count: u32,
    ) -> Result<Option<CancelFn>, String> {
        let stop = CancellationToken::new();
        let sleep = self.0.sleep(delay_ms);
        let stopped: LocalBoxFuture<'static, String> = Box::pin(stop.cancelled());
        let never: LocalBoxFuture<'static, ()> = super::wait::never();
        self.0.spawn(Box::pin(async move {
            if let First::A(()) = select3(sleep, stopped, never).await {
                reconnect();
            }
        }));
        Ok(Some(Box::new(move || {
            stop.cancel("reconnection cancelled")
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_by_the_factor_and_stop_at_the_cap() {
        let o = ReconnectOptions {
            initial_delay_ms: 100,
            max_delay_ms: 1_000,
            factor: 3.0,
            max_retries: 9,
            jitter: 0.0,
        };
        let d: Vec<u64> = (0..5).map(|n| o.delay(n, 0.9)).collect();
        assert_eq!(d, vec![100, 300, 900, 1_000, 1_000]);
        assert_eq!(o.delay(u32::MAX, 0.0), 1_000);
    }

    #[test]
    fn jitter_only_shortens() {
        let o = ReconnectOptions {
            jitter: 0.5,
            ..ReconnectOptions::default()
        };
        assert_eq!(o.delay(0, 0.0), 1_000);
        assert_eq!(o.delay(0, 1.0), 500);
        assert_eq!(o.delay(1, 0.5), 1_500);
    }

    #[test]
    fn validation_names_the_field() {
        let bad = ReconnectOptions {
            factor: 0.5,
            ..ReconnectOptions::default()
        };
        assert!(bad.validate().unwrap_err().contains("reconnect.factor"));
        let bad = ReconnectOptions {
            max_delay_ms: 10,
            ..ReconnectOptions::default()
        };
        assert!(bad.validate().unwrap_err().contains("maxDelayMs"));
    }
}

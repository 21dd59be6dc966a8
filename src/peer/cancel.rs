//! Cancellation signals: the one handed to a handler, fired by `notifications/cancelled`,
//! a timeout or the connection closing.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

type Callback = Box<dyn FnOnce(&str)>;

#[derive(Default)]
struct State {
    reason: Option<String>,
    wakers: Vec<Waker>,
    callbacks: Vec<Callback>,
}

/// A single-threaded cancellation signal, like an `AbortSignal`.
///
/// Cloning shares the signal. [`CancellationToken::cancel`] is idempotent: the first
/// reason wins, and callbacks run once.
#[derive(Clone, Default)]
pub struct CancellationToken(Rc<RefCell<State>>);

impl CancellationToken {
    /// A signal that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the signal has fired.
    pub fn is_cancelled(&self) -> bool {
        self.0.borrow().reason.is_some()
    }

    /// The reason given when the signal fired.
    pub fn reason(&self) -> Option<String> {
        self.0.borrow().reason.clone()
    }

    /// Fires the signal: wakes waiters and runs callbacks (once).
    pub fn cancel(&self, reason: impl Into<String>) {
        let (wakers, callbacks, reason) = {
            let mut st = self.0.borrow_mut();
            if st.reason.is_some() {
                return;
            }
            let reason = reason.into();
            st.reason = Some(reason.clone());
            (
                std::mem::take(&mut st.wakers),
                std::mem::take(&mut st.callbacks),
                reason,
            )
        };
        for w in wakers {
            w.wake();
        }
        for cb in callbacks {
            cb(&reason);
        }
    }

    /// Runs `cb` when the signal fires (at once if it already has).
    pub fn on_cancel(&self, cb: impl FnOnce(&str) + 'static) {
        let fired = self.0.borrow().reason.clone();
        match fired {
            Some(reason) => cb(&reason),
            None => self.0.borrow_mut().callbacks.push(Box::new(cb)),
        }
    }

    /// Whether `other` is this very signal (a clone of it), not merely an equal one.
    pub fn same(&self, other: &CancellationToken) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    /// A future that completes when the signal fires.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled(self.clone())
    }
}

/// Future returned by [`CancellationToken::cancelled`].
pub struct Cancelled(CancellationToken);

impl Future for Cancelled {
    type Output = String;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<String> {
        let mut st = (self.0).0.borrow_mut();
        match &st.reason {
            Some(r) => Poll::Ready(r.clone()),
            None => {
                if !st.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    st.wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn first_reason_wins_and_callbacks_run_once() {
        let t = CancellationToken::new();
        let runs = Rc::new(Cell::new(0));
        let r = runs.clone();
        t.on_cancel(move |why| {
            assert_eq!(why, "first");
            r.set(r.get() + 1)
        });
        t.cancel("first");
        t.cancel("second");
        assert_eq!(t.reason().as_deref(), Some("first"));
        assert_eq!(runs.get(), 1);
        let late = Rc::new(Cell::new(false));
        let l = late.clone();
        t.on_cancel(move |_| l.set(true));
        assert!(late.get(), "a callback added after firing runs at once");
    }
}

//! The future tools the engine (and the client) need: racing, joining a batch, and a
//! one-shot slot an answer is written into, so neither depends on an async runtime.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::runtime::LocalBoxFuture;

/// Which of two raced futures finished first.
pub enum Either<A, B> {
    Left(A),
    Right(B),
}

/// Polls `a` then `b`; resolves with the first to finish (`a` wins ties).
pub struct Race<A, B> {
    a: LocalBoxFuture<'static, A>,
    b: LocalBoxFuture<'static, B>,
}

pub fn race<A, B>(a: LocalBoxFuture<'static, A>, b: LocalBoxFuture<'static, B>) -> Race<A, B> {
    Race { a, b }
}

impl<A, B> Future for Race<A, B> {
    type Output = Either<A, B>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(v) = self.a.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(v));
        }
        if let Poll::Ready(v) = self.b.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(v));
        }
        Poll::Pending
    }
}

/// Runs all futures concurrently; resolves with their outputs in order.
pub struct JoinAll<T> {
    futs: Vec<Option<LocalBoxFuture<'static, T>>>,
    out: Vec<Option<T>>,
}

pub fn join_all<T>(futs: Vec<LocalBoxFuture<'static, T>>) -> JoinAll<T> {
    let out = futs.iter().map(|_| None).collect();
    JoinAll {
        futs: futs.into_iter().map(Some).collect(),
        out,
    }
}

// Only boxed futures and finished outputs are stored; nothing is pinned in place.
impl<T> Unpin for JoinAll<T> {}

impl<T> Future for JoinAll<T> {
    type Output = Vec<T>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        let this = self.get_mut();
        let mut done = true;
        for (slot, out) in this.futs.iter_mut().zip(this.out.iter_mut()) {
            if let Some(f) = slot {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        *out = Some(v);
                        *slot = None;
                    }
                    Poll::Pending => done = false,
                }
            }
        }
        if done {
            Poll::Ready(this.out.iter_mut().filter_map(Option::take).collect())
        } else {
            Poll::Pending
        }
    }
}

// ---- a one-shot slot ------------------------------------------------------------------------

struct SlotState<T> {
    value: Option<T>,
    waker: Option<Waker>,
    filled: bool,
}

/// The writing end of a one-shot slot. Only the first [`Filler::fill`] counts; clones write
/// into the same slot.
#[derive(Clone)]
pub struct Filler<T>(Rc<RefCell<SlotState<T>>>);

/// The reading end: a future resolving with the value filled in.
pub struct Slot<T>(Rc<RefCell<SlotState<T>>>);

/// A fresh one-shot slot.
pub fn slot<T>() -> (Filler<T>, Slot<T>) {
    let st = Rc::new(RefCell::new(SlotState {
        value: None,
        waker: None,
        filled: false,
    }));
    (Filler(st.clone()), Slot(st))
}

impl<T> Filler<T> {
    /// Fills the slot; `false` when it was already filled.
    pub fn fill(&self, value: T) -> bool {
        let waker = {
            let mut st = self.0.borrow_mut();
            if st.filled {
                return false;
            }
            st.filled = true;
            st.value = Some(value);
            st.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
        true
    }
}

impl<T> Future for Slot<T> {
    type Output = T;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut st = self.0.borrow_mut();
        match st.value.take() {
            Some(v) => Poll::Ready(v),
            None => {
                st.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

//! The two small future tools the client needs: a one-shot slot a response is written
//! into, and a three-way race (response, timeout, cancellation). No async runtime needed.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::server::LocalBoxFuture;

struct SlotState<T> {
    value: Option<T>,
    waker: Option<Waker>,
    filled: bool,
}

/// The writing end of a one-shot slot. Only the first [`Filler::fill`] counts.
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

/// Which of three raced futures finished first.
pub enum First<A, B, C> {
    A(A),
    B(B),
    C(C),
}

/// Polls `a`, `b`, `c` in that order; resolves with the first to finish (earlier wins ties).
pub struct Select3<A, B, C> {
    a: LocalBoxFuture<'static, A>,
    b: LocalBoxFuture<'static, B>,
    c: LocalBoxFuture<'static, C>,
}

pub fn select3<A, B, C>(
    a: LocalBoxFuture<'static, A>,
    b: LocalBoxFuture<'static, B>,
    c: LocalBoxFuture<'static, C>,
) -> Select3<A, B, C> {
    Select3 { a, b, c }
}

impl<A, B, C> Future for Select3<A, B, C> {
    type Output = First<A, B, C>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(v) = self.a.as_mut().poll(cx) {
            return Poll::Ready(First::A(v));
        }
        if let Poll::Ready(v) = self.b.as_mut().poll(cx) {
            return Poll::Ready(First::B(v));
        }
        if let Poll::Ready(v) = self.c.as_mut().poll(cx) {
            return Poll::Ready(First::C(v));
        }
        Poll::Pending
    }
}

/// A future that never completes (the "no cancellation" / "no timeout" arm of a race).
pub fn never<T: 'static>() -> LocalBoxFuture<'static, T> {
    Box::pin(std::future::pending())
}

//! The small future tools the client needs beyond [`crate::peer`]: a three-way race
//! (response, timeout, cancellation). No async runtime needed.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::server::LocalBoxFuture;

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

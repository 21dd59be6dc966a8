//! The future tools the engine (and the client) need: racing and joining a batch, so neither
//! depends on an async runtime. The one-shot slot lives in [`crate::peer::slot`].

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

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

pub use crate::peer::slot::{slot, Filler, Slot};

//! Requests this end sent and waits on: ids, correlation with their answers, and the
//! `notifications/cancelled` an abandoned one owes the other end.

use crate::collections::VecMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::slot::{slot, Filler, Slot};
use crate::protocol::RequestId;

/// The requests in flight from this end, each with the caller's data `D` and the slot its
/// answer `R` goes into. Ids are numbers from 1 up, never reused by one table.
pub struct Outgoing<D, R> {
    next: i64,
    pending: VecMap<i64, Sent<D, R>>,
}

/// One request taken out of the table: its data, and the means to answer its waiter.
pub struct Sent<D, R> {
    /// What the caller recorded with the request.
    pub data: D,
    filler: Filler<R>,
}

impl<D, R> Sent<D, R> {
    /// Hands `value` to whoever waits on the request.
    pub fn answer(self, value: R) {
        self.filler.fill(value);
    }
}

impl<D, R> Default for Outgoing<D, R> {
    fn default() -> Self {
        Outgoing {
            next: 1,
            pending: VecMap::new(),
        }
    }
}

impl<D, R> Outgoing<D, R> {
    /// Allocates the next id and records a request under it with `data`; the slot resolves
    /// when [`Sent::answer`] is called on it.
    pub fn begin(&mut self, data: D) -> (i64, Slot<R>) {
        self.begin_with(|_| data)
    }

    /// [`Outgoing::begin`] for data that holds its own id (the message itself, a progress
    /// token): `make` gets the id allocated.
    pub fn begin_with(&mut self, make: impl FnOnce(i64) -> D) -> (i64, Slot<R>) {
        let id = self.next;
        self.next += 1;
        let (filler, waiter) = slot();
        let data = make(id);
        self.pending.insert(id, Sent { data, filler });
        (id, waiter)
    }

    /// Takes the request an answer with `id` is for, if this table sent it and `accept`
    /// agrees. String ids are never ours.
    pub fn take_answered(
        &mut self,
        id: &RequestId,
        accept: impl FnOnce(&D) -> bool,
    ) -> Option<Sent<D, R>> {
        let RequestId::Number(n) = id else {
            return None;
        };
        if !self.pending.get(n).is_some_and(|s| accept(&s.data)) {
            return None;
        }
        self.pending.remove(n)
    }

    /// Forgets request `id` (its waiter stopped waiting); its data when it was still here.
    pub fn forget(&mut self, id: i64) -> Option<D> {
        self.pending.remove(&id).map(|s| s.data)
    }

    /// Takes every request `pick` chooses, in id order.
    pub fn take_where(&mut self, mut pick: impl FnMut(&D) -> bool) -> Vec<Sent<D, R>> {
        let ids: Vec<i64> = self
            .pending
            .iter()
            .filter(|(_, s)| pick(&s.data))
            .map(|(id, _)| *id)
            .collect();
        ids.into_iter()
            .filter_map(|id| self.pending.remove(&id))
            .collect()
    }

    /// The requests in flight, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &D)> {
        self.pending.iter().map(|(id, s)| (*id, &s.data))
    }

    /// The requests in flight, mutable, in id order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (i64, &mut D)> {
        self.pending.iter_mut().map(|(id, s)| (*id, &mut s.data))
    }

    /// How many requests are in flight.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

/// Abandons an outgoing request when dropped, unless [`Abandon::disarm`]ed first: the hook
/// it holds forgets the request and tells the other end. For a waiter that races the answer
/// against a timeout or a cancellation, and so holds the slot apart from this guard.
pub struct Abandon(Option<Box<dyn FnOnce()>>);

impl Abandon {
    /// A guard running `hook` when dropped armed.
    pub fn new(hook: impl FnOnce() + 'static) -> Self {
        Abandon(Some(Box::new(hook)))
    }

    /// The request was answered: dropping the guard does nothing.
    pub fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        if let Some(hook) = self.0.take() {
            hook();
        }
    }
}

/// The answer to one outgoing request, as a future. Dropped before it resolves (its waiter
/// was cancelled or timed out), it runs the abandon hook it was made with, which forgets the
/// request and tells the other end; resolved, it runs nothing.
pub struct Answer<R> {
    waiter: Slot<R>,
    guard: Abandon,
}

impl<R> Answer<R> {
    /// The answer `waiter` will hold; `on_abandon` runs if this is dropped unresolved.
    pub fn new(waiter: Slot<R>, on_abandon: impl FnOnce() + 'static) -> Self {
        Answer {
            waiter,
            guard: Abandon::new(on_abandon),
        }
    }
}

impl<R> Future for Answer<R> {
    type Output = R;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        let polled = Pin::new(&mut self.waiter).poll(cx);
        if polled.is_ready() {
            self.guard.disarm();
        }
        polled
    }
}

//! A one-shot slot: one side fills it once, the other awaits the value. The answer to an
//! outgoing request is written into one ([`super::Outgoing`]); the task store uses them too.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peer::tests::ready;

    #[test]
    fn only_the_first_fill_counts_and_clones_share_the_slot() {
        let (filler, slot) = slot::<u32>();
        let again = filler.clone();
        assert!(filler.fill(1));
        assert!(!again.fill(2), "a second fill is refused");
        assert_eq!(ready(slot), 1);
    }
}

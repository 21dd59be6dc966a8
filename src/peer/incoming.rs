//! Requests the other end sent and this end is still serving, each with the cancellation
//! signal `notifications/cancelled` fires.

use super::cancel::CancellationToken;
use crate::collections::VecMap;
use crate::protocol::RequestId;

/// The incoming requests being served, by id. An id is taken while its request runs (a
/// second request with it is refused by the caller) and free again once it finishes or is
/// cancelled.
#[derive(Default)]
pub struct InFlight(VecMap<RequestId, CancellationToken>);

impl InFlight {
    /// Whether a request with `id` is being served.
    pub fn contains(&self, id: &RequestId) -> bool {
        self.0.contains_key(id)
    }

    /// Records request `id`, cancellable with `token`.
    pub fn start(&mut self, id: RequestId, token: CancellationToken) {
        self.0.insert(id, token);
    }

    /// Removes request `id` if `token` is still its entry (after a cancellation the other
    /// end may reuse the id); whether it was.
    pub fn finish(&mut self, id: &RequestId, token: &CancellationToken) -> bool {
        let mine = self.0.get(id).is_some_and(|t| t.same(token));
        if mine {
            self.0.remove(id);
        }
        mine
    }

    /// Removes request `id` and returns its signal, for the caller to fire once it holds no
    /// borrow (firing runs the handler's callbacks).
    pub fn cancel(&mut self, id: &RequestId) -> Option<CancellationToken> {
        self.0.remove(id)
    }

    /// Removes every request and returns their signals.
    pub fn take_all(&mut self) -> Vec<CancellationToken> {
        std::mem::take(&mut self.0)
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    }

    /// The ids being served.
    pub fn ids(&self) -> impl Iterator<Item = &RequestId> {
        self.0.keys()
    }

    /// How many requests are being served.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

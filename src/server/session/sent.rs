//! [`Sent`]: what a session hands its sink.

use std::rc::Rc;

use crate::protocol::jsonrpc;
use crate::protocol::RequestId;

/// JSON text shared by every answer that carries it, while it is current. The text is boxed
/// inside the `Rc`: a sink that remembers the last one it converted holds it weakly, and a
/// `Weak` keeps its whole allocation (an `Rc<str>`'s text included) until it is dropped; here
/// it keeps a pointer's worth, and the text goes when the last answer does. The box also lets
/// a text built in a `String` become shared without being copied.
pub type SharedText = Rc<Box<str>>;

/// A message as a session hands it to its sink.
pub enum Sent {
    /// A whole message as JSON text.
    Text(String),
    /// A success answer whose result is JSON text shared by every answer until what it shows
    /// changes (a whole `tools/list`, see [`crate::server::call::Reply::Text`]): the same `Rc`
    /// each time, so a sink that converts results (a browser transport parsing them into JS
    /// objects) can convert one once and reuse it while it is current.
    Shared {
        /// The request's id.
        id: RequestId,
        /// The result, JSON text.
        result: SharedText,
    },
}

impl Sent {
    /// The message as JSON text.
    pub fn into_text(self) -> String {
        match self {
            Sent::Text(t) => t,
            Sent::Shared { id, result } => jsonrpc::success_text(&id, &result),
        }
    }
}

//! [`Sent`]: what a session hands its sink.

use std::rc::Rc;

use serde_json::Value;

use crate::protocol::RequestId;
use crate::protocol::{json_text, jsonrpc};

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
    /// A whole message as a value, not yet written: a sink that makes a JS value of it
    /// converts it directly (a browser wire, whose long strings then cross into JS without
    /// being escaped and parsed), any other writes its text. An answer that waited for a
    /// handler (a tool's result) is sent so.
    Message(Value),
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
            Sent::Message(v) => json_text::to_string(&v),
            Sent::Shared { id, result } => jsonrpc::success_text(&id, &result),
        }
    }
}

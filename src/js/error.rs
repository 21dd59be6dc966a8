//! The errors the wasm layers (the browser API, transports, the client) report to pages, and
//! their one mapping to JS exceptions: a `DOMException` of the WebIDL name each variant stands for, or a `TypeError`.
//!
//! Code that fails towards a page builds a [`DomError`] with its message and converts it
//! with [`DomError::into_js`]; no other code names a `DOMException`.

use wasm_bindgen::JsValue;

use super as js;

/// An exception a page sees, with its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DomError {
    /// `InvalidStateError`: the object or its document is not in a state that allows the
    /// call (a detached document, a duplicate or malformed tool name, a closed session).
    InvalidState(String),
    /// `SecurityError`: the document or a URL it names is not trustworthy enough.
    Security(String),
    /// `UnknownError`: a tool that does not exist for the caller, or whose call failed.
    Unknown(String),
    /// `AbortError`: the operation was cancelled.
    Abort(String),
    /// `DataError`: a tool's input does not satisfy its input schema.
    Data(String),
    /// `TimeoutError`: a peer did not answer in time.
    Timeout(String),
    /// `NotAllowedError`: the document is not allowed the feature (permissions policy).
    NotAllowed(String),
    /// A JS `TypeError` (not a `DOMException`): a malformed definition or argument.
    Type(String),
}

impl DomError {
    /// The exception's `name`: the `DOMException` name, or `"TypeError"`.
    pub fn name(&self) -> &'static str {
        match self {
            DomError::InvalidState(_) => "InvalidStateError",
            DomError::Security(_) => "SecurityError",
            DomError::Unknown(_) => "UnknownError",
            DomError::Abort(_) => "AbortError",
            DomError::Data(_) => "DataError",
            DomError::Timeout(_) => "TimeoutError",
            DomError::NotAllowed(_) => "NotAllowedError",
            DomError::Type(_) => "TypeError",
        }
    }

    /// The error an exception named `name` stands for (the inverse of [`DomError::name`]),
    /// for exceptions that crossed a wire as a name and a message; a name this mapping
    /// does not know becomes `UnknownError`.
    pub fn from_name(name: &str, message: String) -> DomError {
        match name {
            "InvalidStateError" => DomError::InvalidState(message),
            "SecurityError" => DomError::Security(message),
            "AbortError" => DomError::Abort(message),
            "DataError" => DomError::Data(message),
            "TimeoutError" => DomError::Timeout(message),
            "NotAllowedError" => DomError::NotAllowed(message),
            "TypeError" => DomError::Type(message),
            _ => DomError::Unknown(message),
        }
    }

    /// The exception's `message`.
    pub fn message(&self) -> &str {
        match self {
            DomError::InvalidState(m)
            | DomError::Security(m)
            | DomError::Unknown(m)
            | DomError::Abort(m)
            | DomError::Data(m)
            | DomError::Timeout(m)
            | DomError::NotAllowed(m)
            | DomError::Type(m) => m,
        }
    }

    /// The one mapping to a JS exception: a `DOMException` named [`DomError::name`] with the
    /// message (made with this realm's constructor, see `js::dom_exception`), or a
    /// `TypeError` for [`DomError::Type`].
    pub fn into_js(self) -> JsValue {
        match &self {
            DomError::Type(m) => js::type_error(m),
            _ => js::dom_exception(self.name(), self.message()),
        }
    }
}

impl From<DomError> for JsValue {
    fn from(e: DomError) -> JsValue {
        e.into_js()
    }
}

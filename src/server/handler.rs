//! Handlers: what a tool, resource, prompt or completion does when called.
//!
//! Each is a trait object returning a future (single-threaded, no `Send` bound), so the
//! browser layer can wrap JS functions and native code can use closures. Every handler
//! gets a [`RequestContext`] carrying its cancellation signal and progress reporter.

use crate::collections::VecMap;
use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::rc::Rc;

use super::context::RequestContext;
use super::held::{HeldArguments, HeldPlace, PathStep};
use super::runtime::LocalBoxFuture;

/// A handler failure: becomes an `isError` tool result, or a JSON-RPC error for
/// resources and prompts.
#[derive(Clone, Debug, PartialEq)]
pub struct HandlerError {
    /// What went wrong (the `isError` text, or the JSON-RPC error's message).
    pub message: String,
    /// Anything more (the JSON-RPC error's `data`).
    pub data: Option<Value>,
    /// A JSON-RPC error code: the failure is a protocol error, not a tool execution error.
    /// A tool running as a task then ends `failed` with this error (SEP-2663) instead of
    /// `completed` with an `isError` result.
    pub code: Option<i64>,
}

impl HandlerError {
    /// A tool execution error with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        HandlerError {
            message: message.into(),
            data: None,
            code: None,
        }
    }

    /// A protocol error with a JSON-RPC `code` (see [`HandlerError::code`]).
    pub fn protocol(code: i64, message: impl Into<String>) -> Self {
        HandlerError {
            code: Some(code),
            ..HandlerError::new(message)
        }
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for HandlerError {
    fn from(message: String) -> Self {
        HandlerError::new(message)
    }
}

impl From<&str> for HandlerError {
    fn from(message: &str) -> Self {
        HandlerError::new(message)
    }
}

/// What a handler's future resolves to.
pub type HandlerResult = Result<Value, HandlerError>;

/// Runs a tool. `args` has already been validated against the tool's input schema.
///
/// The value is normalized by [`super::results::call_tool_result`]: a `CallToolResult`-shaped
/// object is used as is, a string becomes text content, anything else is JSON text plus
/// `structuredContent`.
pub trait ToolHandler {
    /// Runs the tool with `args`; `ctx` carries the request's cancellation, progress, logging and requests to the client.
    fn call(&self, args: Value, ctx: RequestContext) -> LocalBoxFuture<'static, HandlerResult>;

    /// Runs the tool with arguments the engine may still hold: a `tools/call` keeps them for
    /// its later rounds (after an input-required result the engine asks the client, then runs
    /// the tool again with the same arguments). By default [`call`](Self::call) with them,
    /// copied only while they are still held. A handler that only reads its arguments
    /// implements it to spare that copy on every call (the page's functions, which get a JS
    /// copy of them).
    fn call_shared(
        &self,
        args: Rc<Value>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        self.call(Rc::unwrap_or_clone(args), ctx)
    }

    /// Runs the tool with arguments that carry markers in place of long strings a transport
    /// held out of the engine, which `held` has (see
    /// [`HeldArguments`]). By default
    /// [`call_shared`](Self::call_shared) with the texts read in; a handler that can take the
    /// strings as they are (the page's functions, which get the page's own strings) implements
    /// it.
    fn call_holding(
        &self,
        args: Rc<Value>,
        held: Rc<HeldArguments>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        let mut args = Rc::unwrap_or_clone(args);
        held.read_into(&mut args);
        self.call_shared(Rc::new(args), ctx)
    }

    /// Whether the handler takes its arguments as JSON text ([`call_text`](Self::call_text))
    /// as well as it takes a value: `false` by default, and a `tools/call`'s arguments are
    /// then read into a value once, which every round of the call shares.
    fn takes_text(&self) -> bool {
        false
    }

    /// Runs the tool with arguments given as the JSON text of an object, already validated
    /// and known to be JSON `serde_json` reads (a `tools/call`'s, as the agent sent them: the
    /// engine never made them a tree of values), when [`takes_text`](Self::takes_text) says
    /// so. By default [`call_shared`](Self::call_shared) with the text read; a handler that
    /// takes JSON text as it is (the page's functions, which get `JSON.parse`'s copy)
    /// implements both.
    fn call_text(
        &self,
        args: Rc<str>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        match read_text(&args) {
            Ok(args) => self.call_shared(Rc::new(args), ctx),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    /// [`call_text`](Self::call_text) of arguments whose long strings a transport held out of
    /// the engine: `args` has `null` where each was, `places` says where each goes back (see
    /// [`HeldArguments::apart`]). By default [`call_shared`](Self::call_shared) with the text
    /// read and the strings' texts put in their places; a page's function gets the page's own
    /// strings there.
    fn call_text_holding(
        &self,
        args: Rc<str>,
        places: Rc<[HeldPlace]>,
        held: Rc<HeldArguments>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        let mut value = match read_text(&args) {
            Ok(v) => v,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        for place in places.iter() {
            let mut at = Some(&mut value);
            for step in &place.path {
                at = match step {
                    PathStep::Key(k) => at.and_then(|v| v.get_mut(k.as_str())),
                    PathStep::Index(i) => at.and_then(|v| v.get_mut(*i)),
                };
            }
            if let (Some(at), Some(text)) = (at, held.get(&place.marker)) {
                *at = Value::String(text.text());
            }
        }
        self.call_shared(Rc::new(value), ctx)
    }
}

/// Arguments given as text, read for a handler that takes a value (text the engine checked,
/// or wrote from a value: an error only for text handed over otherwise).
fn read_text(args: &str) -> Result<Value, HandlerError> {
    crate::protocol::values::parse(args)
        .map_err(|e| HandlerError::new(format!("The arguments cannot be read: {e}")))
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Value, RequestContext) -> Fut,
    Fut: Future<Output = HandlerResult> + 'static,
{
    fn call(&self, args: Value, ctx: RequestContext) -> LocalBoxFuture<'static, HandlerResult> {
        Box::pin(self(args, ctx))
    }
}

/// Reads a resource. `vars` holds the URI template's variables (empty for static URIs).
///
/// The value may be a `ReadResourceResult` (`{contents: [...]}`), an array of resource
/// contents, or a string (text contents with the resource's MIME type).
pub trait ResourceHandler {
    /// Reads the resource at `uri`; `vars` are the template's variables.
    fn read(
        &self,
        uri: String,
        vars: VecMap<String, String>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult>;
}

impl<F, Fut> ResourceHandler for F
where
    F: Fn(String, VecMap<String, String>, RequestContext) -> Fut,
    Fut: Future<Output = HandlerResult> + 'static,
{
    fn read(
        &self,
        uri: String,
        vars: VecMap<String, String>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        Box::pin(self(uri, vars, ctx))
    }
}

/// Renders a prompt from its (string) arguments.
///
/// The value may be a `GetPromptResult` (`{messages: [...]}`), an array of messages, or a
/// string (one user text message).
pub trait PromptHandler {
    /// Renders the prompt with `args`.
    fn get(
        &self,
        args: VecMap<String, String>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult>;
}

impl<F, Fut> PromptHandler for F
where
    F: Fn(VecMap<String, String>, RequestContext) -> Fut,
    Fut: Future<Output = HandlerResult> + 'static,
{
    fn get(
        &self,
        args: VecMap<String, String>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        Box::pin(self(args, ctx))
    }
}

/// Suggests values for one argument of a prompt or URI template.
///
/// Gets the argument name, the partial value and the already-resolved arguments; resolves
/// to an array of strings or a `{values, total?, hasMore?}` object.
pub trait Completer {
    /// The suggestions for `argument`'s partial `value`, given the arguments already resolved.
    fn complete(
        &self,
        argument: String,
        value: String,
        context: VecMap<String, String>,
    ) -> LocalBoxFuture<'static, HandlerResult>;
}

impl<F, Fut> Completer for F
where
    F: Fn(String, String, VecMap<String, String>) -> Fut,
    Fut: Future<Output = HandlerResult> + 'static,
{
    fn complete(
        &self,
        argument: String,
        value: String,
        context: VecMap<String, String>,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        Box::pin(self(argument, value, context))
    }
}

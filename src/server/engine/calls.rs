//! Calling a tool: waiting for the validator, checking the arguments, running the handler
//! with its timeout, and checking what it returned against the output schema.

use serde_json::{Map, Value};
use std::rc::Rc;

use super::Server;
use crate::protocol::json_text;
use crate::server::cancel::CancellationToken;
use crate::server::context::RequestContext;
use crate::server::futures::{race, Either};
use crate::server::handler::HandlerResult;
use crate::server::held::{HeldArguments, HeldPlace, Holder};
use crate::server::input_required;
use crate::server::registry::Tool;
use crate::server::results;
use crate::server::runtime::LocalBoxFuture;
use crate::server::validator::{describe_all, CompiledSchema, SchemaViolation};

/// Why a direct tool call could not run.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// No tool of that name.
    UnknownTool(String),
    /// Arguments that are not an object.
    NotAnObject(String),
    /// Arguments violating the input schema.
    InvalidArguments {
        /// The tool.
        tool: String,
        /// Each violation, with its path and keyword.
        violations: Vec<SchemaViolation>,
    },
    /// The tool has a schema but the validator will never be ready (see
    /// [`Server::validator_ready`]): the call is refused rather than run unchecked.
    ValidatorUnavailable {
        /// The tool.
        tool: String,
        /// Why the validator cannot be loaded.
        reason: String,
    },
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::UnknownTool(n) => write!(f, "Unknown tool: {n}"),
            CallError::NotAnObject(got) => {
                write!(f, "Tool arguments must be an object, got {got}")
            }
            CallError::InvalidArguments { tool, violations } => {
                write!(f, "Invalid arguments for tool {tool}: ")?;
                f.write_str(&describe_all(violations))
            }
            CallError::ValidatorUnavailable { tool, reason } => write!(
                f,
                "Tool {tool} was not called: its schema cannot be checked ({reason})"
            ),
        }
    }
}

/// A validated call's arguments, as the handler gets them (shared by every round of the
/// call: a handler that only reads them copies nothing).
#[derive(Clone)]
pub(crate) enum ToolArgs {
    /// A value, with the long strings a transport held out of it, if any.
    Value(Rc<Value>, Option<Rc<HeldArguments>>),
    /// JSON text of an object, as the agent's message had it (`Call::arguments`), or written
    /// from the value it was read into.
    Text(Rc<str>),
    /// JSON text of an object with `null` where each of the held strings goes back
    /// ([`HeldArguments::apart`]).
    TextHolding(Rc<str>, Rc<[HeldPlace]>, Rc<HeldArguments>),
}

impl Server {
    // ---- calling tools --------------------------------------------------------------

    /// What a call of tool `name` must wait for before [`Server::check_call`] can check it:
    /// `None` when nothing (no such tool, a tool without schemas, or a validator that is
    /// ready — always so natively). Otherwise the future resolves once the validator is
    /// ready, or to [`CallError::ValidatorUnavailable`] when it never will be (the browser's
    /// validator module could not be loaded).
    pub fn validator_ready(
        &self,
        name: &str,
    ) -> Option<LocalBoxFuture<'static, Result<(), CallError>>> {
        let tool = self.tool(name)?;
        self.validator_ready_for(&tool)
    }

    /// [`Server::validator_ready`] for a tool already looked up.
    pub fn validator_ready_for(
        &self,
        tool: &Tool,
    ) -> Option<LocalBoxFuture<'static, Result<(), CallError>>> {
        let deferred =
            |s: &Option<Rc<dyn CompiledSchema>>| s.as_ref().is_some_and(|s| s.is_deferred());
        if !deferred(&tool.input) && !deferred(&tool.output) {
            return None;
        }
        let ready = self.0.compiler.ready()?;
        let tool = tool.def.name.clone();
        Some(Box::pin(async move {
            ready
                .await
                .map_err(|reason| CallError::ValidatorUnavailable { tool, reason })
        }))
    }

    /// Looks a tool up and validates `args` against its input schema.
    pub fn check_call(&self, name: &str, args: &Value) -> Result<Rc<Tool>, CallError> {
        let tool = self
            .tool(name)
            .ok_or_else(|| CallError::UnknownTool(name.to_string()))?;
        self.check_args(&tool, args)?;
        Ok(tool)
    }

    /// Validates `args` against the input schema of a tool already looked up.
    pub fn check_args(&self, tool: &Tool, args: &Value) -> Result<(), CallError> {
        if !args.is_object() {
            return Err(CallError::NotAnObject(crate::protocol::jsonrpc::compact(
                args,
            )));
        }
        if let Some(schema) = &tool.input {
            let violations = schema.validate(args);
            if !violations.is_empty() {
                return Err(CallError::InvalidArguments {
                    tool: tool.def.name.clone(),
                    violations,
                });
            }
        }
        Ok(())
    }

    /// Runs a validated tool: handler, timeout, normalization, output-schema check.
    /// Resolves to a `CallToolResult` object (before per-version shaping).
    pub(crate) fn run_tool(
        &self,
        tool: Rc<Tool>,
        args: ToolArgs,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, Map<String, Value>> {
        let timeout = self.0.config.tool_timeout_ms;
        let runtime = self.0.runtime.clone();
        Box::pin(async move {
            let cancel: CancellationToken = ctx.cancel.clone();
            let holder = ctx.holder.clone();
            let call = match args {
                ToolArgs::Value(args, None) => tool.def.handler.call_shared(args, ctx),
                ToolArgs::Value(args, Some(held)) => tool.def.handler.call_holding(args, held, ctx),
                ToolArgs::Text(text) => tool.def.handler.call_text(text, ctx),
                ToolArgs::TextHolding(text, places, held) => {
                    tool.def.handler.call_text_holding(text, places, held, ctx)
                }
            };
            let outcome = match timeout {
                None => Some(call.await),
                Some(ms) => match race(call, runtime.sleep(ms)).await {
                    Either::Left(r) => Some(r),
                    Either::Right(()) => {
                        cancel.cancel(format!("Tool {} timed out after {ms} ms", tool.def.name));
                        None
                    }
                },
            };
            match outcome {
                None => results::tool_error(format!(
                    "Tool {} did not finish within {} ms",
                    tool.def.name,
                    timeout.unwrap_or_default()
                )),
                Some(r) => tool_outcome(&tool, r, holder.as_deref()),
            }
        })
    }

    /// A tool handler's outcome as a `CallToolResult` object (before per-version shaping):
    /// normalized and checked against the output schema; an error becomes an `isError`
    /// result; an input-required result is passed on untouched.
    pub(crate) fn tool_outcome(&self, tool: &Tool, r: HandlerResult) -> Map<String, Value> {
        tool_outcome(tool, r, None)
    }

    /// Validates arguments, then runs the tool, as MCP `tools/call` does but outside any
    /// session.
    pub fn call_tool(
        &self,
        name: &str,
        args: Value,
        ctx: RequestContext,
    ) -> Result<LocalBoxFuture<'static, Map<String, Value>>, CallError> {
        let tool = self.check_call(name, &args)?;
        Ok(self.run_tool(tool, ToolArgs::Value(Rc::new(args), None), ctx))
    }
}

/// `holder` is the request's, where the result may carry a held `structuredContent`.
fn tool_outcome(tool: &Tool, r: HandlerResult, holder: Option<&Holder>) -> Map<String, Value> {
    match r {
        Err(e) => results::tool_error(e.message),
        // Input-required results go to the caller untouched (tools/call drives them).
        Ok(Value::Object(o))
            if o.get("resultType").and_then(Value::as_str)
                == Some(input_required::INPUT_REQUIRED) =>
        {
            o
        }
        Ok(value) => check_output(tool, results::call_tool_result(value), holder),
    }
}

/// Checks `structuredContent` against the tool's output schema (successful results only). A
/// held one (an empty object in its place, `server::held`) is checked from its JSON text,
/// which is read into a value only for a schema that cannot check the text as it reads it, or
/// to say why the schema refuses it.
fn check_output(
    tool: &Tool,
    result: Map<String, Value>,
    holder: Option<&Holder>,
) -> Map<String, Value> {
    let Some(schema) = &tool.output else {
        return result;
    };
    if result.get("isError") == Some(&Value::Bool(true)) {
        return result;
    }
    match result.get("structuredContent") {
        None => results::tool_error(format!(
            "Tool {} declares an outputSchema but returned no structuredContent",
            tool.def.name
        )),
        Some(sc) => {
            let held = match sc {
                Value::Object(o) if o.is_empty() => holder.and_then(Holder::unchecked_text),
                _ => None,
            };
            let violations = match held {
                Some(text) if schema.accepts_text(&text) => Vec::new(),
                Some(text) => match json_text::read(&text) {
                    Ok(value) => schema.validate(&value),
                    Err(e) => {
                        return results::tool_error(format!(
                            "Tool {} returned structuredContent that cannot be read: {e}",
                            tool.def.name
                        ))
                    }
                },
                None => schema.validate(sc),
            };
            if violations.is_empty() {
                result
            } else {
                results::tool_error(format!(
                    "Tool {} returned structuredContent that does not match its outputSchema: {}",
                    tool.def.name,
                    describe_all(&violations)
                ))
            }
        }
    }
}

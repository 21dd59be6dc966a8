//! The engine: an MCP server in pure Rust (no web-sys, no js-sys).
//!
//! A [`Server`] owns the one registry of tools, resources and prompts. Each client
//! connects as a [`Session`]: incoming JSON text goes to [`Session::receive`], outgoing
//! text to the sink given to [`Server::connect`]. Handlers are trait objects returning
//! futures; the host runs them through the [`Runtime`] it supplies.

mod call;
pub mod context;
mod crypto;
pub(crate) mod depth;
pub mod engine;
pub mod error;
pub(crate) mod futures;
pub mod handler;
pub mod held;
pub mod input_required;
pub mod limits;
pub mod logging;
mod methods;
pub mod pagination;
pub mod plain_schema;
pub mod registry;
pub mod results;
pub mod runtime;
pub mod session;
pub mod shape;
pub mod skills;
pub mod tasks;
pub mod uri_template;
pub mod validator;

pub use crate::peer::cancel;
pub use crate::peer::CancellationToken;
pub use context::{ProgressReporter, RequestContext};
pub use engine::{CallError, Server, ServerConfig, ServerInfo};
pub use error::ServerError;
pub use handler::{
    Completer, HandlerError, HandlerResult, PromptHandler, ResourceHandler, ToolHandler,
};
pub use held::{Held, HeldArguments, HeldPlace, HeldText, HeldTexts, PathStep};
pub use input_required::{Inputs, StateKey};
pub use limits::Limits;
pub use logging::LogLevel;
pub use methods::capabilities;
pub use registry::{
    ListKind, PromptArgument, PromptDef, RegistryError, ResourceDef, SchemaText, ToolDef,
};
pub use runtime::{LocalBoxFuture, Runtime};
pub use session::{
    Incoming, Repeats, Replaced, Sent, Session, SessionChain, SharedResult, SharedText,
};
pub use skills::{SkillContent, SkillDef, SkillFile, SKILLS_EXTENSION};
pub use tasks::{TaskLimits, TaskStatus, TaskSupport, TASKS_EXTENSION};
pub use validator::{CompiledSchema, SchemaCompiler, SchemaViolation};

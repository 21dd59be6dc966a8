//! [`Server`]: the registry, the sessions connected to it, and change notifications.

use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use super::cancel::CancellationToken;
use super::context::{RequestContext, SessionLink};
use super::futures::{race, Either};
use super::handler::HandlerResult;
use super::input_required::{self, StateKey};
use super::limits::Limits;
use super::logging::LogLevel;
use super::registry::{
    ListKind, PromptDef, Registry, RegistryError, Resource, ResourceDef, Tool, ToolDef,
};
use super::results;
use super::runtime::{LocalBoxFuture, Runtime};
use super::session::{Session, SessionInner};
use super::skills::SkillRegistry;
use super::tasks::{TaskLimits, TaskStore};
use super::validator::{SchemaCompiler, SchemaViolation};
use crate::protocol::ProtocolVersion;

/// Who the server says it is.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub website_url: Option<String>,
    pub icons: Vec<Value>,
    /// Sent as `instructions` in the `initialize` / `server/discover` result.
    pub instructions: Option<String>,
}

impl ServerInfo {
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerInfo {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: Vec::new(),
            instructions: None,
        }
    }

    /// The `Implementation` object for `version`.
    pub fn implementation(&self, version: ProtocolVersion) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::from(self.name.clone()));
        m.insert("version".into(), Value::from(self.version.clone()));
        if version.has_titles() {
            if let Some(t) = &self.title {
                m.insert("title".into(), Value::from(t.clone()));
            }
        }
        if version.has_icons() {
            if let Some(d) = &self.description {
                m.insert("description".into(), Value::from(d.clone()));
            }
            if let Some(u) = &self.website_url {
                m.insert("websiteUrl".into(), Value::from(u.clone()));
            }
            if !self.icons.is_empty() {
                m.insert("icons".into(), Value::Array(self.icons.clone()));
            }
        }
        Value::Object(m)
    }
}

/// Server settings.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub limits: Limits,
    /// Items per page in list results. Default: all of them in one page. Paging is the
    /// server's choice (the client follows `nextCursor`), but many clients call
    /// `tools/list` once and never follow the cursor: a smaller page would hide tools
    /// from them. Set a size to paginate long lists.
    pub page_size: usize,
    /// A tool call still running after this long ends with an `isError` result and its
    /// handler's signal fires. `None`: no limit (the client may cancel).
    pub tool_timeout_ms: Option<u64>,
    /// `ttlMs` on 2026-07-28 list/read/discover results.
    pub ttl_ms: u64,
    /// `cacheScope` on 2026-07-28 list/read/discover results.
    pub cache_scope: &'static str,
    /// Limits on tasks (the Tasks extension, [`super::tasks`]).
    pub tasks: TaskLimits,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            limits: Limits::default(),
            page_size: usize::MAX,
            tool_timeout_ms: None,
            ttl_ms: 0,
            cache_scope: "private",
            tasks: TaskLimits::default(),
        }
    }
}

/// Why a direct tool call could not run.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    UnknownTool(String),
    /// Arguments that are not an object.
    NotAnObject(String),
    /// Arguments violating the input schema.
    InvalidArguments {
        tool: String,
        violations: Vec<SchemaViolation>,
    },
    /// The tool has a schema but the validator will never be ready (see
    /// [`Server::validator_ready`]): the call is refused rather than run unchecked.
    ValidatorUnavailable {
        tool: String,
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
                let parts: Vec<String> = violations.iter().map(|v| v.describe()).collect();
                f.write_str(&parts.join("; "))
            }
            CallError::ValidatorUnavailable { tool, reason } => write!(
                f,
                "Tool {tool} was not called: its schema cannot be checked ({reason})"
            ),
        }
    }
}

type Observer = Rc<dyn Fn(ListKind)>;

/// A list's items as a version shapes them, keyed and sorted by their unique key.
pub(crate) type ShapedList = Rc<[(String, Value)]>;

pub(crate) struct ServerInner {
    info: RefCell<ServerInfo>,
    pub(crate) config: ServerConfig,
    pub(crate) runtime: Rc<dyn Runtime>,
    compiler: Rc<dyn SchemaCompiler>,
    pub(crate) registry: RefCell<Registry>,
    sessions: RefCell<Vec<Weak<SessionInner>>>,
    /// Counts registry changes; sessions and listen streams remember where they started,
    /// so they never hear of changes made before (those are in what they list).
    generation: Cell<u64>,
    /// Per kind, the generation of its latest change not yet announced (0: none).
    pending: RefCell<[u64; 3]>,
    flush_scheduled: Cell<bool>,
    observers: RefCell<Vec<(u64, Observer)>>,
    /// `tools/list` items already shaped, per protocol version, sorted by name; dropped on
    /// every change to the tools (see [`Server::shaped_tools`]).
    shaped_tools: RefCell<Vec<(ProtocolVersion, ShapedList)>>,
    next_id: Cell<u64>,
    /// Signs and verifies the `requestState` of input-required results.
    pub(crate) state_key: StateKey,
    /// Tasks (SEP-2663), kept per server: stateless clients have no session to hold them.
    pub(crate) tasks: TaskStore,
    /// Skills (SEP-2640); their files are resources in `registry`.
    pub(crate) skills: RefCell<SkillRegistry>,
}

/// The MCP server engine. Cheap to clone (shared handle).
#[derive(Clone)]
pub struct Server(pub(crate) Rc<ServerInner>);

fn kind_index(k: ListKind) -> usize {
    match k {
        ListKind::Tools => 0,
        ListKind::Resources => 1,
        ListKind::Prompts => 2,
    }
}

impl Server {
    pub fn new(
        info: ServerInfo,
        config: ServerConfig,
        runtime: Rc<dyn Runtime>,
        compiler: Rc<dyn SchemaCompiler>,
    ) -> Server {
        Server(Rc::new(ServerInner {
            info: RefCell::new(info),
            config,
            runtime,
            compiler,
            registry: RefCell::new(Registry::default()),
            sessions: RefCell::new(Vec::new()),
            generation: Cell::new(0),
            pending: RefCell::new([0; 3]),
            flush_scheduled: Cell::new(false),
            observers: RefCell::new(Vec::new()),
            shaped_tools: RefCell::new(Vec::new()),
            next_id: Cell::new(1),
            state_key: StateKey::default(),
            tasks: TaskStore::default(),
            skills: RefCell::new(SkillRegistry::default()),
        }))
    }

    /// Who the server says it is (a copy).
    pub fn info(&self) -> ServerInfo {
        self.0.info.borrow().clone()
    }

    /// Changes who the server says it is; sessions initialized later see the new info.
    pub fn set_info(&self, info: ServerInfo) {
        *self.0.info.borrow_mut() = info;
    }

    pub fn config(&self) -> &ServerConfig {
        &self.0.config
    }

    /// Sets the key the `requestState` of input-required results is signed with (see
    /// [`input_required`]). Hosts with a good random source should set a random key of 32
    /// bytes; the default comes from the standard library's random hasher keys.
    pub fn set_state_key(&self, key: &[u8]) {
        self.0.state_key.set(key);
    }

    /// The number of registry changes so far.
    pub(crate) fn generation(&self) -> u64 {
        self.0.generation.get()
    }

    pub(crate) fn next_id(&self) -> u64 {
        let id = self.0.next_id.get();
        self.0.next_id.set(id + 1);
        id
    }

    // ---- registry -------------------------------------------------------------------

    /// Registers a tool (duplicate, name rule, schema compilation — in that order).
    pub fn register_tool(&self, def: ToolDef) -> Result<(), RegistryError> {
        self.0
            .registry
            .borrow_mut()
            .add_tool(def, self.0.compiler.as_ref())?;
        self.changed(ListKind::Tools);
        Ok(())
    }

    /// Removes a tool; `false` (and no notification) when there was none.
    pub fn unregister_tool(&self, name: &str) -> bool {
        let removed = self.0.registry.borrow_mut().remove_tool(name).is_some();
        if removed {
            self.changed(ListKind::Tools);
        }
        removed
    }

    /// Removes every tool; returns how many there were.
    pub fn clear_tools(&self) -> usize {
        let n = self.0.registry.borrow_mut().clear_tools();
        if n > 0 {
            self.changed(ListKind::Tools);
        }
        n
    }

    pub fn tool(&self, name: &str) -> Option<Rc<Tool>> {
        self.0.registry.borrow().tool(name)
    }

    /// Every tool, sorted by name.
    pub fn tools(&self) -> Vec<Rc<Tool>> {
        self.0.registry.borrow().tools().cloned().collect()
    }

    /// Every tool as `tools/list` shows it in `version` (`shape::tool`), sorted by name.
    /// Shaped once per version and kept until the tools change, so a `tools/list` page
    /// costs the page, not the registry.
    pub(crate) fn shaped_tools(&self, version: ProtocolVersion) -> ShapedList {
        if let Some((_, list)) = self
            .0
            .shaped_tools
            .borrow()
            .iter()
            .find(|(v, _)| *v == version)
        {
            return list.clone();
        }
        let list: ShapedList = self
            .0
            .registry
            .borrow()
            .tools()
            .map(|t| (t.def.name.clone(), super::shape::tool(t, version)))
            .collect();
        self.0
            .shaped_tools
            .borrow_mut()
            .push((version, list.clone()));
        list
    }

    pub fn register_resource(&self, def: ResourceDef) -> Result<(), RegistryError> {
        self.0.registry.borrow_mut().add_resource(def)?;
        self.changed(ListKind::Resources);
        Ok(())
    }

    pub fn unregister_resource(&self, uri: &str) -> bool {
        let removed = self.0.registry.borrow_mut().remove_resource(uri).is_some();
        if removed {
            self.changed(ListKind::Resources);
        }
        removed
    }

    /// Static resources then templates.
    pub fn resources(&self) -> Vec<Rc<Resource>> {
        let reg = self.0.registry.borrow();
        reg.resources().chain(reg.templates()).cloned().collect()
    }

    pub fn register_prompt(&self, def: PromptDef) -> Result<(), RegistryError> {
        self.0.registry.borrow_mut().add_prompt(def)?;
        self.changed(ListKind::Prompts);
        Ok(())
    }

    pub fn unregister_prompt(&self, name: &str) -> bool {
        let removed = self.0.registry.borrow_mut().remove_prompt(name).is_some();
        if removed {
            self.changed(ListKind::Prompts);
        }
        removed
    }

    pub fn prompts(&self) -> Vec<Rc<PromptDef>> {
        self.0.registry.borrow().prompts().cloned().collect()
    }

    /// Calls `observer` synchronously on every registry change (the browser layer queues
    /// its `toolchange` event from here). Returns an id for [`Server::remove_observer`].
    pub fn observe(&self, observer: impl Fn(ListKind) + 'static) -> u64 {
        let id = self.next_id();
        self.0.observers.borrow_mut().push((id, Rc::new(observer)));
        id
    }

    pub fn remove_observer(&self, id: u64) {
        self.0.observers.borrow_mut().retain(|(i, _)| *i != id);
    }

    fn changed(&self, kind: ListKind) {
        if kind == ListKind::Tools {
            self.0.shaped_tools.borrow_mut().clear();
        }
        let observers: Vec<Observer> = self
            .0
            .observers
            .borrow()
            .iter()
            .map(|(_, o)| o.clone())
            .collect();
        for o in observers {
            o(kind);
        }
        let generation = self.0.generation.get() + 1;
        self.0.generation.set(generation);
        self.0.pending.borrow_mut()[kind_index(kind)] = generation;
        if !self.0.flush_scheduled.replace(true) {
            let weak = Rc::downgrade(&self.0);
            self.0.runtime.spawn(Box::pin(async move {
                if let Some(inner) = weak.upgrade() {
                    Server(inner).flush_changes();
                }
            }));
        }
    }

    /// Sends one `list_changed` per kind changed since the last flush, to each session and
    /// stream that started before the change.
    fn flush_changes(&self) {
        self.0.flush_scheduled.set(false);
        let pending = std::mem::take(&mut *self.0.pending.borrow_mut());
        for kind in ListKind::ALL {
            let generation = pending[kind_index(kind)];
            if generation > 0 {
                for s in self.live_sessions() {
                    s.list_changed(kind, generation);
                }
            }
        }
    }

    /// Tells subscribers that the resource at `uri` changed
    /// (`notifications/resources/updated`).
    pub fn resource_updated(&self, uri: &str) {
        for s in self.live_sessions() {
            s.resource_updated(uri);
        }
    }

    /// Sends a notification to every session that has a protocol version in force.
    pub fn broadcast(&self, method: &str, params: Option<Value>) {
        for s in self.live_sessions() {
            s.broadcast(method, params.clone());
        }
    }

    /// Sends a log message to every session whose level admits it.
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        for s in self.live_sessions() {
            s.log(level, logger, data.clone(), None);
        }
    }

    // ---- sessions -------------------------------------------------------------------

    /// Opens a session whose outgoing messages (JSON text) go to `sink`.
    pub fn connect(&self, sink: impl Fn(String) + 'static) -> Session {
        self.connect_with(self.0.config.limits.clone(), sink)
    }

    /// [`Server::connect`] with the session's own `limits` (a transport's, in place of the
    /// server's).
    pub fn connect_with(&self, limits: Limits, sink: impl Fn(String) + 'static) -> Session {
        let session = Session::new(self.clone(), limits, Box::new(sink));
        self.track(&session);
        session
    }

    fn track(&self, session: &Session) {
        let mut list = self.0.sessions.borrow_mut();
        list.retain(|w| w.strong_count() > 0);
        list.push(Rc::downgrade(&session.0));
    }

    /// Sessions still open.
    pub fn session_count(&self) -> usize {
        self.live_sessions().len()
    }

    pub(crate) fn live_sessions(&self) -> Vec<Rc<SessionInner>> {
        let mut list = self.0.sessions.borrow_mut();
        list.retain(|w| w.upgrade().is_some_and(|s| !s.is_closed()));
        list.iter().filter_map(Weak::upgrade).collect()
    }

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
        if tool.input.is_none() && tool.output.is_none() {
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
        args: Value,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, Map<String, Value>> {
        let timeout = self.0.config.tool_timeout_ms;
        let runtime = self.0.runtime.clone();
        Box::pin(async move {
            let cancel: CancellationToken = ctx.cancel.clone();
            let call = tool.def.handler.call(args, ctx);
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
                Some(r) => tool_outcome(&tool, r),
            }
        })
    }

    /// A tool handler's outcome as a `CallToolResult` object (before per-version shaping):
    /// normalized and checked against the output schema; an error becomes an `isError`
    /// result; an input-required result is passed on untouched.
    pub(crate) fn tool_outcome(&self, tool: &Tool, r: HandlerResult) -> Map<String, Value> {
        tool_outcome(tool, r)
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
        Ok(self.run_tool(tool, args, ctx))
    }
}

fn tool_outcome(tool: &Tool, r: HandlerResult) -> Map<String, Value> {
    match r {
        Err(e) => results::tool_error(e.message),
        // Input-required results go to the caller untouched (tools/call drives them).
        Ok(Value::Object(o))
            if o.get("resultType").and_then(Value::as_str)
                == Some(input_required::INPUT_REQUIRED) =>
        {
            o
        }
        Ok(value) => check_output(tool, results::call_tool_result(value)),
    }
}

/// Checks `structuredContent` against the tool's output schema (successful results only).
fn check_output(tool: &Tool, result: Map<String, Value>) -> Map<String, Value> {
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
            let violations = schema.validate(sc);
            if violations.is_empty() {
                result
            } else {
                let parts: Vec<String> = violations.iter().map(|v| v.describe()).collect();
                results::tool_error(format!(
                    "Tool {} returned structuredContent that does not match its outputSchema: {}",
                    tool.def.name,
                    parts.join("; ")
                ))
            }
        }
    }
}

impl Server {
    /// Opens a session in the state a [`Session::snapshot`] recorded (the tab transport's
    /// `persist` option: an agent's session outlives a same-tab reload). Requests the snapshot
    /// lists as running are answered at once with an internal error (their page is gone).
    /// A snapshot this server cannot load is an `Err` naming the problem; no session is opened.
    pub fn connect_restored(
        &self,
        snapshot: &Value,
        sink: impl Fn(String) + 'static,
    ) -> Result<Session, String> {
        self.connect_restored_with(snapshot, self.0.config.limits.clone(), sink)
    }

    /// [`Server::connect_restored`] with the session's own `limits`.
    pub fn connect_restored_with(
        &self,
        snapshot: &Value,
        limits: Limits,
        sink: impl Fn(String) + 'static,
    ) -> Result<Session, String> {
        let session = Session::new(self.clone(), limits, Box::new(sink));
        let interrupted = session.0.restore(snapshot)?;
        self.track(&session);
        session.0.fail_interrupted(&interrupted);
        Ok(session)
    }
}

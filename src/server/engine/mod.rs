//! [`Server`]: the registry, the sessions connected to it, and change notifications.
//!
//! The server's state is private to this module: the rest of the engine asks a [`Server`]
//! through its methods (the registry's tools, the runtime, the tasks and skills it keeps).

use serde_json::{Map, Value};
use std::cell::{Cell, Ref, RefCell};
use std::rc::{Rc, Weak};

use super::input_required::StateKey;
use super::logging::LogLevel;
use super::registry::{
    ListKind, PromptDef, Registry, RegistryError, Resource, ResourceDef, Tool, ToolDef,
};
use super::runtime::Runtime;
use super::session::{Repeats, SharedResult, SharedText};
use super::skills::SkillRegistry;
use super::tasks::TaskStore;
use super::validator::SchemaCompiler;
use crate::protocol::json_text;
use crate::protocol::ProtocolVersion;

mod calls;
pub(crate) mod config;

pub use calls::CallError;
pub(crate) use calls::ToolArgs;
pub use config::{ServerConfig, ServerInfo};

type Observer = Rc<dyn Fn(ListKind)>;

/// An open session as the server reaches it: what the server tells every session
/// ([`super::session`] implements it; [`Server::track`] adds one).
pub(crate) trait Audience {
    /// Closed sessions are dropped from the server's list.
    fn is_closed(&self) -> bool;
    /// A change of `kind` made at registry `generation` (`notifications/…/list_changed`).
    /// Whether it was sent anywhere (the session or a stream of it).
    fn list_changed(&self, kind: ListKind, generation: u64) -> bool;
    /// `notifications/resources/updated` for subscribers of `uri`.
    fn resource_updated(&self, uri: &str);
    /// A server-wide notification.
    fn broadcast(&self, method: &str, params: Option<Value>);
    /// A log message, if the session's level admits it.
    fn log(&self, level: LogLevel, logger: Option<&str>, data: Value);
    /// `notifications/tasks` for streams that asked for task `id`.
    fn task_status(&self, id: &str, detailed: &Value);
}

/// A list's items as a version shapes them, keyed and sorted by their unique key.
pub(crate) type ShapedList = Rc<[(String, Value)]>;

struct ServerInner {
    info: RefCell<ServerInfo>,
    config: ServerConfig,
    runtime: Rc<dyn Runtime>,
    compiler: Rc<dyn SchemaCompiler>,
    registry: RefCell<Registry>,
    sessions: RefCell<Vec<Weak<dyn Audience>>>,
    /// Counts registry changes; sessions and listen streams remember where they started,
    /// so they never hear of changes made before (those are in what they list).
    generation: Cell<u64>,
    /// Per kind, the generation of its latest change not yet announced (0: none).
    pending: RefCell<[u64; 3]>,
    flush_scheduled: Cell<bool>,
    /// No `list_changed` goes out before this time (the runtime's clock, ms): the changes made
    /// within [`ServerConfig::list_changed_interval_ms`] of one announcement make the next.
    quiet_until: Cell<f64>,
    observers: RefCell<Vec<(u64, Observer)>>,
    /// `tools/list` items already shaped, per protocol version, sorted by name; dropped on
    /// every change to the tools (see [`Server::shaped_tools`]).
    shaped_tools: RefCell<Vec<(ProtocolVersion, ShapedList)>>,
    /// The whole-list `tools/list` result as JSON text, per protocol version; dropped with
    /// `shaped_tools` (see [`Server::tools_list_text`]).
    tools_list_text: RefCell<Vec<(ProtocolVersion, SharedText)>>,
    next_id: Cell<u64>,
    /// Signs and verifies the `requestState` of input-required results.
    state_key: StateKey,
    /// Tasks (SEP-2663), kept per server: stateless clients have no session to hold them.
    tasks: TaskStore,
    /// Skills (SEP-2640); their files are resources in `registry`.
    skills: RefCell<SkillRegistry>,
}

/// The MCP server engine. Cheap to clone (shared handle).
#[derive(Clone)]
pub struct Server(Rc<ServerInner>);

/// A [`Server`] held without keeping it alive (a task's link to it, a hook run later).
#[derive(Clone)]
pub struct WeakServer(Weak<ServerInner>);

impl WeakServer {
    /// The server, while something else still holds it.
    pub fn upgrade(&self) -> Option<Server> {
        self.0.upgrade().map(Server)
    }
}

/// The entry of `cache` for `version`, made by `make` (and kept) when there is none yet.
fn per_version<T: Clone>(
    cache: &RefCell<Vec<(ProtocolVersion, T)>>,
    version: ProtocolVersion,
    make: impl FnOnce() -> T,
) -> T {
    if let Some((_, t)) = cache.borrow().iter().find(|(v, _)| *v == version) {
        return t.clone();
    }
    let t = make();
    cache.borrow_mut().push((version, t.clone()));
    t
}

fn kind_index(k: ListKind) -> usize {
    match k {
        ListKind::Tools => 0,
        ListKind::Resources => 1,
        ListKind::Prompts => 2,
    }
}

impl Server {
    /// A server with an empty registry, running its tasks on `runtime` and compiling schemas with `compiler`.
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
            quiet_until: Cell::new(f64::NEG_INFINITY),
            observers: RefCell::new(Vec::new()),
            shaped_tools: RefCell::new(Vec::new()),
            tools_list_text: RefCell::new(Vec::new()),
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
        // 2026-07-28's whole lists carry it (`_meta`).
        self.0.tools_list_text.borrow_mut().clear();
    }

    /// The settings the server was made with.
    pub fn config(&self) -> &ServerConfig {
        &self.0.config
    }

    /// A handle that does not keep the server alive.
    pub fn downgrade(&self) -> WeakServer {
        WeakServer(Rc::downgrade(&self.0))
    }

    /// The host's event loop, timers and clock.
    pub(crate) fn runtime(&self) -> &Rc<dyn Runtime> {
        &self.0.runtime
    }

    /// The registry, to read (a tool, a resource by URI, a prompt's completers). Changes go
    /// through the `register_*` / `unregister_*` methods, which announce them.
    pub(crate) fn registry(&self) -> Ref<'_, Registry> {
        self.0.registry.borrow()
    }

    /// The key `requestState` and task ids are signed with.
    pub(crate) fn state_key(&self) -> &StateKey {
        &self.0.state_key
    }

    /// The tasks this server holds (SEP-2663).
    pub(crate) fn task_store(&self) -> &TaskStore {
        &self.0.tasks
    }

    /// The skills this server serves (SEP-2640).
    pub(crate) fn skill_registry(&self) -> &RefCell<SkillRegistry> {
        &self.0.skills
    }

    /// Sets the key the `requestState` of input-required results is signed with (see
    /// [`crate::server::input_required`]). Hosts with a good random source should set a random key of 32
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

    /// Tool `name`.
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
        per_version(&self.0.shaped_tools, version, || {
            self.0
                .registry
                .borrow()
                .tools()
                .map(|t| (t.def.name.clone(), super::shape::tool(t, version)))
                .collect()
        })
    }

    /// The `tools/list` result listing every tool in one page, as JSON text (`{"tools":[…]}`)
    /// with the schemas its tools repeat ([`Repeats`]),
    /// made once per version (shaped as [`Server::shaped_tools`] shapes) and kept until the
    /// tools change: a session answers a whole-list request with it as it is, instead of
    /// copying every shaped tool into a reply and serializing the copy. `None` when the list
    /// takes more than one page (`page_size`).
    pub(crate) fn tools_list_text(&self, version: ProtocolVersion) -> Option<SharedText> {
        if self.0.registry.borrow().tools().len() > self.0.config.page_size {
            return None;
        }
        Some(per_version(&self.0.tools_list_text, version, || {
            // Written into one buffer of exactly its size, then shared as it is: wasm memory
            // keeps its high-water mark, and a buffer grown by doubling or shrunk to fit (a
            // copy), the pieces of a list kept while it is joined, or a copy into the `Rc`
            // would each leave up to once or twice the text behind. So each tool is shaped
            // and written twice, first into a scratch buffer to count (the size of the
            // largest tool's text): this runs once per change of the tools.
            let registry = self.0.registry.borrow();
            const OPEN: &str = r#"{"tools":["#;
            // The list's end, and what the version adds to results after it (2026-07-28:
            // `resultType`, `ttlMs`, `cacheScope` and `_meta`, as a session adds them to
            // every other result).
            let added = json_text::to_string(&super::shape::decorate(
                "tools/list",
                Value::Object(Map::new()),
                Some(version),
                &self.0.config,
                &|| self.info(),
            ));
            let close = match added.strip_prefix('{') {
                Some("}") | None => "]}".to_string(),
                Some(members) => format!("],{members}"),
            };
            let commas = registry.tools().len().saturating_sub(1);
            let mut size = OPEN.len() + close.len() + commas;
            let mut scratch = String::new();
            for tool in registry.tools() {
                scratch.clear();
                json_text::write_value(&mut scratch, &super::shape::tool(tool, version));
                size += scratch.len();
            }
            drop(scratch);
            let mut text = String::with_capacity(size);
            text.push_str(OPEN);
            for (i, tool) in registry.tools().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                json_text::write_value(&mut text, &super::shape::tool(tool, version));
            }
            text.push_str(&close);
            // Tools of one schema text (the registry shares it: `SchemaText::identity`) show
            // equal schemas; every tool without an input schema shows the same one.
            let mut repeats = Repeats::new("tools");
            repeats.note(
                "inputSchema",
                registry
                    .tools()
                    .map(|t| Some(t.def.input_schema.as_ref().map_or(0, |s| s.identity()))),
            );
            if version.has_structured_content() {
                repeats.note(
                    "outputSchema",
                    registry
                        .tools()
                        .map(|t| t.def.output_schema.as_ref().map(|s| s.identity())),
                );
            }
            Rc::new(SharedResult::with_repeats(text, repeats))
        }))
    }

    /// Registers a resource or template (a duplicate URI, a malformed template refused); announces the change.
    pub fn register_resource(&self, def: ResourceDef) -> Result<(), RegistryError> {
        self.0.registry.borrow_mut().add_resource(def)?;
        self.changed(ListKind::Resources);
        Ok(())
    }

    /// Removes the resource or template `uri`; `false` (and no notification) when there was none.
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

    /// Registers a prompt (a duplicate name refused); announces the change.
    pub fn register_prompt(&self, def: PromptDef) -> Result<(), RegistryError> {
        self.0.registry.borrow_mut().add_prompt(def)?;
        self.changed(ListKind::Prompts);
        Ok(())
    }

    /// Removes prompt `name`; `false` (and no notification) when there was none.
    pub fn unregister_prompt(&self, name: &str) -> bool {
        let removed = self.0.registry.borrow_mut().remove_prompt(name).is_some();
        if removed {
            self.changed(ListKind::Prompts);
        }
        removed
    }

    /// Every prompt, sorted by name.
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

    /// Stops calling the observer `id` ([`Server::observe`]).
    pub fn remove_observer(&self, id: u64) {
        self.0.observers.borrow_mut().retain(|(i, _)| *i != id);
    }

    fn changed(&self, kind: ListKind) {
        if kind == ListKind::Tools {
            self.0.shaped_tools.borrow_mut().clear();
            self.0.tools_list_text.borrow_mut().clear();
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
            // After this turn; and when an announcement went out less than the interval ago,
            // at the end of the interval (a page registering a thousand tools makes a few
            // announcements, not a thousand, each of which a client may answer with a list).
            let wait = (self.0.quiet_until.get() - self.0.runtime.now_ms()).ceil();
            let quiet = (wait > 0.0).then(|| self.0.runtime.sleep(wait as u64));
            let weak = Rc::downgrade(&self.0);
            self.0.runtime.spawn(Box::pin(async move {
                if let Some(quiet) = quiet {
                    quiet.await;
                }
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
        let mut announced = false;
        for kind in ListKind::ALL {
            let generation = pending[kind_index(kind)];
            if generation > 0 {
                for s in self.live_sessions() {
                    announced |= s.list_changed(kind, generation);
                }
            }
        }
        let interval = self.0.config.list_changed_interval_ms;
        if interval > 0 && announced {
            self.0
                .quiet_until
                .set(self.0.runtime.now_ms() + interval as f64);
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
            s.log(level, logger, data.clone());
        }
    }

    // ---- sessions -------------------------------------------------------------------

    /// Adds an open session to those the server notifies (sessions are opened by
    /// [`Server::connect`], in [`super::session`]).
    pub(crate) fn track(&self, session: Weak<dyn Audience>) {
        let mut list = self.0.sessions.borrow_mut();
        list.retain(|w| w.strong_count() > 0);
        list.push(session);
    }

    /// Sessions still open.
    pub fn session_count(&self) -> usize {
        self.live_sessions().len()
    }

    pub(crate) fn live_sessions(&self) -> Vec<Rc<dyn Audience>> {
        let mut list = self.0.sessions.borrow_mut();
        list.retain(|w| w.upgrade().is_some_and(|s| !s.is_closed()));
        list.iter().filter_map(Weak::upgrade).collect()
    }
}

//! The per-realm engine behind one `ModelContext` object: the MCP server, the event
//! target, the task queue, and the default tab transport.

use js_sys::Function;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::runtime::TaskQueue;
use crate::js;
use crate::server::{ListKind, Server};
use crate::transport::persist::{self, TabConfig};
use crate::transport::Running;

/// What the engine of one `ModelContext` holds. Its fields are its own: features reach
/// the server, the global and the task queue through its methods, and keep their own state
/// in it ([`EngineInner::state`]).
pub struct EngineInner {
    server: Server,
    /// The `ModelContext` object events are fired at.
    target: web_sys::EventTarget,
    events: ToolEvents,
    tasks: TaskQueue,
    global: JsValue,
    origin: String,
    /// `origin` as a JS string, for the comparisons made in JS.
    origin_js: JsValue,
    /// `modelContextTesting.registerToolsChangedCallback` callbacks (earlier drafts).
    tool_change_callbacks: RefCell<Vec<Function>>,
    /// The default tab server, while it runs, and its options.
    tab: RefCell<Option<Box<dyn Running>>>,
    tab_options: TabConfig,
    /// Each feature's own state, by type (see [`EngineInner::state`]).
    states: RefCell<Vec<Rc<dyn Any>>>,
    next_registration: Cell<u64>,
}

/// The event classes the installer defines (`ToolActivatedEvent`, `ToolCancelEvent`) and
/// the function that fires them.
pub struct ToolEvents {
    /// `toolactivated`'s class.
    pub activated: Function,
    /// `toolcancel`'s class.
    pub cancel: Function,
    /// `__mcpFireToolEvent` (polyfill/src/events.js).
    pub fire: FireToolEvent,
}

#[wasm_bindgen]
extern "C" {
    /// `__mcpFireToolEvent(cls, type, toolName, target, global)`, called with a typed
    /// signature (one call into JS, no argument array).
    pub type FireToolEvent;
    #[wasm_bindgen(method, catch, js_name = call)]
    fn fire(
        this: &FireToolEvent,
        this_arg: &JsValue,
        class: &Function,
        kind: &JsValue,
        tool_name: &str,
        target: &web_sys::EventTarget,
        global: &JsValue,
    ) -> Result<(), JsValue>;
}

impl EngineInner {
    /// An engine for the `ModelContext` `target` in the realm whose global is `global`;
    /// it queues `toolchange` whenever the server's tools change.
    pub fn new(
        server: Server,
        target: web_sys::EventTarget,
        events: ToolEvents,
        global: JsValue,
        tab_options: TabConfig,
    ) -> Result<Rc<EngineInner>, JsValue> {
        let origin = js::get(&global, "origin")
            .ok()
            .and_then(|o| o.as_string())
            .unwrap_or_else(|| "null".into());
        let inner = Rc::new(EngineInner {
            server,
            target,
            events,
            tasks: TaskQueue::new()?,
            global,
            origin_js: JsValue::from_str(&origin),
            origin,
            tool_change_callbacks: RefCell::new(Vec::new()),
            tab: RefCell::new(None),
            tab_options,
            states: RefCell::new(Vec::new()),
            next_registration: Cell::new(0),
        });
        let weak = Rc::downgrade(&inner);
        inner.server.observe(move |kind| {
            if kind == ListKind::Tools {
                if let Some(me) = weak.upgrade() {
                    me.tools_changed();
                }
            }
        });
        Ok(inner)
    }

    /// The page's MCP server.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The realm's global object (the window, or the worker's global).
    pub fn global(&self) -> &JsValue {
        &self.global
    }

    /// The realm's origin, serialized (`"null"` when opaque).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// [`origin`](EngineInner::origin) as a JS string.
    pub fn origin_js(&self) -> &JsValue {
        &self.origin_js
    }

    /// Queues `task` on the engine's task queue (after the tasks already queued, such as a
    /// pending `toolchange`).
    pub fn queue(&self, task: impl FnOnce() + 'static) {
        self.tasks.queue(task);
    }

    /// Runs `task` after the tasks already queued, at the end of the last one when it has
    /// not run yet (`TaskQueue::queue_after_last`).
    pub fn queue_after_last(&self, task: impl FnOnce() + 'static) {
        self.tasks.queue_after_last(Box::new(task));
    }

    /// Calls `callback` (after `toolchange`) whenever the tools change.
    pub fn on_tools_changed(&self, callback: Function) {
        self.tool_change_callbacks.borrow_mut().push(callback);
    }

    /// The state feature `T` keeps with this engine (the session API's default scope, the
    /// declarative API's forms, the skills' registrations …), made with `T::default()` on
    /// first use. The engine holds it; the feature owns its type and what it means, so the
    /// engine imports no feature.
    pub fn state<T: Default + 'static>(&self) -> Rc<T> {
        if let Some(found) = self.find_state(std::any::TypeId::of::<T>()) {
            if let Ok(found) = found.downcast() {
                return found;
            }
        }
        let made = Rc::new(T::default());
        self.states.borrow_mut().push(made.clone());
        made
    }

    /// The state of type `id`, found without instantiating the search for every type.
    fn find_state(&self, id: std::any::TypeId) -> Option<Rc<dyn Any>> {
        self.states
            .borrow()
            .iter()
            .find(|s| (***s).type_id() == id)
            .cloned()
    }

    /// A fresh registration id.
    pub fn next_registration(&self) -> u64 {
        let n = self.next_registration.get() + 1;
        self.next_registration.set(n);
        n
    }

    /// Fires `toolactivated` for `tool_name` at the ModelContext and at the global object.
    pub fn fire_activated(&self, tool_name: &str) {
        self.fire_tool_event(&self.events.activated, "toolactivated", tool_name);
    }

    /// Fires `toolcancel` for `tool_name` at the ModelContext and at the window, as
    /// `toolactivated` (WPT `webmcp/imperative/executeTool-events`).
    pub fn fire_cancel(&self, tool_name: &str) {
        self.fire_tool_event(&self.events.cancel, "toolcancel", tool_name);
    }

    /// `new <EventClass>(type, { toolName })`, dispatched at the ModelContext and at the
    /// global object: one call of the front's `fireToolEvent` (polyfill/src/events.js). A
    /// listener's exception is reported by `dispatchEvent`, not thrown, so nothing comes back.
    fn fire_tool_event(&self, class: &Function, kind: &'static str, tool_name: &str) {
        let _ = self.events.fire.fire(
            &JsValue::UNDEFINED,
            class,
            &js::name(kind),
            tool_name,
            &self.target,
            &self.global,
        );
    }

    /// Queues `toolchange` (and the earlier drafts' callbacks): this document's view of the
    /// tools changed (its own registry, or another document's of the frame tree).
    pub fn tools_changed(self: &Rc<Self>) {
        let me = self.clone();
        self.tasks.queue(move || me.fire_tools_changed());
    }

    /// Fires `toolchange` (and the earlier drafts' callbacks) now: for a task that is
    /// already the one the spec queues for it.
    pub fn fire_tools_changed(&self) {
        if let Ok(ev) = web_sys::Event::new("toolchange") {
            let _ = self.target.dispatch_event(&ev);
        }
        let callbacks = self.tool_change_callbacks.borrow().clone();
        for cb in callbacks {
            let _ = cb.call0(&JsValue::UNDEFINED);
        }
    }

    /// Starts the default tab server (if enabled and not running).
    pub fn start_tab(&self) -> Result<(), JsValue> {
        if !self.tab_options.tab.enabled || self.tab.borrow().is_some() {
            return Ok(());
        }
        // The page did not ask for this server: it gives way to another on its channel.
        let mut options = self.tab_options.clone();
        options.tab.yields = true;
        let tab = persist::start(&self.server, options)?.running;
        *self.tab.borrow_mut() = Some(tab);
        Ok(())
    }

    /// Stops the default tab server (it posts `mcp-server-stopped`).
    pub fn stop_tab(&self) {
        if let Some(tab) = self.tab.borrow_mut().take() {
            tab.stop();
        }
    }

    /// Whether the default tab server runs (not once it gave way to another server).
    pub fn tab_running(&self) -> bool {
        self.tab.borrow().as_ref().is_some_and(|t| t.is_open())
    }
}

/// The engine behind one `ModelContext`. Created by the polyfill's installer.
#[wasm_bindgen]
pub struct Engine {
    pub(crate) inner: Rc<EngineInner>,
}

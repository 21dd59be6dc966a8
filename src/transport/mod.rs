//! Browser transports (wasm only): each carries JSON-RPC between peers and engine
//! [`crate::server::Session`]s (one per peer), and owns its framing, origin, size and rate
//! checks. Every transport serves the one registry of the page's [`Server`].
//!
//! | `type` | file | peer | wire |
//! |---|---|---|---|
//! | `'tab'` | `tab.rs` (+ `persist.rs`) | a client in the same window | MCP-B tab envelopes |
//! | `'iframeChild'`, `'iframeParent'` | `iframe.rs` | the embedding page / the embedded app | MCP-B iframe envelopes |
//! | `'postMessage'` | `post_message.rs` | a Worker, a worker's `self`, a MessagePort, a Window | `{ type, payload }` |
//! | `'broadcastChannel'` | `broadcast.rs` | other pages of the origin | `{ type: 'mcp', instanceId, payload }` |
//! | `'event'` | `event.rs` (+ `emitter.rs`) | a client in the same context | `mcp:request` / `mcp:response` events |
//! | `'extension'` | `extension.rs` | a `chrome.runtime.Port` | raw JSON-RPC, keep-alives |
//!
//! [`open`] picks a transport from `connect()`'s `transport` option: an options object
//! `{ type, … }` or a transport object made with one of the classes in `classes.rs`.
//! `kinds.rs` is the one table of kinds and the [`kinds::ServerTransport`] trait each
//! kind's options implement.
//! `guard.rs` holds the shared security options, `hub.rs` the per-peer sessions (`held.rs`: what
//! waits for the core's deferred module), `served.rs`
//! the realm-wide record of what is served (JS helpers and drop-guards are in `crate::js`).

pub mod broadcast;
pub mod classes;
pub mod emitter;
pub mod event;
pub mod extension;
pub mod guard;
pub mod held;
pub mod hub;
pub mod iframe;
pub mod kinds;
pub mod persist;
pub mod post_message;
pub mod served;
pub mod tab;

use js_sys::Promise;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::js;
use crate::js::DomError;
use crate::server::Server;
use kinds::ServerTransport;

/// A transport while it serves.
pub trait Running {
    /// Stops serving (idempotent): listeners removed, sessions closed, peers told where the
    /// wire has a way to say so.
    fn stop(&self);
    /// Still serving (a peer may end it: an extension port disconnecting, an iframe that
    /// never answered).
    fn is_open(&self) -> bool;
}

impl<T: Running> Running for Rc<T> {
    fn stop(&self) {
        (**self).stop()
    }
    fn is_open(&self) -> bool {
        (**self).is_open()
    }
}

/// What starting a transport produced.
pub struct Started {
    /// The transport while it serves.
    pub running: Box<dyn Running>,
    /// Settles when the transport is ready (iframeParent: when the child answered);
    /// `connect()` waits for it.
    pub ready: Option<Promise>,
}

impl Started {
    /// Started and ready at once.
    pub fn new(running: impl Running + 'static) -> Started {
        Started {
            running: Box::new(running),
            ready: None,
        }
    }
}

/// An optional string option, converted as WebIDL `DOMString` would.
pub(crate) fn opt_string(
    opts: &JsValue,
    key: &'static str,
    ctx: &str,
) -> Result<Option<String>, JsValue> {
    js::opt_string(opts, key, ctx, js::StringRule::Primitive)
}

/// One transport: its options until started, then its running state. Shared by the
/// transport object the page holds and the session that serves on it.
pub struct Handle {
    kind: &'static kinds::Kind,
    /// The effective options, frozen: what `transport.options` returns (and how a transport
    /// object is recognized when handed to `connect()`).
    options: JsValue,
    config: RefCell<Option<Box<dyn ServerTransport>>>,
    running: RefCell<Option<Box<dyn Running>>>,
}

thread_local! {
    static HANDLES: RefCell<Vec<Weak<Handle>>> = const { RefCell::new(Vec::new()) };
}

impl Handle {
    /// Parses `opts` for `kind` into a handle not yet started.
    pub fn new(kind: &str, opts: &JsValue, ctx: &str) -> Result<Rc<Handle>, JsValue> {
        let kind = Self::kind_of(kind, opts, ctx)?;
        let (config, options) = Self::read(kind, opts, ctx)?;
        Ok(Self::keep(Handle {
            kind,
            options,
            config: RefCell::new(Some(config)),
            running: RefCell::new(None),
        }))
    }

    /// The kind named `kind`, for options `opts` (which must be an object).
    fn kind_of(kind: &str, opts: &JsValue, ctx: &str) -> Result<&'static kinds::Kind, JsValue> {
        if !opts.is_object() {
            return Err(js::option_error(ctx, " must be an object"));
        }
        kinds::find(kind).ok_or_else(|| {
            js::type_error(&format!(
                "{ctx}.type: unknown transport type {kind:?} (expected one of {})",
                kinds::names_list()
            ))
        })
    }

    /// Reads `opts` for `kind`: its parsed options and the effective ones, frozen.
    fn read(
        kind: &kinds::Kind,
        opts: &JsValue,
        ctx: &str,
    ) -> Result<(Box<dyn ServerTransport>, JsValue), JsValue> {
        let config = (kind.parse)(opts, ctx)?;
        let options: JsValue =
            js_sys::Object::assign(&js::object(), opts.unchecked_ref::<js_sys::Object>()).into();
        js::set(&options, "type", &JsValue::from_str(kind.name));
        config.normalize(&options);
        let options = js_sys::Object::freeze(options.unchecked_ref::<js_sys::Object>()).into();
        Ok((config, options))
    }

    /// `h`, recorded for [`Handle::lookup`].
    fn keep(h: Handle) -> Rc<Handle> {
        let h = Rc::new(h);
        HANDLES.with(|l| {
            let mut l = l.borrow_mut();
            l.retain(|w| w.strong_count() > 0);
            l.push(Rc::downgrade(&h));
        });
        h
    }

    /// The handle whose `options` object is `transport.options`, if `transport` is a
    /// transport object.
    fn lookup(transport: &JsValue) -> Result<Option<Rc<Handle>>, JsValue> {
        let options = js::get(transport, "options")?;
        if !options.is_object() {
            return Ok(None);
        }
        Ok(HANDLES.with(|l| {
            l.borrow()
                .iter()
                .filter_map(Weak::upgrade)
                .find(|h| h.options == options)
        }))
    }

    /// The transport's `type`.
    pub fn kind(&self) -> &'static str {
        self.kind.name
    }

    /// The effective options (`transport.options`).
    pub fn options(&self) -> JsValue {
        self.options.clone()
    }

    /// Starts serving `server`. A transport serves once: a second start is an
    /// `InvalidStateError`.
    pub fn start(&self, server: &Server) -> Result<Option<Promise>, JsValue> {
        let config = self.config.borrow_mut().take().ok_or_else(|| {
            DomError::InvalidState(format!(
                "This {} transport has already been connected; create a new one",
                self.kind.name
            ))
            .into_js()
        })?;
        let started = config.start(server)?;
        *self.running.borrow_mut() = Some(started.running);
        Ok(started.ready)
    }

    /// Started and still serving.
    pub fn is_open(&self) -> bool {
        self.running.borrow().as_ref().is_some_and(|r| r.is_open())
    }

    /// Stops serving (idempotent). A transport never started can no longer be.
    pub fn close(&self) {
        self.config.borrow_mut().take();
        let running = self.running.borrow_mut().take();
        if let Some(r) = running {
            r.stop();
        }
    }
}

/// A transport opened for one `connect()` session; closing it stops serving.
pub struct Connection {
    handle: Rc<Handle>,
    transport: JsValue,
    ready: Option<Promise>,
}

impl Connection {
    /// The transport still serves.
    pub fn is_open(&self) -> bool {
        self.handle.is_open()
    }

    /// Stops serving.
    pub fn close(self) {
        self.handle.close();
    }

    /// The transport object (`session.transport`): an instance of one of the classes in
    /// `classes.rs`.
    pub fn transport(&self) -> JsValue {
        self.transport.clone()
    }

    /// Settles when the transport is ready to serve (`None`: at once). `connect()` resolves
    /// after it and rejects with its error.
    pub fn ready(&self) -> Option<Promise> {
        self.ready.clone()
    }
}

/// Opens the transport `options` describes: `{ type: 'tab' | 'postMessage' | … , … }` or a
/// transport object (`new PostMessageServerTransport(…)`). An unknown or missing `type`, or
/// a missing required option, is a `TypeError` naming it.
pub fn open(server: &Server, options: &JsValue) -> Result<Connection, JsValue> {
    const CTX: &str = "connect(options): options.transport";
    if !options.is_object() {
        return Err(js::type_error(&format!(
            "{CTX} must be an object ({{ type, … }}) or a transport object"
        )));
    }
    let (handle, transport) = match Handle::lookup(options)? {
        Some(h) => (h, options.clone()),
        None => {
            let kind = js::get(options, "type")?;
            let Some(kind) = kind.as_string() else {
                return Err(js::type_error(&format!(
                    "{CTX}.type is required (one of {})",
                    kinds::names_list()
                )));
            };
            let h = Handle::new(&kind, options, CTX)?;
            let t = classes::wrap(h.clone());
            (h, t)
        }
    };
    let ready = handle.start(server)?;
    Ok(Connection {
        handle,
        transport,
        ready,
    })
}

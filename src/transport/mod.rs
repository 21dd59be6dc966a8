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
    pub running: Box<dyn Running>,
    /// Settles when the transport is ready (iframeParent: when the child answered);
    /// `connect()` waits for it.
    pub ready: Option<Promise>,
}

impl Started {
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
    options: RefCell<Options>,
    config: RefCell<Option<Box<dyn ServerTransport>>>,
    running: RefCell<Option<Box<dyn Running>>>,
}

/// A handle's options, read or not yet.
enum Options {
    /// Given to a class's constructor before the core's deferred module had arrived (the code
    /// that reads each kind's options is there, but the tab's): a shallow copy, read when first
    /// needed (see [`Handle::made`]). `closed`: `close()` came first, so nothing will be served.
    Unread {
        given: JsValue,
        ctx: String,
        closed: bool,
    },
    /// The effective options, frozen: what `transport.options` returns (and how a transport
    /// object is recognized when handed to `connect()`).
    Read(JsValue),
    /// What reading them threw, thrown again by each use.
    Refused(JsValue),
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
            options: RefCell::new(Options::Read(options)),
            config: RefCell::new(Some(config)),
            running: RefCell::new(None),
        }))
    }

    /// A handle for a class's constructor (`new IframeChildServerTransport(options)`). Its
    /// options are read now, as [`Handle::new`] does, once the core's deferred module has
    /// arrived, and always for the kinds whose reading is in the first module (`eager`: the
    /// tab's, which a page's start reads). Before, a shallow copy of them is kept and read when
    /// first needed (`transport.options`, `connect()`, which waits for the module): reading
    /// them now would read the module synchronously, blocking the page while it downloads. A
    /// bad option then rejects `connect()` (and throws from `transport.options`) instead of
    /// throwing from the constructor.
    pub fn made(kind: &str, opts: &JsValue, ctx: &str, eager: bool) -> Result<Rc<Handle>, JsValue> {
        if eager || held::arrived() {
            return Handle::new(kind, opts, ctx);
        }
        let kind = Self::kind_of(kind, opts, ctx)?;
        let given = js_sys::Object::assign(&js::object(), opts.unchecked_ref::<js_sys::Object>());
        Ok(Self::keep(Handle {
            kind,
            options: RefCell::new(Options::Unread {
                given: given.into(),
                ctx: ctx.to_string(),
                closed: false,
            }),
            config: RefCell::new(None),
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
    /// transport object (reading a handle's options if they were not yet: what that throws).
    fn lookup(transport: &JsValue) -> Result<Option<Rc<Handle>>, JsValue> {
        let options = js::get(transport, "options")?;
        if !options.is_object() {
            return Ok(None);
        }
        Ok(HANDLES.with(|l| {
            l.borrow()
                .iter()
                .filter_map(Weak::upgrade)
                .find(|h| matches!(&*h.options.borrow(), Options::Read(o) if *o == options))
        }))
    }

    pub fn kind(&self) -> &'static str {
        self.kind.name
    }

    /// The effective options (`transport.options`), read now if they were not yet.
    pub fn options(&self) -> Result<JsValue, JsValue> {
        let unread = match &*self.options.borrow() {
            Options::Read(o) => return Ok(o.clone()),
            Options::Refused(e) => return Err(e.clone()),
            Options::Unread { given, ctx, closed } => (given.clone(), ctx.clone(), *closed),
        };
        let (given, ctx, closed) = unread;
        match Self::read(self.kind, &given, &ctx) {
            Ok((config, options)) => {
                if !closed {
                    *self.config.borrow_mut() = Some(config);
                }
                *self.options.borrow_mut() = Options::Read(options.clone());
                Ok(options)
            }
            Err(e) => {
                *self.options.borrow_mut() = Options::Refused(e.clone());
                Err(e)
            }
        }
    }

    /// Starts serving `server`. A transport serves once: a second start is an
    /// `InvalidStateError`.
    pub fn start(&self, server: &Server) -> Result<Option<Promise>, JsValue> {
        self.options()?;
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

    pub fn is_open(&self) -> bool {
        self.running.borrow().as_ref().is_some_and(|r| r.is_open())
    }

    /// Stops serving (idempotent). A transport never started can no longer be.
    pub fn close(&self) {
        if let Options::Unread { closed, .. } = &mut *self.options.borrow_mut() {
            *closed = true;
        }
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
    pub fn is_open(&self) -> bool {
        self.handle.is_open()
    }

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

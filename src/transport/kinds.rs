//! The one table of server transport kinds: each `type` `connect()` accepts, the class a page
//! builds for it (`classes.rs`), and how its options are read. Everything that lists the
//! kinds reads this table: `connect()`'s errors, the classes' constructors, the installer's
//! `transports` record (through [`transport_classes`]); the ESM entry and the typings, which
//! must name them statically, are checked against it by `tests/page/transport_kinds.test.mjs`.

use wasm_bindgen::prelude::*;

use super::{broadcast, event, extension, iframe, persist, post_message, Started};
use crate::server::Server;

/// A server transport's parsed options: what every kind can do with them.
pub trait ServerTransport {
    /// Writes the effective options (defaults filled in) onto `o`: `transport.options`.
    fn normalize(&self, o: &JsValue);
    /// Starts serving `server` on this wire.
    fn start(self: Box<Self>, server: &Server) -> Result<Started, JsValue>;
}

/// Reads the options of one kind; the `&str` names them in error messages.
type Parse = fn(&JsValue, &str) -> Result<Box<dyn ServerTransport>, JsValue>;

/// One kind of server transport.
pub struct Kind {
    /// Its `type` in `connect({ transport: { type } })`.
    pub name: &'static str,
    /// The class a page builds it with: `new PostMessageServerTransport(…)`.
    pub class: &'static str,
    /// Reads its options.
    pub parse: Parse,
}

fn boxed<T: ServerTransport + 'static>(
    parsed: Result<T, JsValue>,
) -> Result<Box<dyn ServerTransport>, JsValue> {
    parsed.map(|c| Box::new(c) as Box<dyn ServerTransport>)
}

/// Every kind, in the order error messages list them.
pub static KINDS: [Kind; 7] = [
    Kind {
        name: "tab",
        class: "TabServerTransport",
        parse: |o, ctx| boxed(persist::TabConfig::from_js(o, ctx)),
    },
    Kind {
        name: "postMessage",
        class: "PostMessageServerTransport",
        parse: |o, ctx| boxed(post_message::PostMessageConfig::from_js(o, ctx)),
    },
    Kind {
        name: "broadcastChannel",
        class: "BroadcastChannelServerTransport",
        parse: |o, ctx| boxed(broadcast::BroadcastConfig::from_js(o, ctx)),
    },
    Kind {
        name: "iframeChild",
        class: "IframeChildServerTransport",
        parse: |o, ctx| boxed(iframe::ChildConfig::from_js(o, ctx)),
    },
    Kind {
        name: "iframeParent",
        class: "IframeParentServerTransport",
        parse: |o, ctx| boxed(iframe::ParentConfig::from_js(o, ctx)),
    },
    Kind {
        name: "event",
        class: "EventServerTransport",
        parse: |o, ctx| boxed(event::EventConfig::from_js(o, ctx)),
    },
    Kind {
        name: "extension",
        class: "ExtensionServerTransport",
        parse: |o, ctx| boxed(extension::ExtensionConfig::from_js(o, ctx)),
    },
];

/// The kind named `name` (a `type`).
pub fn find(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// The `type` names, quoted, for error messages: `'tab', 'postMessage', …`.
pub fn names_list() -> String {
    KINDS
        .iter()
        .map(|k| format!("'{}'", k.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names of the transport classes, in table order: the installer gathers these classes
/// of the core as `transports`.
#[wasm_bindgen(js_name = "transportClasses")]
pub fn transport_classes() -> js_sys::Array {
    KINDS.iter().map(|k| JsValue::from_str(k.class)).collect()
}

/// Each config type is a [`ServerTransport`] through its own `normalize` and its file's
/// start function.
macro_rules! server_transport {
    ($config:ty, $start:path) => {
        impl ServerTransport for $config {
            fn normalize(&self, o: &JsValue) {
                <$config>::normalize(self, o)
            }
            fn start(self: Box<Self>, server: &Server) -> Result<Started, JsValue> {
                $start(server, *self)
            }
        }
    };
}

server_transport!(persist::TabConfig, persist::start);
server_transport!(post_message::PostMessageConfig, post_message::start);
server_transport!(broadcast::BroadcastConfig, broadcast::start);
server_transport!(iframe::ChildConfig, iframe::start_child);
server_transport!(iframe::ParentConfig, iframe::start_parent);
server_transport!(event::EventConfig, event::start);
server_transport!(extension::ExtensionConfig, extension::start);

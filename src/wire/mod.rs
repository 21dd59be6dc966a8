//! The wires (wasm only): for each way a page's MCP messages travel, the envelope both ends
//! put them in and the defaults both ends start from, in one file each, so the server
//! transports (`crate::transport`) and the client transports (`crate::client::transport`)
//! cannot disagree. Imports only [`crate::js`]. `shared/spec/WIRE.md` describes each wire.
//!
//! | file | wire | envelope |
//! |---|---|---|
//! | `mcpb.rs` | MCP-B's window wires (tab, iframe) | `{ channel, type: 'mcp', direction, payload }` and its control strings |
//! | `tab.rs` | the tab wire | the MCP-B envelope on `mcp-default` |
//! | `iframe.rs` | the iframe wire | the MCP-B envelope on `mcp-iframe`, with a handshake |
//! | `post_message.rs` | a Worker, a MessagePort, a Window | `{ type, payload }` |
//! | `broadcast.rs` | a BroadcastChannel | `{ type: 'mcp', instanceId, to?, payload }` |
//! | `event.rs` | an event emitter | `mcp:request` / `mcp:response` events |
//! | `extension.rs` | a `chrome.runtime.Port` | raw JSON-RPC, keep-alives |

pub mod broadcast;
pub mod event;
pub mod extension;
pub mod iframe;
pub mod mcpb;
pub mod post_message;
pub mod tab;

//! [`Sent`]: what a session hands its sink.

use std::rc::Rc;

use serde_json::Value;

use crate::collections::VecMap;
use crate::protocol::RequestId;
use crate::protocol::{json_text, jsonrpc};
use crate::server::held::Held;

/// A result already serialized, shared by every answer that carries it while it is current
/// (see [`Sent::Shared`]). The `Rc` holds this small struct and the text is boxed apart: a sink
/// that remembers the last one it converted holds it weakly, and a `Weak` keeps its whole
/// allocation until it is dropped; here that is a few pointers' worth, and the text goes when
/// the last answer does. The box also lets a text built in a `String` become shared without
/// being copied.
pub type SharedText = Rc<SharedResult>;

/// The JSON text of a result and what it repeats (see [`SharedText`]).
pub struct SharedResult {
    text: Box<str>,
    repeats: Repeats,
}

impl SharedResult {
    /// `text`, which repeats nothing [`Repeats`] says.
    pub fn new(text: String) -> SharedResult {
        SharedResult::with_repeats(text, Repeats::default())
    }

    /// `text`, whose list items repeat values as `repeats` says.
    pub fn with_repeats(text: String, repeats: Repeats) -> SharedResult {
        SharedResult {
            text: text.into_boxed_str(),
            repeats,
        }
    }

    /// The result's JSON text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The values its list's items repeat.
    pub fn repeats(&self) -> &Repeats {
        &self.repeats
    }
}

/// Members of a list result's items whose values are equal to the same member of an earlier
/// item: the tools of a page that registered several with one schema. A sink that makes JS
/// objects of the text (a browser wire) can then make each such value one object that the
/// items share, which a structured clone copies once: the agent's listing of a thousand tools
/// of one schema then carries one schema object instead of a thousand, as the page itself
/// held it. JSON text has no such sharing, and a sink that writes text ignores this.
#[derive(Debug, Default, PartialEq)]
pub struct Repeats {
    list: &'static str,
    members: Vec<(&'static str, Box<[Repeat]>)>,
}

/// An item of the list and the earlier item whose value it repeats, by their indexes.
type Repeat = (u32, u32);

impl Repeats {
    /// No repeats yet, of the list in the result's member `list` (`"tools"`).
    pub fn new(list: &'static str) -> Repeats {
        Repeats {
            list,
            members: Vec::new(),
        }
    }

    /// Notes the repeats of member `member` of the list's items, from each item's key in the
    /// list's order (`None`: the item has no such member to share): items of equal keys have
    /// equal values, and each item after the first of its key repeats that first one.
    pub fn note(&mut self, member: &'static str, keys: impl Iterator<Item = Option<usize>>) {
        // Each key's first item, by key.
        let mut firsts: VecMap<usize, u32> = VecMap::new();
        let mut pairs = Vec::new();
        for (key, item) in keys.zip(0u32..) {
            let Some(key) = key else { continue };
            let earlier = *firsts.get_or_insert_with(key, || item);
            if earlier != item {
                pairs.push((item, earlier));
            }
        }
        if !pairs.is_empty() {
            self.members.push((member, pairs.into_boxed_slice()));
        }
    }

    /// The result's member holding the list.
    pub fn list(&self) -> &'static str {
        self.list
    }

    /// Each member that repeats, with its `(item, earlier item)` index pairs.
    pub fn members(&self) -> impl Iterator<Item = (&'static str, &[(u32, u32)])> {
        self.members.iter().map(|(m, pairs)| (*m, &pairs[..]))
    }

    /// Whether no item repeats an earlier one.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// A message as a session hands it to its sink.
pub enum Sent {
    /// A whole message as JSON text.
    Text(String),
    /// A whole message as a value, not yet written: a sink that makes a JS value of it
    /// converts it directly (a browser wire, whose long strings then cross into JS without
    /// being escaped and parsed), any other writes its text. An answer that waited for a
    /// handler (a tool's result, a resource's contents) is sent so when it is an error, or
    /// when its result holds strings ([`Held`]: a tool's or a resource's long string result),
    /// which go in place of their markers; any other is an [`Sent::Answer`].
    Message(Value, Held),
    /// A success answer that waited for a handler (a tool's result, a resource's contents)
    /// and holds nothing: its id and its result, the envelope written around the result's
    /// text by whoever writes or converts it (the envelope as a value, a map with its own
    /// keys, was most of what a short tool result's answer made and dropped).
    Answer {
        /// The request's id.
        id: RequestId,
        /// The result.
        result: Value,
    },
    /// A success answer whose result is JSON text shared by every answer until what it shows
    /// changes (a whole `tools/list`, see [`SharedResult`]): the same `Rc`
    /// each time, so a sink that converts results (a browser transport parsing them into JS
    /// objects) can convert one once and reuse it while it is current.
    Shared {
        /// The request's id.
        id: RequestId,
        /// The result, JSON text (and what its list repeats).
        result: SharedText,
    },
}

impl Sent {
    /// The message as JSON text.
    pub fn into_text(self) -> String {
        match self {
            Sent::Text(t) => t,
            Sent::Message(v, held) => message_text(v, held),
            Sent::Answer { id, result } => jsonrpc::success_text_of(&id, &result),
            Sent::Shared { id, result } => jsonrpc::success_text(&id, result.text()),
        }
    }
}

/// An answer's text, with what its result holds written in place (`server::held`). Apart from
/// [`Sent::into_text`], which a browser page's start runs for the answers it writes as text
/// (`#[inline(never)]`, and `CORE_APART` in `scripts/lib/core-split.mjs`).
#[inline(never)]
fn message_text(mut v: Value, held: Held) -> String {
    held.write_into(&mut v);
    json_text::to_string(&v)
}

//! The frame wire's listings: `getTools({ fromOrigins })` asking the windows of other origins
//! for the tools they exposed to this document (`list`, `list-reply`), answering such
//! questions, and telling the windows that know this document when the tools exposed to them
//! change (`changed`). See `super::wire` for the messages and the rules.

use js_sys::{Array, Promise, Reflect};
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::super::engine::EngineInner;
use super::super::store::{attached, hints, registered_tool, Door};
use super::link::{self, cross_origin, message, notice, post, take, Known};
use super::policy::{self, Policy};
use crate::js;
use crate::server::registry::Tool;

/// How long `getTools({ fromOrigins })` waits for windows not known to run this polyfill
/// (a window of another origin, or without the polyfill, never answers).
const PROBE_MS: f64 = 150.0;
/// How long it waits for windows known to run this polyfill.
const KNOWN_MS: f64 = 2000.0;

/// The open listings of one document (kept with the engine).
#[derive(Default)]
pub struct Listings(RefCell<Vec<Rc<Listing>>>);

/// One `getTools({ fromOrigins })` waiting for other windows.
pub struct Listing {
    id: u64,
    from: crate::collections::VecSet<String>,
    /// The windows asked, with the origin each is known to have (`None`: probed).
    asked: Vec<(JsValue, Option<String>)>,
    /// How many of the known windows have not answered.
    known_left: Cell<usize>,
    probed: bool,
    answered: RefCell<Vec<JsValue>>,
    tools: RefCell<Vec<JsValue>>,
    done: js::Deferred,
    timer: RefCell<Option<js::Timer>>,
}

/// This document's tools exposed to `origin` (`registerTool`'s `exposedTo`), sorted by name.
fn exposed(inner: &EngineInner, origin: &str) -> Vec<Rc<Tool>> {
    let mut tools = inner.server().tools();
    tools.retain(|t| {
        attached(&t.def)
            .is_some_and(|d| d.door == Door::WebMcp && d.exposed_to.iter().any(|o| o == origin))
    });
    tools
}

/// `tool` as a `RegisteredTool` dictionary without `window` (a window cannot cross) and
/// `origin` (the receiver knows it).
fn crossing(inner: &EngineInner, tool: &Tool) -> JsValue {
    let d = registered_tool(inner, tool);
    for key in ["window", "origin"] {
        let _ =
            Reflect::delete_property(d.unchecked_ref::<js_sys::Object>(), &JsValue::from_str(key));
    }
    d
}

fn names(tools: &[Rc<Tool>]) -> Vec<String> {
    tools.iter().map(|t| t.def.name.clone()).collect()
}

/// `list`: another origin's document asks for the tools exposed to it. It is answered
/// (with none while this document lacks the feature).
pub fn answer(inner: &Rc<EngineInner>, source: &JsValue, origin: &str, id: f64) {
    let known = inner.state::<Known>();
    known.remember(source, origin, None);
    let (source, origin) = (source.clone(), origin.to_string());
    link::with_policy(inner, move |me, allowed| {
        let tools = if allowed {
            exposed(me, &origin)
        } else {
            Vec::new()
        };
        me.state::<Known>()
            .remember(&source, &origin, Some(names(&tools)));
        let m = message("list-reply", id);
        let list: Array = tools.iter().map(|t| crossing(me, t)).collect();
        js::set(&m, "tools", &list);
        let _ = post(&source, &origin, &m);
    });
}

/// `list` answered with no tools: this document's deferred module, which lists them, could
/// not be had (`super::wire`).
pub fn answer_none(source: &JsValue, origin: &str, id: f64) {
    let m = message("list-reply", id);
    js::set(&m, "tools", &Array::new());
    let _ = post(source, origin, &m);
}

/// A tool dictionary from another origin's `list-reply`, as a `RegisteredTool` of `window`
/// and `origin` (members in lexicographic order); `None` when it is malformed.
fn remote_tool(d: &JsValue, window: &JsValue, origin: &str) -> Option<JsValue> {
    let name = js::get_string(d, "name")?;
    let description = js::get_string(d, "description")?;
    let o: JsValue = js::object().into();
    let annotations = js::get(d, "annotations").unwrap_or(JsValue::UNDEFINED);
    if annotations.is_object() {
        let ann = hints(|k| js::get(&annotations, k).ok() == Some(JsValue::TRUE));
        js::set(&o, "annotations", &ann);
    }
    js::set(&o, "description", &JsValue::from_str(&description));
    if let Ok(schema) = js::get(d, "inputSchema") {
        if schema.is_object() {
            js::set(&o, "inputSchema", &schema);
        }
    }
    js::set(&o, "name", &JsValue::from_str(&name));
    js::set(&o, "origin", &JsValue::from_str(origin));
    let title = js::get_string(d, "title").unwrap_or_default();
    js::set(&o, "title", &JsValue::from_str(&title));
    js::set(&o, "window", window);
    Some(o)
}

/// The tools other windows of the tree expose to this document's origin, from the windows
/// of the origins in `from` (serialized origins): a promise of an array of `RegisteredTool`
/// dictionaries, or `None` when no window needs asking.
pub fn list(inner: &Rc<EngineInner>, from: &[String]) -> Option<Promise> {
    let from: crate::collections::VecSet<String> = from
        .iter()
        .filter(|o| *o != inner.origin())
        .cloned()
        .collect();
    if from.is_empty() {
        return None;
    }
    let known = inner.state::<Known>();
    let id = known.next();
    let msg = message("list", id as f64);
    let mut asked = Vec::new();
    for w in super::frame_tree(inner.global()) {
        if w == *inner.global() || !cross_origin(&w) {
            continue;
        }
        match known.origin_of(&w) {
            Some(o) if from.contains(&o) => {
                if post(&w, &o, &msg).is_ok() {
                    asked.push((w, Some(o)));
                }
            }
            Some(_) => {}
            None => {
                for o in &from {
                    let _ = post(&w, o, &msg);
                }
                asked.push((w, None));
            }
        }
    }
    if asked.is_empty() {
        return None;
    }
    let probed = asked.iter().any(|(_, o)| o.is_none());
    let known_count = asked.iter().filter(|(_, o)| o.is_some()).count();
    let listing = Rc::new(Listing {
        id,
        from,
        asked,
        known_left: Cell::new(known_count),
        probed,
        answered: RefCell::new(Vec::new()),
        tools: RefCell::new(Vec::new()),
        done: js::Deferred::new(),
        timer: RefCell::new(None),
    });
    let weak: Weak<EngineInner> = Rc::downgrade(inner);
    let wait = if probed { PROBE_MS } else { KNOWN_MS };
    if let Ok(t) = js::Timer::timeout(wait, move || {
        if let Some(me) = weak.upgrade() {
            finish(&me, id);
        }
    }) {
        *listing.timer.borrow_mut() = Some(t);
    }
    inner
        .state::<Listings>()
        .0
        .borrow_mut()
        .push(listing.clone());
    Some(listing.done.promise().clone())
}

fn finish(inner: &EngineInner, id: u64) {
    if let Some(l) = take(&inner.state::<Listings>().0, |l| l.id == id) {
        l.timer.borrow_mut().take();
        let tools: Array = l.tools.borrow().iter().cloned().collect();
        l.done.settle(true, &tools);
    }
}

/// `list-reply`: an answer to an open listing, from a window it asked, of the origin it
/// asked for.
pub fn take_reply(inner: &EngineInner, source: &JsValue, origin: &str, id: u64, data: &JsValue) {
    let open = inner.state::<Listings>();
    let Some(l) = open.0.borrow().iter().find(|l| l.id == id).cloned() else {
        return;
    };
    let Some((_, expected)) = l.asked.iter().find(|(w, _)| w == source) else {
        return;
    };
    let admitted = match expected {
        Some(o) => o == origin,
        None => l.from.contains(origin),
    };
    if !admitted || l.answered.borrow().contains(source) {
        return;
    }
    l.answered.borrow_mut().push(source.clone());
    inner.state::<Known>().remember(source, origin, None);
    let list = js::get(data, "tools").unwrap_or(JsValue::UNDEFINED);
    if Array::is_array(&list) {
        let tools: Vec<JsValue> = Array::from(&list)
            .iter()
            .filter_map(|d| remote_tool(&d, source, origin))
            .collect();
        l.tools.borrow_mut().extend(tools);
    }
    if expected.is_some() {
        l.known_left.set(l.known_left.get().saturating_sub(1));
    }
    if !l.probed && l.known_left.get() == 0 {
        finish(inner, id);
    }
}

/// This document's tools changed: each known window of the tree hears `changed` if the
/// tools exposed to its origin changed.
pub fn tools_changed(inner: &EngineInner) {
    let known = inner.state::<Known>();
    if known.is_empty() {
        return;
    }
    let allowed = matches!(policy::policy(inner), Policy::Allowed);
    let changed = known.update(|origin| {
        if allowed {
            names(&exposed(inner, origin))
        } else {
            Vec::new()
        }
    });
    for (w, o) in changed {
        let _ = post(&w, &o, &notice("changed"));
    }
}

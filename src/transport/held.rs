//! Agents' messages held while the core's deferred module is on its way.
//!
//! `make build` cuts the core wasm in two (`scripts/lib/core-split.mjs`): a first module with
//! what a page's start, its own registrations and an agent's discovery run, and a deferred
//! module with the rest, requested when something first needs it or an agent's first message
//! comes (`polyfill/src/deferred.js`). A function of the deferred module that runs before it
//! has arrived reads it synchronously, which blocks the page while it downloads. So until it
//! has arrived every [`Hub`] delivers
//! an agent's discovery (`initialize`, `notifications/initialized`, `ping`, `tools/list`) at
//! once and holds anything else (`tools/call`, resources, prompts, tasks, responses, batches,
//! malformed messages, and an `initialize` that would replace the peer's session, whose
//! retirement is the deferred module's) until it has arrived; a message that comes after a held
//! one is held too, so every peer's messages reach its session in the order they came.
//!
//! The gate is open unless the loader closes it ([`hold_for_deferred`], for a core cut in two), so
//! a whole core (the inline builds) and the crate's own tests never hold anything. Once the
//! deferred module has arrived, and the page's calls that waited for it have run (so that a held
//! call finds a tool the page registered meanwhile), the loader calls [`deliver_held`] until
//! nothing is left, one message a call, so that one failing message does not take the others with
//! it; the gate is open again. When it could not be had ([`deferred_failed`]) the held requests,
//! and every later one the first module cannot serve, are answered with an error naming why
//! (instead of reading it synchronously again, which would block the page for a module that has
//! just failed to arrive); discovery goes on being served.
//!
//! Before the deferred module, the core fetches its call module (`scripts/lib/calls-cut.mjs`):
//! what an agent's `tools/call` runs of it. Once that has arrived ([`open_to_calls`]), held
//! messages an agent's call and its discovery may be served by (a `tools/call` that is not a
//! task's, `initialize`, `notifications/initialized`, `ping`, `tools/list`) are delivered from
//! the front of the queue ([`deliver_held_call`]) up to the first that needs the rest, and such
//! a message that comes with nothing held before it is delivered at once. Not while the page
//! itself waits for the deferred module (its calls queued, `ready` awaited: the loader closes the
//! calls again), since the page's calls go first: an agent's call of a tool the page registered
//! before the call came must find it. A function of the rest that such a call still runs is
//! read synchronously, as anything of the deferred module is that is needed before it arrives.
//!
//! [`Hub`]: super::hub::Hub

use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;

/// One message held: delivered once the deferred module has arrived, or refused (with why)
/// when it could not be had.
struct Held {
    deliver: Box<dyn FnOnce()>,
    refuse: Box<dyn FnOnce(&str)>,
    /// The call module is enough for it (see the module's documentation).
    early: bool,
}

enum Gate {
    Open,
    /// The deferred module is on its way; the messages held meanwhile, in order, and whether
    /// the early ones may be served now (the call module is there, the page waits for nothing).
    Holding {
        queue: VecDeque<Held>,
        calls: bool,
    },
    /// It could not be had, for this reason.
    Failed(String),
}

thread_local! {
    static GATE: RefCell<Gate> = const { RefCell::new(Gate::Open) };
    /// What the loader gave [`hold_for_deferred`] to call when something first waits for the
    /// deferred module: it is requested (if it was not) and compiled now
    /// (`polyfill/src/deferred.js`). Called once, then dropped.
    static URGE: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    /// What the loader gave [`hold_for_deferred`] to call when an agent's first message comes
    /// while the module has not been asked for: an agent is here, whose calls will need it, so
    /// it is requested now (and compiled once the page is idle). Called once, then dropped.
    static PREFETCH: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// The methods the first module serves while the deferred module is on its way.
fn is_discovery(method: &str) -> bool {
    matches!(
        method,
        "initialize" | "notifications/initialized" | "ping" | "tools/list"
    )
}

/// Whether one incoming message of `method` (`None` for anything that is not a request or
/// notification) is delivered now (`None`); if not, whether the call module is enough for it
/// (`Some(early)`), and it goes to [`hold_message`]: see the module's documentation. `call`
/// says whether it is a `tools/call` that is not a task's (asked only while something is on
/// its way). The first message while the module is on its way has it requested ([`PREFETCH`]).
pub(crate) fn admit(method: Option<&str>, call: impl FnOnce() -> bool) -> Option<bool> {
    let discovery = method.is_some_and(is_discovery);
    // (The gate read, then `call` and the loader outside the borrow: either may run page code.)
    let holding = GATE.with(|g| match &*g.borrow() {
        Gate::Open => Err(None),
        Gate::Holding { queue, calls } => Ok((queue.is_empty(), *calls)),
        Gate::Failed(_) => Err((!discovery).then_some(false)),
    });
    let (empty, calls) = match holding {
        Ok(state) => state,
        Err(now) => return now,
    };
    if let Some(prefetch) = PREFETCH.with(|p| p.borrow_mut().take()) {
        let _ = prefetch.call0(&JsValue::UNDEFINED);
    }
    let early = discovery || call();
    let now = empty && (discovery || (early && calls));
    (!now).then_some(early)
}

/// Holds work until the deferred module has arrived: `deliver` runs then (now when nothing is
/// on its way), or `refuse` with the reason it could not be had (now when it already could not).
pub(crate) fn hold(deliver: impl FnOnce() + 'static, refuse: impl FnOnce(&str) + 'static) {
    hold_message(deliver, refuse, false);
}

/// [`hold`] for a message [`admit`] did not admit (`early`, as it said); a held message's
/// refusal answers it.
pub(crate) fn hold_message(
    deliver: impl FnOnce() + 'static,
    refuse: impl FnOnce(&str) + 'static,
    early: bool,
) {
    let held = Held {
        deliver: Box::new(deliver),
        refuse: Box::new(refuse),
        early,
    };
    // (Run outside the borrow: a delivery may send answers that bring further messages.)
    let now = GATE.with(|g| match &mut *g.borrow_mut() {
        Gate::Holding { queue, .. } => {
            queue.push_back(held);
            None
        }
        Gate::Open => Some((held, None)),
        Gate::Failed(why) => Some((held, Some(why.clone()))),
    });
    match now {
        Some((held, None)) => (held.deliver)(),
        Some((held, Some(why))) => (held.refuse)(&why),
        // Held: the module is needed now (outside the borrows: the loader may run page code).
        None => {
            if let Some(urge) = URGE.with(|u| u.borrow_mut().take()) {
                let _ = urge.call0(&JsValue::UNDEFINED);
            }
        }
    }
}

/// Runs `f` once the core's deferred module has arrived: now when nothing is on its way (it has
/// arrived, or the core is whole), else after the messages held before it, in order; never when
/// it could not be had (`f` would read it synchronously again). For work of the page's own, done
/// later, that needs the deferred module (the mirror of its tools on the browser's own WebMCP),
/// and for the frame wire's messages that carry tools (`browser::frames::wire`).
pub(crate) fn after_deferred(f: impl FnOnce() + 'static) {
    hold(f, |_| {});
}

/// Closes the gate: the core's deferred module is on its way, or is asked for when first
/// needed (the loader, for a core cut in two, before any transport exists). `urge`, when
/// given, is called once, when the first message or work is held: the module is needed now.
/// `prefetch`, when given, is called once, when an agent's first message comes (before it is
/// held or delivered): the module will be needed soon.
#[wasm_bindgen(js_name = holdForDeferred)]
pub fn hold_for_deferred(urge: Option<js_sys::Function>, prefetch: Option<js_sys::Function>) {
    GATE.with(|g| {
        *g.borrow_mut() = Gate::Holding {
            queue: VecDeque::new(),
            calls: false,
        }
    });
    URGE.with(|u| *u.borrow_mut() = urge);
    PREFETCH.with(|p| *p.borrow_mut() = prefetch);
}

/// The deferred module has arrived: delivers the first held message and returns whether
/// another is left; when none is, opens the gate.
#[wasm_bindgen(js_name = deliverHeld)]
pub fn deliver_held() -> bool {
    let next = GATE.with(|g| {
        let mut gate = g.borrow_mut();
        let next = match &mut *gate {
            Gate::Holding { queue, .. } => queue.pop_front(),
            _ => None,
        };
        if next.is_none() {
            *gate = Gate::Open;
            URGE.with(|u| u.borrow_mut().take());
            PREFETCH.with(|p| p.borrow_mut().take());
        }
        next
    });
    match next {
        Some(held) => {
            (held.deliver)();
            true
        }
        None => false,
    }
}

/// The call module has arrived and the page waits for nothing of the deferred module (`open`),
/// or the page has come to wait for it (not `open`): whether the messages the call module is
/// enough for are served before the deferred module arrives (see the module's documentation).
#[wasm_bindgen(js_name = openToCalls)]
pub fn open_to_calls(open: bool) {
    GATE.with(|g| {
        if let Gate::Holding { calls, .. } = &mut *g.borrow_mut() {
            *calls = open;
        }
    });
}

/// Delivers the first held message when the call module is enough for it and may serve it
/// ([`open_to_calls`]); returns whether it did. The loader calls it until it does not.
#[wasm_bindgen(js_name = deliverHeldCall)]
pub fn deliver_held_call() -> bool {
    let next = GATE.with(|g| match &mut *g.borrow_mut() {
        Gate::Holding { queue, calls: true } if queue.front().is_some_and(|h| h.early) => {
            queue.pop_front()
        }
        _ => None,
    });
    match next {
        Some(held) => {
            (held.deliver)();
            true
        }
        None => false,
    }
}

/// The deferred module could not be had (`why`): the held messages are refused, and so is
/// every later one the first module cannot serve.
#[wasm_bindgen(js_name = deferredFailed)]
pub fn deferred_failed(why: String) {
    let held =
        GATE.with(
            |g| match std::mem::replace(&mut *g.borrow_mut(), Gate::Failed(why.clone())) {
                Gate::Holding { queue, .. } => queue,
                _ => VecDeque::new(),
            },
        );
    for h in held {
        (h.refuse)(&why);
    }
}

//! Waiting for a page's thenable with one JS function for every wait ([`settled`]).
//!
//! `wasm_bindgen_futures::JsFuture` makes two closures per promise it waits for (its fulfil
//! and reject callbacks): each a JS function made by the glue and registered with a
//! `FinalizationRegistry`, each unregistered and destroyed again once the promise settles.
//! An `async` tool function is such a wait on every call. Here the page's `awaitSettled`
//! helper (`polyfill/src/engine_helpers.js`, `__mcpAwait`) takes the thenable and a wait's
//! number and calls one closure, made once, with the number and the outcome; the future
//! finds its outcome by its number.
//!
//! Check order of a settlement: the wait is still there (a future dropped before its
//! promise settled, a cancelled call's, has removed it: the outcome is dropped), then its
//! outcome is kept, then the waker the future last left is woken.

use js_sys::Promise;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::Helper;
use crate::collections::Numbered;

#[wasm_bindgen]
extern "C" {
    /// `polyfill/src/engine_helpers.js`'s `__mcpAwait(value, n, settled)`, called with a
    /// typed signature.
    type AwaitSettled;
    #[wasm_bindgen(method, catch, js_name = call)]
    fn start(
        this: &AwaitSettled,
        this_arg: &JsValue,
        value: &JsValue,
        n: u32,
        settled: &JsValue,
    ) -> Result<JsValue, JsValue>;
}

/// A wait not yet settled, or settled and not yet taken by its future.
struct Wait {
    outcome: Option<Result<JsValue, JsValue>>,
    waker: Option<Waker>,
}

thread_local! {
    /// The helper from the engine's config ([`use_await_settled`]).
    static AWAIT: Helper = const { Helper::new("awaitSettled") };
    static WAITS: RefCell<Numbered<Wait>> = const { RefCell::new(Numbered::new()) };
    /// The one closure every settlement calls: made on the first wait, kept for the page's life.
    static SETTLE: Closure<dyn Fn(u32, bool, JsValue)> = Closure::new(settle);
}

/// Takes `config.awaitSettled` (absent: [`settled`] waits with a `JsFuture`).
pub fn use_await_settled(config: &JsValue) {
    AWAIT.with(|a| a.take(config));
}

fn settle(n: u32, ok: bool, value: JsValue) {
    let waker = WAITS.with(|w| {
        let mut w = w.borrow_mut();
        let wait = w.get_mut(n)?;
        wait.outcome = Some(if ok { Ok(value) } else { Err(value) });
        wait.waker.take()
    });
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// How `thenable` settles: its value, or the reason it was rejected for (the thenable is
/// taken as `Promise.resolve` takes it).
pub async fn settled(thenable: &JsValue) -> Result<JsValue, JsValue> {
    let started = AWAIT.with(|a| {
        a.with(|f| {
            let n = WAITS.with(|w| {
                w.borrow_mut().insert(Wait {
                    outcome: None,
                    waker: None,
                })
            });
            let waiting = Waiting(n);
            SETTLE
                .with(|s| {
                    f.unchecked_ref::<AwaitSettled>().start(
                        &JsValue::UNDEFINED,
                        thenable,
                        n,
                        s.as_ref(),
                    )
                })
                .map(|_| waiting)
        })
    });
    match started {
        Some(Ok(waiting)) => waiting.await,
        Some(Err(thrown)) => Err(thrown),
        None => JsFuture::from(Promise::resolve(thenable)).await,
    }
}

/// The future of wait number `.0`; dropped, it forgets the wait.
struct Waiting(u32);

impl Future for Waiting {
    type Output = Result<JsValue, JsValue>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        WAITS.with(|w| {
            let mut w = w.borrow_mut();
            let Some(wait) = w.get_mut(self.0) else {
                // (Never: only this future removes its wait.)
                return Poll::Ready(Err(JsValue::UNDEFINED));
            };
            match wait.outcome.take() {
                Some(outcome) => {
                    w.remove(self.0);
                    Poll::Ready(outcome)
                }
                None => {
                    wait.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        // (`try_with`: a wait dropped as the thread's locals go.)
        let _ = WAITS.try_with(|w| w.borrow_mut().remove(self.0));
    }
}

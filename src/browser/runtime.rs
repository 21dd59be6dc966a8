//! The engine's [`Runtime`] in a browser (window or worker), and an ordered task queue.

use js_sys::{Function, Promise, Reflect};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::server::{LocalBoxFuture, Runtime};

/// Spawns on the microtask queue; sleeps with `setTimeout`.
pub struct BrowserRuntime;

impl Runtime for BrowserRuntime {
    fn spawn(&self, fut: LocalBoxFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(fut);
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let promise = Promise::new(&mut |resolve, _reject| {
            let set_timeout: Option<Function> =
                Reflect::get(&js_sys::global(), &"setTimeout".into())
                    .ok()
                    .and_then(|f| f.dyn_into().ok());
            if let Some(f) = set_timeout {
                let _ = f.call2(&JsValue::UNDEFINED, &resolve, &JsValue::from_f64(ms as f64));
            }
        });
        Box::pin(async move {
            let _ = JsFuture::from(promise).await;
        })
    }

    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }
}

type Task = Box<dyn FnOnce()>;

/// A FIFO queue of tasks run as separate event-loop tasks (one `MessageChannel` message
/// each), the way a spec "queues a task": each runs after the current task and any
/// microtasks, in the order queued.
pub struct TaskQueue {
    tasks: Rc<RefCell<VecDeque<Task>>>,
    port: web_sys::MessagePort,
    _receiver: web_sys::MessagePort,
    _onmessage: Closure<dyn FnMut()>,
}

impl TaskQueue {
    pub fn new() -> Result<TaskQueue, JsValue> {
        let channel = web_sys::MessageChannel::new()?;
        let tasks: Rc<RefCell<VecDeque<Task>>> = Rc::new(RefCell::new(VecDeque::new()));
        let queue = tasks.clone();
        let onmessage = Closure::<dyn FnMut()>::new(move || {
            let task = queue.borrow_mut().pop_front();
            if let Some(t) = task {
                t();
            }
        });
        let receiver = channel.port2();
        receiver.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        Ok(TaskQueue {
            tasks,
            port: channel.port1(),
            _receiver: receiver,
            _onmessage: onmessage,
        })
    }

    /// Queues `task` to run as its own task.
    pub fn queue(&self, task: impl FnOnce() + 'static) {
        self.tasks.borrow_mut().push_back(Box::new(task));
        let _ = self.port.post_message(&JsValue::UNDEFINED);
    }
}

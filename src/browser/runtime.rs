//! The engine's [`Runtime`] in a browser (window or worker), and an ordered task queue.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::js;

use crate::server::{LocalBoxFuture, Runtime};

/// Spawns on the microtask queue; sleeps on `Sleeps`: one `setTimeout` for all sleepers.
pub struct BrowserRuntime;

impl Runtime for BrowserRuntime {
    fn spawn(&self, fut: LocalBoxFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(fut);
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(Sleep::new(ms as f64))
    }

    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }
}

/// The pending sleeps of this thread, woken by one timer armed for the earliest deadline.
///
/// Every tool call races its handler against a sleep of the tool timeout; a timer per call
/// costs a `setTimeout` (and, were it cleared, a `clearTimeout`) crossing per call and, not
/// cleared, leaves one pending timer per finished call until its deadline. Here a sleep is an
/// entry in a list: a new deadline later than the armed one arms nothing, a dropped sleep
/// removes its entry, and when the timer fires it wakes what is due and arms for the next.
#[derive(Default)]
struct Sleeps {
    next: u64,
    pending: Vec<Pending>,
    /// The armed timer and its deadline (`Date.now()` milliseconds).
    armed: Option<(f64, js::Timer)>,
}

struct Pending {
    id: u64,
    deadline: f64,
    waker: Option<Waker>,
}

thread_local! {
    static SLEEPS: RefCell<Sleeps> = RefCell::new(Sleeps::default());
}

impl Sleeps {
    /// Arms the timer for `deadline` unless one already fires at or before it.
    fn arm(&mut self, deadline: f64) {
        if self.armed.as_ref().is_some_and(|(at, _)| *at <= deadline) {
            return;
        }
        let wait = (deadline - js_sys::Date::now()).max(0.0);
        // A timer that cannot be set (no setTimeout) leaves the sleep pending forever, as the
        // platform would.
        self.armed = js::Timer::timeout(wait, fire).ok().map(|t| (deadline, t));
    }
}

/// The timer fired: wake every sleep that is due, then arm for the earliest left.
fn fire() {
    let due: Vec<Waker> = SLEEPS.with(|s| {
        let mut s = s.borrow_mut();
        // This timer has fired (dropping it clears an id that already ran: harmless).
        s.armed = None;
        let now = js_sys::Date::now();
        let mut due = Vec::new();
        for p in s.pending.iter_mut().filter(|p| p.deadline <= now) {
            p.deadline = f64::NEG_INFINITY; // fired: `Sleep::poll` sees it done
            due.extend(p.waker.take());
        }
        let next = s
            .pending
            .iter()
            .map(|p| p.deadline)
            .filter(|d| d.is_finite())
            .fold(f64::INFINITY, f64::min);
        if next.is_finite() {
            s.arm(next);
        }
        due
    });
    // Woken outside the borrow: a waker may poll at once and sleep again.
    for w in due {
        w.wake();
    }
}

/// A future that is ready `ms` milliseconds after it was made.
struct Sleep {
    id: u64,
}

impl Sleep {
    fn new(ms: f64) -> Sleep {
        SLEEPS.with(|s| {
            let mut s = s.borrow_mut();
            s.next += 1;
            let id = s.next;
            let deadline = js_sys::Date::now() + ms;
            s.pending.push(Pending {
                id,
                deadline,
                waker: None,
            });
            s.arm(deadline);
            Sleep { id }
        })
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        SLEEPS.with(|s| {
            let mut s = s.borrow_mut();
            match s.pending.iter_mut().find(|p| p.id == self.id) {
                Some(p) if p.deadline == f64::NEG_INFINITY => Poll::Ready(()),
                Some(p) => {
                    p.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
                None => Poll::Ready(()),
            }
        })
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        // `try_with`: a sleep dropped while the thread's storage is torn down has nothing to
        // remove. The armed timer stays: when it fires it finds nothing due and re-arms.
        let _ = SLEEPS.try_with(|s| {
            let mut s = s.borrow_mut();
            if let Some(i) = s.pending.iter().position(|p| p.id == self.id) {
                s.pending.swap_remove(i);
            }
        });
    }
}

/// A queued task.
pub type Task = Box<dyn FnOnce()>;

thread_local! {
    /// `polyfill/src/engine_helpers.js`'s `__mcpTaskChannel`, from the engine's config
    /// ([`use_task_channel`]): a stand-in over the platform's `scheduler.postTask` where there
    /// is one, else its `MessageChannel`, else a stand-in over timers (Jest's jsdom
    /// environment).
    static TASK_CHANNEL: js::Helper = const { js::Helper::new("taskChannel") };
}

/// Takes the task queue's channel maker from the engine's `config.taskChannel` (absent: the
/// queue makes a `MessageChannel`).
pub fn use_task_channel(config: &JsValue) {
    TASK_CHANNEL.with(|h| h.take(config));
}

/// A FIFO queue of tasks run as separate event-loop tasks (one message of the task channel
/// each, [`use_task_channel`]), the way a spec "queues a task": each runs after the current
/// task and any microtasks, in the order queued.
pub struct TaskQueue {
    tasks: Rc<RefCell<VecDeque<Task>>>,
    port: web_sys::MessagePort,
    receiver: web_sys::MessagePort,
    _onmessage: Closure<dyn FnMut()>,
}

impl TaskQueue {
    /// An empty queue on a new task channel.
    pub fn new() -> Result<TaskQueue, JsValue> {
        let channel: web_sys::MessageChannel =
            match TASK_CHANNEL.with(|h| h.with(|f| f.call0(&JsValue::NULL))) {
                Some(made) => made?.unchecked_into(),
                None => web_sys::MessageChannel::new()?,
            };
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
            receiver,
            _onmessage: onmessage,
        })
    }

    /// Queues `task` to run as its own task.
    pub fn queue(&self, task: impl FnOnce() + 'static) {
        self.push(Box::new(task));
    }

    /// Appends `task` and posts the message that will run it.
    fn push(&self, task: Task) {
        self.tasks.borrow_mut().push_back(task);
        let _ = self.port.post_message(&JsValue::UNDEFINED);
    }

    /// Runs `task` at the end of the task queued last, when that one has not run yet (one
    /// event-loop task for both, in the same order); otherwise queues it as its own. Nothing
    /// can run between the two then, which no caller may count on either way: another task
    /// source's task may or may not run between two queued tasks.
    pub fn queue_after_last(&self, task: Task) {
        let mut tasks = self.tasks.borrow_mut();
        match tasks.pop_back() {
            Some(last) => tasks.push_back(Box::new(move || {
                last();
                task();
            })),
            None => {
                drop(tasks);
                self.push(task);
            }
        }
    }
}

impl Drop for TaskQueue {
    /// A message still on its way finds no listener (not the dropped closure).
    fn drop(&mut self) {
        self.receiver.set_onmessage(None);
    }
}

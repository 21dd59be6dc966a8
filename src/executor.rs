//! A single-threaded executor for native hosts: the stdio server and the engine's tests.
//!
//! Spawned futures run only inside [`LocalExecutor::run_until_stalled`] /
//! [`LocalExecutor::block_on`], so everything spawned during one turn starts after that
//! turn, as in a browser's microtask queue. Timers use the real clock, or, for tests of
//! timing, a virtual one ([`LocalExecutor::with_virtual_clock`]) that moves only when every
//! task waits for a timer, straight to the next one due: what a test asserts of timers then
//! holds whatever the machine's load.

use std::cell::{Cell, RefCell};
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::server::runtime::system_now_ms;
use crate::server::{LocalBoxFuture, Runtime};

struct Queue {
    ready: Mutex<VecDeque<u64>>,
    thread: Thread,
}

struct TaskWaker {
    id: u64,
    queue: Arc<Queue>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }
    fn wake_by_ref(self: &Arc<Self>) {
        if let Ok(mut q) = self.queue.ready.lock() {
            q.push_back(self.id);
        }
        self.queue.thread.unpark();
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Timer {
    at: std::cmp::Reverse<Instant>,
    seq: u64,
}

#[derive(Default)]
struct TimerState {
    heap: BinaryHeap<Timer>,
    wakers: HashMap<u64, (bool, Option<Waker>)>,
    next: u64,
}

/// Where the executor's time comes from.
enum Clock {
    /// The machine's monotonic clock.
    Real,
    /// `start` plus how far the executor has moved it; the wall clock
    /// ([`Runtime::now_ms`]) moves with it from `wall_start_ms`.
    Virtual {
        start: Instant,
        wall_start_ms: f64,
        moved: Cell<Duration>,
    },
}

struct Inner {
    tasks: RefCell<HashMap<u64, LocalBoxFuture<'static, ()>>>,
    spawned: RefCell<Vec<(u64, LocalBoxFuture<'static, ()>)>>,
    next_task: RefCell<u64>,
    queue: Arc<Queue>,
    timers: Rc<RefCell<TimerState>>,
    clock: Clock,
}

/// A single-threaded executor with timers. Cheap to clone (shared handle).
#[derive(Clone)]
pub struct LocalExecutor(Rc<Inner>);

impl Default for LocalExecutor {
    fn default() -> Self {
        Self::new()
    }
}

impl LocalExecutor {
    /// An executor with no task and no timer, on the real clock.
    pub fn new() -> Self {
        Self::on(Clock::Real)
    }

    /// An executor with no task and no timer, on a virtual clock: [`block_on`](Self::block_on),
    /// when no task can run and a timer is set, moves the clock to that timer's time at once
    /// instead of waiting for it. Timers fire in the order of their times, each when the
    /// clock reaches it, never late; [`now`](Self::now) reads the clock, and the wall clock
    /// the engine stamps and expires tasks by ([`Runtime::now_ms`]) moves with it.
    ///
    /// ```
    /// use modelcontext_polyfill::executor::LocalExecutor;
    /// use modelcontext_polyfill::server::Runtime;
    /// use std::time::{Duration, Instant};
    ///
    /// let ex = LocalExecutor::with_virtual_clock();
    /// let (start, real) = (ex.now(), Instant::now());
    /// ex.block_on(ex.sleep(3_600_000));
    /// assert_eq!(ex.now() - start, Duration::from_secs(3_600));
    /// assert!(real.elapsed() < Duration::from_secs(60));
    ///
    /// let wall = ex.now_ms();
    /// ex.block_on(ex.sleep(250));
    /// assert_eq!(ex.now_ms() - wall, 250.0);
    /// ```
    pub fn with_virtual_clock() -> Self {
        Self::on(Clock::Virtual {
            start: Instant::now(),
            wall_start_ms: system_now_ms(),
            moved: Cell::new(Duration::ZERO),
        })
    }

    fn on(clock: Clock) -> Self {
        LocalExecutor(Rc::new(Inner {
            tasks: RefCell::new(HashMap::new()),
            spawned: RefCell::new(Vec::new()),
            next_task: RefCell::new(1),
            queue: Arc::new(Queue {
                ready: Mutex::new(VecDeque::new()),
                thread: std::thread::current(),
            }),
            timers: Rc::new(RefCell::new(TimerState::default())),
            clock,
        }))
    }

    /// The executor's time: the machine's, or the virtual clock's.
    pub fn now(&self) -> Instant {
        match &self.0.clock {
            Clock::Real => Instant::now(),
            Clock::Virtual { start, moved, .. } => *start + moved.get(),
        }
    }

    /// Queues `fut`; it first runs at the next `run_until_stalled`.
    pub fn spawn_local(&self, fut: impl Future<Output = ()> + 'static) {
        let id = {
            let mut n = self.0.next_task.borrow_mut();
            *n += 1;
            *n
        };
        self.0.spawned.borrow_mut().push((id, Box::pin(fut)));
    }

    /// Tasks not yet finished.
    pub fn pending_tasks(&self) -> usize {
        self.0.tasks.borrow().len() + self.0.spawned.borrow().len()
    }

    fn fire_due_timers(&self) {
        let now = self.now();
        let mut due = Vec::new();
        {
            let mut t = self.0.timers.borrow_mut();
            while t.heap.peek().is_some_and(|top| top.at.0 <= now) {
                let top = t.heap.pop().expect("peeked");
                if let Some(entry) = t.wakers.get_mut(&top.seq) {
                    entry.0 = true;
                    if let Some(w) = entry.1.take() {
                        due.push(w);
                    }
                }
            }
        }
        for w in due {
            w.wake();
        }
    }

    /// Polls every runnable task until none can make progress. Returns how many polls ran.
    pub fn run_until_stalled(&self) -> usize {
        let mut polls = 0;
        loop {
            self.fire_due_timers();
            let fresh: Vec<_> = std::mem::take(&mut *self.0.spawned.borrow_mut());
            for (id, fut) in fresh {
                self.0.tasks.borrow_mut().insert(id, fut);
                if let Ok(mut q) = self.0.queue.ready.lock() {
                    q.push_back(id);
                }
            }
            let next = self
                .0
                .queue
                .ready
                .lock()
                .ok()
                .and_then(|mut q| q.pop_front());
            let Some(id) = next else {
                if self.0.spawned.borrow().is_empty() {
                    return polls;
                }
                continue;
            };
            let task = self.0.tasks.borrow_mut().remove(&id);
            let Some(mut fut) = task else { continue };
            let waker = Waker::from(Arc::new(TaskWaker {
                id,
                queue: self.0.queue.clone(),
            }));
            polls += 1;
            if fut
                .as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_pending()
            {
                self.0.tasks.borrow_mut().insert(id, fut);
            }
        }
    }

    /// Runs `fut` (and everything spawned) until `fut` completes, sleeping while only
    /// timers or outside wake-ups can make progress.
    pub fn block_on<T: 'static>(&self, fut: impl Future<Output = T> + 'static) -> T {
        let out: Rc<RefCell<Option<T>>> = Rc::new(RefCell::new(None));
        let slot = out.clone();
        self.spawn_local(async move {
            let v = fut.await;
            *slot.borrow_mut() = Some(v);
        });
        loop {
            self.run_until_stalled();
            if let Some(v) = out.borrow_mut().take() {
                return v;
            }
            let next_timer = self.0.timers.borrow().heap.peek().map(|t| t.at.0);
            match (next_timer, &self.0.clock) {
                // Nothing can run before the next timer: the virtual clock goes to it.
                (Some(at), Clock::Virtual { start, moved, .. }) => {
                    if at > self.now() {
                        moved.set(at - *start);
                    }
                }
                (Some(at), Clock::Real) => {
                    let now = Instant::now();
                    if at > now {
                        std::thread::park_timeout(at - now);
                    }
                }
                // Only a wake-up from outside (another thread) can make progress.
                (None, _) => std::thread::park_timeout(Duration::from_millis(50)),
            }
        }
    }
}

struct Sleep {
    seq: u64,
    timers: Rc<RefCell<TimerState>>,
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut t = self.timers.borrow_mut();
        match t.wakers.get_mut(&self.seq) {
            Some((true, _)) => {
                t.wakers.remove(&self.seq);
                Poll::Ready(())
            }
            Some(entry) => {
                entry.1 = Some(cx.waker().clone());
                Poll::Pending
            }
            None => Poll::Ready(()),
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Ok(mut t) = self.timers.try_borrow_mut() {
            t.wakers.remove(&self.seq);
        }
    }
}

impl Runtime for LocalExecutor {
    fn spawn(&self, fut: LocalBoxFuture<'static, ()>) {
        self.spawn_local(fut);
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let seq = {
            let mut t = self.0.timers.borrow_mut();
            t.next += 1;
            let seq = t.next;
            t.heap.push(Timer {
                at: std::cmp::Reverse(self.now() + Duration::from_millis(ms)),
                seq,
            });
            t.wakers.insert(seq, (false, None));
            seq
        };
        Box::pin(Sleep {
            seq,
            timers: self.0.timers.clone(),
        })
    }

    /// The system clock; on a virtual clock, the system clock's time at its start plus how far
    /// it has moved.
    fn now_ms(&self) -> f64 {
        match &self.0.clock {
            Clock::Real => system_now_ms(),
            Clock::Virtual {
                wall_start_ms,
                moved,
                ..
            } => wall_start_ms + moved.get().as_secs_f64() * 1000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn spawned_work_waits_for_the_turn_to_end() {
        let ex = LocalExecutor::new();
        let ran = Rc::new(Cell::new(false));
        let r = ran.clone();
        ex.spawn_local(async move { r.set(true) });
        assert!(!ran.get());
        ex.run_until_stalled();
        assert!(ran.get());
    }

    #[test]
    fn the_virtual_clock_fires_timers_in_order_of_their_times_each_on_its_time() {
        let ex = LocalExecutor::with_virtual_clock();
        let start = ex.now();
        let fired: Rc<RefCell<Vec<(u64, Duration)>>> = Rc::default();
        for ms in [30, 10, 20, 10] {
            let (f, e, s) = (fired.clone(), ex.clone(), ex.sleep(ms));
            ex.spawn_local(async move {
                s.await;
                f.borrow_mut().push((ms, e.now() - start));
            });
        }
        // A chain: each sleep set when the one before fired.
        let (e, f) = (ex.clone(), fired.clone());
        ex.block_on(async move {
            for _ in 0..3 {
                e.sleep(25).await;
            }
            f.borrow_mut().push((75, e.now() - start));
        });
        let ms = |n| Duration::from_millis(n);
        assert_eq!(
            *fired.borrow(),
            vec![
                (10, ms(10)),
                (10, ms(10)),
                (20, ms(20)),
                (30, ms(30)),
                (75, ms(75))
            ]
        );
        // Without a timer set the clock stays.
        ex.run_until_stalled();
        assert_eq!(ex.now() - start, ms(75));
    }

    #[test]
    fn sleep_completes_on_the_clock() {
        let ex = LocalExecutor::new();
        let start = Instant::now();
        let s = ex.sleep(20);
        ex.block_on(s);
        assert!(start.elapsed() >= Duration::from_millis(20));
    }
}

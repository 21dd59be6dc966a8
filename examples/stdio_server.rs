//! The engine as an MCP server on stdin/stdout (the MCP stdio transport).
//!
//! ```text
//! cargo run --example stdio_server
//! ```
//!
//! One JSON-RPC message per line in each direction, UTF-8, no embedded newlines; stdout
//! carries nothing but messages, and diagnostics go to stderr. The server registers the
//! fixture set of the official MCP conformance suite plus `echo` (see `fixtures/mod.rs`).
//!
//! Threads: a reader thread reads stdin lines into an inbox; the main thread runs the
//! engine on [`LocalExecutor`], woken through a [`Waker`] whenever a line arrives. At end
//! of input the server finishes the requests in flight, then exits with status 0; when
//! stdout can no longer be written (the client went away) it stops with status 1.
//!
//! Input is bounded while it is read: a line longer than the message limit is not kept
//! (its first bytes are, to read the request's id for the error answering it; the rest is
//! skipped up to the newline), and the inbox holds at most a fixed number of bytes: past
//! it the reader stops reading until the engine catches up, so a client writing faster
//! than the server answers is slowed by the pipe (backpressure) instead of growing memory.
//!
//! Environment:
//! - `STDIO_SERVER_WATCH_MS`: how often `test://watched-resource` changes (default 3000;
//!   `0` never);
//! - `STDIO_SERVER_MAX_LINE_BYTES`: the longest line accepted (default: the engine's
//!   `max_message_bytes`, 4 MiB); longer ones are answered with a -32600 error;
//! - `STDIO_SERVER_QUEUE_BYTES`: how many bytes of lines may wait for the engine (default
//!   16 MiB; a line longer than this still passes, alone);
//! - `STDIO_SERVER_TRACE=1`: echo every message in and out to stderr.

#[path = "fixtures/mod.rs"]
mod fixtures;

use modelcontext_polyfill::executor::LocalExecutor;
use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::{Runtime, Server, ServerConfig, ServerInfo};
use std::cell::Cell;
use std::collections::VecDeque;
use std::future::Future;
use std::io::{BufRead, Write};
use std::pin::Pin;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};

/// How many bytes of an oversized line are kept to read the request's id from.
const HEAD_BYTES: usize = 64 * 1024;

/// One line of input.
enum Line {
    Message(String),
    /// Longer than the limit: its first [`HEAD_BYTES`] and its full length.
    Oversize {
        head: String,
        len: usize,
    },
}

impl Line {
    fn bytes(&self) -> usize {
        match self {
            Line::Message(s) => s.len(),
            Line::Oversize { head, .. } => head.len(),
        }
    }
}

/// Lines read from stdin, waiting for the engine.
#[derive(Default)]
struct InboxState {
    lines: VecDeque<Line>,
    /// Bytes held in `lines`.
    bytes: usize,
    eof: bool,
    waker: Option<Waker>,
}

#[derive(Clone)]
struct Inbox {
    st: Arc<Mutex<InboxState>>,
    /// Signalled when the engine takes a line (room for the reader).
    room: Arc<Condvar>,
    max_bytes: usize,
}

impl Inbox {
    fn new(max_bytes: usize) -> Inbox {
        Inbox {
            st: Arc::default(),
            room: Arc::default(),
            max_bytes,
        }
    }

    /// Queues a line (`None`: end of input), first waiting while the inbox is full.
    fn push(&self, line: Option<Line>) {
        let waker = {
            let mut st = self.st.lock().unwrap_or_else(|e| e.into_inner());
            match line {
                Some(l) => {
                    while !st.lines.is_empty() && st.bytes + l.bytes() > self.max_bytes {
                        st = self.room.wait(st).unwrap_or_else(|e| e.into_inner());
                    }
                    st.bytes += l.bytes();
                    st.lines.push_back(l);
                }
                None => st.eof = true,
            }
            st.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// The next line; `None` once stdin has ended and every line has been taken.
    fn next(&self) -> NextLine {
        NextLine(self.clone())
    }
}

struct NextLine(Inbox);

impl Future for NextLine {
    type Output = Option<Line>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Line>> {
        let inbox = &self.0;
        let mut st = inbox.st.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(line) = st.lines.pop_front() {
            st.bytes -= line.bytes();
            inbox.room.notify_one();
            Poll::Ready(Some(line))
        } else if st.eof {
            Poll::Ready(None)
        } else {
            st.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// Lets the executor run what the last message spawned before the next one is handled.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Reads one line (without its end) into `buf`, keeping at most `max` bytes of it: a longer
/// line keeps only its first [`HEAD_BYTES`] and the rest is read and dropped. Returns the
/// line's full length, or `None` at end of input.
fn read_line_capped(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<usize>> {
    buf.clear();
    let mut len = 0usize;
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(any.then_some(len));
        }
        any = true;
        let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        let keep = if len + take <= max {
            take
        } else {
            HEAD_BYTES.saturating_sub(buf.len()).min(take)
        };
        buf.extend_from_slice(&chunk[..keep]);
        if len + take > max && buf.len() > HEAD_BYTES {
            buf.truncate(HEAD_BYTES);
        }
        len += take;
        input.consume(take + usize::from(end));
        if end {
            return Ok(Some(len));
        }
    }
}

/// Reads stdin line by line into `inbox` until end of input (or a read error).
fn spawn_reader(inbox: Inbox, max_line: usize) {
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut buf = Vec::new();
        loop {
            match read_line_capped(&mut input, &mut buf, max_line) {
                Ok(None) => break,
                Ok(Some(len)) => {
                    let mut len = len;
                    while matches!(buf.last(), Some(b'\r')) {
                        buf.pop();
                        len -= 1;
                    }
                    if buf.iter().all(u8::is_ascii_whitespace) && len == buf.len() {
                        continue;
                    }
                    let text = match String::from_utf8(std::mem::take(&mut buf)) {
                        Ok(s) => s,
                        Err(e) => {
                            if len <= max_line {
                                eprintln!("stdio_server: a line is not valid UTF-8; invalid bytes replaced with U+FFFD");
                            }
                            String::from_utf8_lossy(e.as_bytes()).into_owned()
                        }
                    };
                    inbox.push(Some(if len > max_line {
                        eprintln!("stdio_server: refused a line of {len} bytes (limit {max_line})");
                        Line::Oversize { head: text, len }
                    } else {
                        Line::Message(text)
                    }));
                }
                Err(e) => {
                    eprintln!("stdio_server: reading stdin failed: {e}");
                    break;
                }
            }
        }
        inbox.push(None);
    });
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| {
            eprintln!("stdio_server: ignoring {name}={v:?} (not a number)");
            default
        }),
        Err(_) => default,
    }
}

fn main() -> ExitCode {
    let trace = std::env::var("STDIO_SERVER_TRACE").is_ok_and(|v| v == "1");
    let watch_ms = env_u64("STDIO_SERVER_WATCH_MS", 3000);

    let executor = LocalExecutor::new();
    let runtime: Rc<dyn Runtime> = Rc::new(executor.clone());
    let mut info = ServerInfo::new("modelcontext-polyfill-stdio", env!("CARGO_PKG_VERSION"));
    info.title = Some("modelcontext-polyfill engine (stdio example)".into());
    info.instructions = Some(
        "Fixtures of the MCP conformance suite (test_* tools, test:// resources, test_* prompts) \
         and an echo tool."
            .into(),
    );
    let server = Server::new(
        info,
        ServerConfig::default(),
        runtime.clone(),
        Rc::new(JsonSchemaCompiler::new()),
    );
    let watched = match fixtures::register_all(&server, runtime.clone()) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("stdio_server: registering the fixtures failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    if watch_ms > 0 {
        executor.spawn_local(fixtures::watch_loop(
            server.clone(),
            watched,
            runtime.clone(),
            watch_ms,
        ));
    }

    // Set when stdout can no longer be written (the client is gone): stop serving.
    let stdout_gone = Rc::new(Cell::new(false));
    let gone = stdout_gone.clone();
    let session = server.connect(move |text: String| {
        if trace {
            eprintln!("stdio_server >> {text}");
        }
        if gone.get() {
            return;
        }
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        // serde_json escapes control characters, so `text` is one line.
        if let Err(e) = out
            .write_all(text.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush())
        {
            eprintln!("stdio_server: writing stdout failed ({e}); stopping");
            gone.set(true);
        }
    });

    let max_line = env_u64(
        "STDIO_SERVER_MAX_LINE_BYTES",
        server.config().limits.max_message_bytes as u64,
    ) as usize;
    let inbox = Inbox::new(env_u64("STDIO_SERVER_QUEUE_BYTES", 16 << 20) as usize);
    spawn_reader(inbox.clone(), max_line);
    eprintln!(
        "stdio_server: ready ({} tools, {} resources, {} prompts); reading JSON-RPC lines on stdin",
        server.tools().len(),
        server.resources().len(),
        server.prompts().len()
    );

    let rt = runtime.clone();
    let clean = executor.block_on(async move {
        while let Some(line) = inbox.next().await {
            match line {
                Line::Message(text) => {
                    if trace {
                        eprintln!("stdio_server << {text}");
                    }
                    session.receive(&text);
                }
                // Answered with an error addressed to the id read from its start.
                Line::Oversize { head, len } => session.refuse_oversize(&head, len, max_line),
            }
            YieldNow(false).await;
            if stdout_gone.get() {
                return false;
            }
        }
        // End of input: let the requests in flight finish (their answers still go out).
        let pending = session.in_flight();
        if pending > 0 {
            eprintln!("stdio_server: end of input; finishing {pending} request(s) in flight");
        }
        while session.in_flight() > 0 && !stdout_gone.get() {
            rt.sleep(5).await;
        }
        session.close();
        !stdout_gone.get()
    });
    if clean {
        eprintln!("stdio_server: end of input; exiting");
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

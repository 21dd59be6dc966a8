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
//! Environment:
//! - `STDIO_SERVER_WATCH_MS`: how often `test://watched-resource` changes (default 3000;
//!   `0` never);
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
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// Lines read from stdin, waiting for the engine.
#[derive(Default)]
struct InboxState {
    lines: VecDeque<String>,
    eof: bool,
    waker: Option<Waker>,
}

#[derive(Clone, Default)]
struct Inbox(Arc<Mutex<InboxState>>);

impl Inbox {
    fn push(&self, line: Option<String>) {
        let waker = {
            let mut st = self.0.lock().unwrap_or_else(|e| e.into_inner());
            match line {
                Some(l) => st.lines.push_back(l),
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
    type Output = Option<String>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<String>> {
        let mut st = (self.0).0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(line) = st.lines.pop_front() {
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

/// Reads stdin line by line into `inbox` until end of input (or a read error).
fn spawn_reader(inbox: Inbox) {
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {
                    while matches!(buf.last(), Some(b'\n' | b'\r')) {
                        buf.pop();
                    }
                    if buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    let line = match String::from_utf8(std::mem::take(&mut buf)) {
                        Ok(s) => s,
                        Err(e) => {
                            eprintln!("stdio_server: a line is not valid UTF-8; invalid bytes replaced with U+FFFD");
                            String::from_utf8_lossy(e.as_bytes()).into_owned()
                        }
                    };
                    inbox.push(Some(line));
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
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

    let inbox = Inbox::default();
    spawn_reader(inbox.clone());
    eprintln!(
        "stdio_server: ready ({} tools, {} resources, {} prompts); reading JSON-RPC lines on stdin",
        server.tools().len(),
        server.resources().len(),
        server.prompts().len()
    );

    let rt = runtime.clone();
    let clean = executor.block_on(async move {
        while let Some(line) = inbox.next().await {
            if trace {
                eprintln!("stdio_server << {line}");
            }
            session.receive(&line);
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

//! The MCP client core against the real engine: an in-memory transport joins a
//! [`Client`] to a [`Server`] session on one [`LocalExecutor`]. Timeouts, close, caller
//! cancellation, server-to-client traffic, heartbeat and the reconnection schedule.

use modelcontext_polyfill::client::{
    Client, ClientError, ClientOptions, ClientTransport, Handshake, HandshakeError,
    IncomingRequest, Phase, ReconnectOptions, ReconnectScheduler, RequestOptions, TransportSink,
    DEFAULT_TIMEOUT_MS,
};
use modelcontext_polyfill::executor::LocalExecutor;
use modelcontext_polyfill::protocol::{ErrorObject, ProtocolVersion, RequestId};
use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::{
    CancellationToken, HandlerError, LocalBoxFuture, RequestContext, Runtime, Server, ServerConfig,
    ServerInfo, Session, ToolDef,
};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

mod support;

// ---- an in-memory transport to the real engine ------------------------------------------

/// What the next `start()` does.
#[derive(Clone, Copy, Debug)]
enum Start {
    Ok,
    Fail(&'static str),
    /// Never becomes ready.
    Hang,
}

/// A transport whose peer is a [`Session`] of `server`. Each `start` opens a fresh session
/// (or fails, as scripted); everything the client sends is logged.
struct Wire {
    ex: LocalExecutor,
    server: Server,
    session: RefCell<Option<Session>>,
    sink: RefCell<Option<TransportSink>>,
    sent: RefCell<Vec<Value>>,
    script: RefCell<VecDeque<Start>>,
    /// Swallow what the client sends (a peer that stopped answering).
    deaf: Cell<bool>,
    starts: Cell<u32>,
    closes: Cell<u32>,
}

impl Wire {
    fn new(ex: &LocalExecutor, server: &Server) -> Rc<Wire> {
        Rc::new(Wire {
            ex: ex.clone(),
            server: server.clone(),
            session: RefCell::new(None),
            sink: RefCell::new(None),
            sent: RefCell::new(Vec::new()),
            script: RefCell::new(VecDeque::new()),
            deaf: Cell::new(false),
            starts: Cell::new(0),
            closes: Cell::new(0),
        })
    }

    fn script(&self, steps: &[Start]) {
        self.script.borrow_mut().extend(steps.iter().cloned());
    }

    /// The peer goes away on its own.
    fn drop_connection(&self, reason: &str) {
        if let Some(s) = self.session.borrow_mut().take() {
            s.close();
        }
        let sink = self.sink.borrow_mut().take();
        if let Some(sink) = sink {
            sink.closed(Some(reason.to_string()));
        }
    }

    /// Delivers `message` to the client as if the server had sent it.
    fn inject(&self, message: Value) {
        let sink = self.sink.borrow().clone().expect("a live connection");
        sink.message(message);
    }

    fn sent_methods(&self) -> Vec<String> {
        self.sent
            .borrow()
            .iter()
            .filter_map(|m| m.get("method").and_then(Value::as_str).map(String::from))
            .collect()
    }

    fn sent_with_method(&self, method: &str) -> Vec<Value> {
        self.sent
            .borrow()
            .iter()
            .filter(|m| m["method"] == json!(method))
            .cloned()
            .collect()
    }

    /// Replies the client sent (messages with an id and no method).
    fn sent_replies(&self) -> Vec<Value> {
        self.sent
            .borrow()
            .iter()
            .filter(|m| m.get("method").is_none())
            .cloned()
            .collect()
    }
}

impl ClientTransport for Wire {
    fn start(&self, sink: TransportSink) -> LocalBoxFuture<'static, Result<(), String>> {
        self.starts.set(self.starts.get() + 1);
        let step = self.script.borrow_mut().pop_front().unwrap_or(Start::Ok);
        match step {
            Start::Fail(why) => return Box::pin(async move { Err(why.to_string()) }),
            Start::Hang => return Box::pin(std::future::pending()),
            Start::Ok => {}
        }
        let ex = self.ex.clone();
        let to_client = sink.clone();
        let session = self.server.connect(move |text| {
            // Deliver on a later turn, as a browser delivers a posted message.
            let sink = to_client.clone();
            ex.spawn_local(async move {
                sink.message(serde_json::from_str(&text).expect("the engine sends JSON"));
            });
        });
        *self.session.borrow_mut() = Some(session);
        *self.sink.borrow_mut() = Some(sink);
        Box::pin(async { Ok(()) })
    }

    fn send(&self, message: &Value) -> Result<(), String> {
        self.sent.borrow_mut().push(message.clone());
        if self.deaf.get() {
            return Ok(());
        }
        match self.session.borrow().as_ref() {
            Some(s) => {
                s.receive(&message.to_string());
                Ok(())
            }
            None => Err("not connected".into()),
        }
    }

    fn close(&self) {
        self.closes.set(self.closes.get() + 1);
        if let Some(s) = self.session.borrow_mut().take() {
            s.close();
        }
        self.sink.borrow_mut().take();
    }
}

// ---- the server -------------------------------------------------------------------------

/// What the `hang` tool saw: the cancellation reasons of its calls.
type Seen = Rc<RefCell<Vec<String>>>;

fn server(ex: &LocalExecutor, seen: &Seen) -> Server {
    let server = Server::new(
        ServerInfo::new("engine", "9.9.9"),
        ServerConfig::default(),
        Rc::new(ex.clone()),
        Rc::new(JsonSchemaCompiler::new()),
    );
    server
        .register_tool(ToolDef::new(
            "echo",
            "Echo",
            |args: Value, _ctx| async move { Ok(json!({ "echo": args })) },
        ))
        .unwrap();
    let seen = seen.clone();
    server
        .register_tool(ToolDef::new(
            "hang",
            "Never settles; records its cancellation",
            move |_args: Value, ctx: RequestContext| {
                let seen = seen.clone();
                async move {
                    let why = ctx.cancel.cancelled().await;
                    seen.borrow_mut().push(why);
                    std::future::pending::<Result<Value, HandlerError>>().await
                }
            },
        ))
        .unwrap();
    server
        .register_tool(ToolDef::new(
            "progress",
            "Reports progress, then answers",
            |_args: Value, ctx: RequestContext| async move {
                ctx.report_progress(1.0, Some(2.0), Some("half"));
                ctx.report_progress(2.0, Some(2.0), Some("done"));
                Ok(json!("finished"))
            },
        ))
        .unwrap();
    server
        .register_tool(ToolDef::new(
            "ask",
            "Asks the client for a sampling",
            |_args: Value, ctx: RequestContext| async move {
                let params = json!({"messages":[{"role":"user","content":{"type":"text","text":"2+2?"}}],"maxTokens":5});
                match ctx.request("sampling/createMessage", Some(params)).await {
                    Ok(v) => Ok(json!({ "answer": v })),
                    Err(e) => Err(HandlerError::new(format!("{}: {}", e.code, e.message))),
                }
            },
        ))
        .unwrap();
    server
}

struct Rig {
    ex: LocalExecutor,
    server: Server,
    wire: Rc<Wire>,
    client: Client,
    seen: Seen,
    closes: Rc<RefCell<Vec<Option<String>>>>,
    errors: Rc<RefCell<Vec<ClientError>>>,
    reconnects: Rc<RefCell<Vec<u32>>>,
}

fn rig(options: ClientOptions) -> Rig {
    // On the virtual clock: a timer fires when nothing else can run, on its time, never late,
    // whatever the machine's load.
    let ex = LocalExecutor::with_virtual_clock();
    let seen: Seen = Rc::default();
    let server = server(&ex, &seen);
    let wire = Wire::new(&ex, &server);
    let client = Client::new(Rc::new(ex.clone()), wire.clone(), options);
    let closes: Rc<RefCell<Vec<Option<String>>>> = Rc::default();
    let errors: Rc<RefCell<Vec<ClientError>>> = Rc::default();
    let reconnects: Rc<RefCell<Vec<u32>>> = Rc::default();
    let c = closes.clone();
    client.set_on_close(Some(Rc::new(move |r| c.borrow_mut().push(r))));
    let e = errors.clone();
    client.set_on_error(Some(Rc::new(move |err: &ClientError| {
        e.borrow_mut().push(err.clone())
    })));
    let r = reconnects.clone();
    client.set_on_reconnect(Some(Rc::new(move |n, d| {
        assert_eq!(d.protocol_version, ProtocolVersion::V2025_11_25);
        r.borrow_mut().push(n)
    })));
    Rig {
        ex,
        server,
        wire,
        client,
        seen,
        closes,
        errors,
        reconnects,
    }
}

/// Two futures raced; the test helper's own, so a stuck test fails instead of hanging.
struct Race<T>(LocalBoxFuture<'static, T>, LocalBoxFuture<'static, ()>);

impl<T> Future for Race<T> {
    type Output = Option<T>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        if let Poll::Ready(v) = self.0.as_mut().poll(cx) {
            return Poll::Ready(Some(v));
        }
        if let Poll::Ready(()) = self.1.as_mut().poll(cx) {
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}

impl Rig {
    /// Runs `fut` to completion (failing the test after 5 s).
    fn run<T: 'static>(&self, fut: impl Future<Output = T> + 'static) -> T {
        let race = Race(Box::pin(fut), self.ex.sleep(5_000));
        self.ex
            .block_on(race)
            .expect("the future did not complete within 5 s")
    }

    fn connect(&self) {
        let details = self.run(self.client.connect()).expect("connects");
        assert_eq!(details.protocol_version, ProtocolVersion::V2025_11_25);
    }

    /// Lets spawned work and due timers run for `ms`.
    fn idle(&self, ms: u64) {
        self.run(self.ex.sleep(ms));
    }

    /// Lets spawned work and due timers run until `done` holds (failing the test after 5 s
    /// of the executor's clock).
    fn idle_until(&self, what: &str, done: impl Fn() -> bool) {
        let start = self.ex.now();
        while !done() {
            assert!(
                self.ex.now() - start < Duration::from_secs(5),
                "still waiting for {what} after 5 s"
            );
            self.idle(1);
        }
    }

    /// Starts `fut` now; its outcome lands in the returned cell.
    fn spawn<T: 'static>(&self, fut: LocalBoxFuture<'static, T>) -> Rc<RefCell<Option<T>>> {
        let out = Rc::new(RefCell::new(None));
        let o = out.clone();
        self.ex.spawn_local(async move {
            *o.borrow_mut() = Some(fut.await);
        });
        self.ex.run_until_stalled();
        out
    }
}

fn opts(timeout_ms: u64) -> ClientOptions {
    ClientOptions {
        timeout_ms,
        ..ClientOptions::default()
    }
}

fn with_timeout(ms: u64) -> RequestOptions {
    RequestOptions {
        timeout_ms: Some(ms),
        ..RequestOptions::default()
    }
}

// ---- connecting and calling -------------------------------------------------------------

#[test]
fn connects_initializes_and_calls_tools_with_fresh_ids() {
    let r = rig(ClientOptions::default());
    assert_eq!(r.client.options().timeout_ms, DEFAULT_TIMEOUT_MS);
    assert_eq!(DEFAULT_TIMEOUT_MS, 60_000);
    assert_eq!(r.client.phase(), Phase::Idle);
    r.connect();
    assert_eq!(r.client.phase(), Phase::Connected);
    let details = r.client.server().unwrap();
    assert_eq!(details.server_info["name"], json!("engine"));
    assert!(details.capabilities.get("tools").is_some());
    assert_eq!(
        r.wire.sent_methods()[..2],
        ["initialize", "notifications/initialized"]
    );
    let init = &r.wire.sent_with_method("initialize")[0];
    assert_eq!(init["params"]["protocolVersion"], json!("2025-11-25"));
    assert!(init["params"]["clientInfo"]["name"].is_string());

    let tools = r
        .run(r.client.list_tools(None, RequestOptions::default()))
        .unwrap();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ask", "echo", "hang", "progress"]);
    let result = r
        .run(
            r.client
                .call_tool("echo", Some(json!({"x": 1})), RequestOptions::default()),
        )
        .unwrap();
    assert_eq!(result["structuredContent"], json!({"echo": {"x": 1}}));

    // Concurrent requests are correlated by id, each id used once.
    let a = r.spawn(
        r.client
            .call_tool("echo", Some(json!({"n": "a"})), RequestOptions::default()),
    );
    let b = r.spawn(r.client.ping(RequestOptions::default()));
    r.idle(5);
    assert_eq!(
        a.borrow().clone().unwrap().unwrap()["structuredContent"]["echo"]["n"],
        json!("a")
    );
    assert_eq!(b.borrow().clone().unwrap().unwrap(), json!({}));
    let ids: Vec<Value> = r
        .wire
        .sent
        .borrow()
        .iter()
        .filter(|m| m.get("id").is_some())
        .map(|m| m["id"].clone())
        .collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids, unique);
    assert_eq!(
        ids,
        (1..=ids.len() as i64).map(Value::from).collect::<Vec<_>>()
    );
    assert!(r.errors.borrow().is_empty(), "{:?}", r.errors.borrow());
}

#[test]
fn rpc_errors_come_back_as_rpc_errors() {
    let r = rig(ClientOptions::default());
    r.connect();
    let e = r
        .run(
            r.client
                .read_resource("mem://nothing", RequestOptions::default()),
        )
        .unwrap_err();
    match e {
        ClientError::Rpc(obj) => {
            assert!(obj.code < 0);
            assert!(obj.message.contains("mem://nothing"), "{obj:?}");
        }
        other => panic!("{other:?}"),
    }
    let e = r
        .run(r.client.request("no/such", None, RequestOptions::default()))
        .unwrap_err();
    assert!(
        matches!(e, ClientError::Rpc(ErrorObject { code: -32601, .. })),
        "{e:?}"
    );
}

#[test]
fn requests_need_a_connection_and_connect_runs_once() {
    let r = rig(ClientOptions::default());
    let e = r.run(r.client.ping(RequestOptions::default())).unwrap_err();
    assert!(matches!(e, ClientError::NotConnected { .. }), "{e:?}");
    assert!(e.to_string().contains("connect()"));
    assert!(r.client.notify("notifications/x", None).is_err());
    r.connect();
    let again = r.run(r.client.connect()).unwrap_err();
    assert_eq!(again, ClientError::AlreadyConnected);
    r.client
        .notify("notifications/roots/list_changed", None)
        .unwrap();
    assert_eq!(
        r.wire.sent_methods().last().unwrap(),
        "notifications/roots/list_changed"
    );
}

#[test]
fn a_failed_start_fails_connect_and_closes() {
    let r = rig(ClientOptions::default());
    r.wire.script(&[Start::Fail("no peer")]);
    let e = r.run(r.client.connect()).unwrap_err();
    assert_eq!(e, ClientError::transport("no peer"));
    assert_eq!(r.client.phase(), Phase::Closed);
    assert_eq!(r.closes.borrow().len(), 1);
    // Closed clients may connect again.
    r.connect();
    assert_eq!(r.client.phase(), Phase::Connected);
}

#[test]
fn closing_while_connecting_fails_connect_with_the_close() {
    let r = rig(ClientOptions::default());
    r.wire.script(&[Start::Hang]);
    let connecting = r.spawn(r.client.connect());
    assert_eq!(r.client.phase(), Phase::Connecting);
    // Requests made meanwhile wait; notifications cannot.
    let queued = r.spawn(r.client.ping(RequestOptions::default()));
    let e = r.client.notify("notifications/x", None).unwrap_err();
    assert!(e.to_string().contains("is connecting"), "{e}");
    r.client.close();
    r.idle(1);
    assert_eq!(
        connecting.borrow().clone().unwrap().unwrap_err(),
        ClientError::transport_closed("The client was closed")
    );
    assert!(matches!(
        queued.borrow().clone(),
        Some(Err(ClientError::TransportClosed { .. }))
    ));
    assert_eq!(*r.closes.borrow(), vec![None]);
}

#[test]
fn a_transport_that_never_gets_ready_times_out_connect() {
    let r = rig(opts(40));
    r.wire.script(&[Start::Hang]);
    let e = r.run(r.client.connect()).unwrap_err();
    assert!(
        e.to_string().contains("did not become ready within 40 ms"),
        "{e}"
    );
    assert_eq!(r.client.phase(), Phase::Closed);
}

/// A transport whose peer answers `initialize` with a fixed protocol version.
struct Versioned {
    version: &'static str,
    ex: LocalExecutor,
    sink: RefCell<Option<TransportSink>>,
    sent: RefCell<Vec<Value>>,
}

impl ClientTransport for Versioned {
    fn start(&self, sink: TransportSink) -> LocalBoxFuture<'static, Result<(), String>> {
        *self.sink.borrow_mut() = Some(sink);
        Box::pin(async { Ok(()) })
    }
    fn send(&self, message: &Value) -> Result<(), String> {
        self.sent.borrow_mut().push(message.clone());
        if message["method"] == json!("initialize") {
            let reply = json!({"jsonrpc":"2.0","id": message["id"],"result":{
                "protocolVersion": self.version, "capabilities": {}, "serverInfo": {"name":"v","version":"1"}}});
            let sink = self.sink.borrow().clone().unwrap();
            self.ex.spawn_local(async move { sink.message(reply) });
        }
        Ok(())
    }
    fn close(&self) {}
}

#[test]
fn accepts_any_supported_version_the_server_answers_and_refuses_others() {
    for (version, ok) in [
        ("2025-06-18", true),
        ("2024-11-05", true),
        ("2026-07-28", false),
        ("1999-01-01", false),
    ] {
        let ex = LocalExecutor::new();
        let t = Rc::new(Versioned {
            version,
            ex: ex.clone(),
            sink: RefCell::new(None),
            sent: RefCell::new(Vec::new()),
        });
        let client = Client::new(Rc::new(ex.clone()), t.clone(), ClientOptions::default());
        let got = ex.block_on(client.connect());
        if ok {
            assert_eq!(got.unwrap().protocol_version.as_str(), version);
            assert_eq!(
                t.sent.borrow()[1]["method"],
                json!("notifications/initialized")
            );
        } else {
            let e = got.unwrap_err();
            assert_eq!(
                e,
                ClientError::UnsupportedVersion {
                    offered: version.into()
                }
            );
            assert!(e.to_string().contains("2025-11-25"), "{e}");
            assert_eq!(client.phase(), Phase::Closed);
            assert_eq!(
                t.sent.borrow().len(),
                1,
                "no initialized after a refused version"
            );
        }
    }
}

// ---- a dropped request --------------------------------------------------------------------

#[test]
fn a_request_dropped_unanswered_is_forgotten_and_cancelled_on_the_server_once() {
    let r = rig(opts(60_000));
    r.connect();
    let call = r.client.call_tool("hang", None, RequestOptions::default());
    r.idle(5);
    assert_eq!(r.client.pending_requests(), 1);
    drop(call);
    assert_eq!(r.client.pending_requests(), 0);
    let cancels = r.wire.sent_with_method("notifications/cancelled");
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0]["params"]["requestId"], json!(2));
    // The next request is served as usual.
    let listed = r
        .run(r.client.list_tools(None, RequestOptions::default()))
        .unwrap();
    assert!(listed["tools"].is_array());
    assert_eq!(r.wire.sent_with_method("notifications/cancelled").len(), 1);
}

// ---- timeout ----------------------------------------------------------------------------

#[test]
fn a_timeout_fails_with_request_timeout_and_cancels_on_the_server() {
    let r = rig(opts(60));
    r.connect();
    let start = r.ex.now();
    let e = r
        .run(r.client.call_tool("hang", None, RequestOptions::default()))
        .unwrap_err();
    assert_eq!(r.ex.now() - start, Duration::from_millis(60));
    match &e {
        ClientError::RequestTimeout {
            id,
            method,
            timeout_ms,
        } => {
            assert_eq!(method, "tools/call");
            assert_eq!(*timeout_ms, 60);
            assert_eq!(*id, RequestId::Number(2));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.code(), "REQUEST_TIMEOUT");
    let cancels = r.wire.sent_with_method("notifications/cancelled");
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0]["params"]["requestId"], json!(2));
    assert!(cancels[0]["params"]["reason"]
        .as_str()
        .unwrap()
        .contains("timed out after 60 ms"));
    r.idle(5);
    assert_eq!(
        r.seen.borrow().len(),
        1,
        "the server's handler saw the cancellation"
    );
    assert!(r.seen.borrow()[0].contains("timed out"));
    assert_eq!(r.client.pending_requests(), 0);
    // A late answer to the abandoned id is reported, not delivered.
    r.wire.inject(json!({"jsonrpc":"2.0","id":2,"result":{}}));
    assert!(matches!(
        r.errors.borrow().last(),
        Some(ClientError::Protocol { .. })
    ));
    assert_eq!(
        r.client.phase(),
        Phase::Connected,
        "a timeout does not end the connection"
    );
}

/// A transport whose `send` returned but whose asynchronous send then failed (a rejected
/// promise, as the browser bridge has it) fails that request at once with the failure, not at
/// its timeout; another message's failed send is reported; the next request is served.
#[test]
fn a_send_that_fails_later_fails_its_request_at_once() {
    let r = rig(opts(60_000));
    r.connect();
    r.wire.deaf.set(true);
    let start = r.ex.now();
    let call = r.spawn(r.client.call_tool("hang", None, RequestOptions::default()));
    let sent = r.wire.sent_with_method("tools/call");
    let id = RequestId::from_value(&sent.last().unwrap()["id"]).unwrap();
    let sink = r.wire.sink.borrow().clone().unwrap();
    sink.send_failed(
        Some(&id),
        "send failed: the iframe has no contentWindow".into(),
    );
    r.idle_until("the call to fail", || call.borrow().is_some());
    assert!(r.ex.now() - start < Duration::from_millis(60_000));
    match call.borrow_mut().take().unwrap() {
        Err(ClientError::Transport { message }) => {
            assert_eq!(message, "send failed: the iframe has no contentWindow")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(r.client.pending_requests(), 0);
    assert!(
        r.errors.borrow().is_empty(),
        "the request's caller has the error"
    );
    // A notification's failed send (no pending request) is reported.
    sink.send_failed(None, "send failed: gone".into());
    assert!(matches!(
        r.errors.borrow().last(),
        Some(ClientError::Transport { message }) if message == "send failed: gone"
    ));
    // A stale id (already settled) is reported too, and settles nothing.
    sink.send_failed(Some(&id), "send failed: again".into());
    assert_eq!(r.errors.borrow().len(), 2);
    r.wire.deaf.set(false);
    assert_eq!(r.client.phase(), Phase::Connected);
    r.run(r.client.ping(RequestOptions::default()))
        .expect("the next request is served");
}

#[test]
fn a_per_call_timeout_overrides_the_default() {
    let r = rig(opts(20));
    r.connect();
    let start = r.ex.now();
    let e = r
        .run(r.client.call_tool("hang", None, with_timeout(120)))
        .unwrap_err();
    assert_eq!(r.ex.now() - start, Duration::from_millis(120));
    assert!(
        matches!(
            e,
            ClientError::RequestTimeout {
                timeout_ms: 120,
                ..
            }
        ),
        "{e:?}"
    );
    // "No timeout" (Infinity from JS) never times out.
    let slow = r.spawn(r.client.call_tool("hang", None, with_timeout(u64::MAX)));
    r.idle(60);
    assert!(slow.borrow().is_none());
    r.client.close();
    r.idle(1);
    assert!(matches!(
        slow.borrow().clone(),
        Some(Err(ClientError::TransportClosed { .. }))
    ));
}

// ---- close ------------------------------------------------------------------------------

#[test]
fn close_fails_every_pending_request_with_transport_closed() {
    let r = rig(ClientOptions::default());
    r.connect();
    let calls: Vec<_> = (0..3)
        .map(|_| r.spawn(r.client.call_tool("hang", None, RequestOptions::default())))
        .collect();
    r.idle(5);
    assert_eq!(r.client.pending_requests(), 3);
    r.client.close();
    r.idle(1);
    for c in &calls {
        let e = c.borrow().clone().unwrap().unwrap_err();
        assert!(matches!(e, ClientError::TransportClosed { .. }), "{e:?}");
        assert_eq!(e.code(), "TRANSPORT_CLOSED");
    }
    assert_eq!(r.client.phase(), Phase::Closed);
    assert_eq!(*r.closes.borrow(), vec![None]);
    assert_eq!(r.wire.closes.get(), 1);
    assert_eq!(r.server.session_count(), 0);
    let cancels = r.wire.sent_with_method("notifications/cancelled");
    assert_eq!(
        cancels.len(),
        3,
        "close() tells the server it stopped waiting"
    );
    assert_eq!(
        cancels[0]["params"]["reason"],
        json!("The client was closed")
    );
    assert_eq!(r.seen.borrow().len(), 3);
    assert!(
        r.seen.borrow().iter().all(|w| w == "The client was closed"),
        "{:?}",
        r.seen.borrow()
    );
    // Idempotent, and nothing more goes out.
    r.client.close();
    assert_eq!(r.closes.borrow().len(), 1);
    let e = r.run(r.client.ping(RequestOptions::default())).unwrap_err();
    assert!(matches!(e, ClientError::TransportClosed { .. }));
}

#[test]
fn a_lost_connection_without_reconnection_closes_with_its_reason() {
    let r = rig(ClientOptions::default());
    r.connect();
    let call = r.spawn(r.client.call_tool("hang", None, RequestOptions::default()));
    r.wire.drop_connection("the worker was terminated");
    r.idle(1);
    let e = call.borrow().clone().unwrap().unwrap_err();
    assert_eq!(
        e,
        ClientError::transport_closed("the worker was terminated")
    );
    assert_eq!(
        *r.closes.borrow(),
        vec![Some("the worker was terminated".to_string())]
    );
    assert_eq!(r.client.phase(), Phase::Closed);
}

// ---- caller cancellation ----------------------------------------------------------------

#[test]
fn caller_cancellation_sends_notifications_cancelled_and_aborts() {
    let r = rig(ClientOptions::default());
    r.connect();
    let token = CancellationToken::new();
    let call = r.spawn(r.client.call_tool(
        "hang",
        None,
        RequestOptions {
            cancel: Some(token.clone()),
            ..RequestOptions::default()
        },
    ));
    r.idle(5);
    token.cancel("The user pressed stop");
    r.idle(5);
    let e = call.borrow().clone().unwrap().unwrap_err();
    assert_eq!(
        e,
        ClientError::Aborted {
            reason: "The user pressed stop".into()
        }
    );
    let cancels = r.wire.sent_with_method("notifications/cancelled");
    assert_eq!(cancels.len(), 1);
    assert_eq!(
        cancels[0]["params"],
        json!({"requestId": 2, "reason": "The user pressed stop"})
    );
    assert_eq!(*r.seen.borrow(), vec!["The user pressed stop".to_string()]);
    assert_eq!(r.client.pending_requests(), 0);

    // Already cancelled: fails at once, nothing is sent.
    let before = r.wire.sent.borrow().len();
    let e = r
        .run(r.client.call_tool(
            "echo",
            None,
            RequestOptions {
                cancel: Some(token),
                ..RequestOptions::default()
            },
        ))
        .unwrap_err();
    assert!(matches!(e, ClientError::Aborted { .. }));
    assert_eq!(r.wire.sent.borrow().len(), before);
}

/// Two hundred requests in flight at once, made at random: answers that come back out of the
/// order they were asked in (a tool that sleeps a random time), per-call timeouts shorter or
/// longer than the work, callers that cancel at a random moment. Each request settles once,
/// with its own answer, on its time; the client is left with nothing pending, and the server
/// answers nothing it was told was cancelled (a late answer would be reported as an error).
#[test]
fn many_requests_at_once_each_settle_once_with_their_own_outcome() {
    let r = rig(opts(1_000));
    r.connect();
    let ex = r.ex.clone();
    r.server
        .register_tool(ToolDef::new(
            "sleep",
            "Answers with its k after ms",
            move |args: Value, _ctx| {
                let ex = ex.clone();
                async move {
                    ex.sleep(args["ms"].as_u64().unwrap()).await;
                    Ok(json!({ "k": args["k"] }))
                }
            },
        ))
        .unwrap();
    let mut rng = support::Rng(0x2545_f491_4f6c_dd1d);
    let mut below = |n: u64| rng.below(n as usize) as u64;
    enum Want {
        Answer(u64, u64),
        Timeout(u64),
        Aborted(u64, CancellationToken),
    }
    let start = r.ex.now();
    let mut calls = Vec::new();
    for k in 0..200u64 {
        let (want, options, name, ms) = match below(3) {
            0 => {
                let ms = 1 + below(60);
                (Want::Answer(k, ms), RequestOptions::default(), "sleep", ms)
            }
            1 => {
                let ms = 10 + below(60);
                // Never the same instant: which of the two comes first is then the test's.
                let timeout = if below(2) == 0 {
                    ms + 2 + below(20)
                } else {
                    ms - 2 - below(8)
                };
                let want = if timeout > ms {
                    Want::Answer(k, ms)
                } else {
                    Want::Timeout(timeout)
                };
                (want, with_timeout(timeout), "sleep", ms)
            }
            _ => {
                let token = CancellationToken::new();
                let at = 1 + below(80);
                let options = RequestOptions {
                    cancel: Some(token.clone()),
                    ..RequestOptions::default()
                };
                (Want::Aborted(at, token), options, "hang", 0)
            }
        };
        let call = r.spawn(
            r.client
                .call_tool(name, Some(json!({ "ms": ms, "k": k })), options),
        );
        calls.push((want, call, Rc::new(Cell::new(None::<Duration>))));
    }
    assert_eq!(r.client.pending_requests(), 200);
    // Millisecond by millisecond: the cancellations on their time, and when each call settled.
    for t in 1..=120 {
        r.idle(1);
        for (want, _, _) in &calls {
            if let Want::Aborted(at, token) = want {
                if *at == t {
                    token.cancel(format!("stopped at {at}"));
                }
            }
        }
        r.ex.run_until_stalled();
        for (_, call, settled) in &calls {
            if settled.get().is_none() && call.borrow().is_some() {
                settled.set(Some(r.ex.now() - start));
            }
        }
    }
    let (mut answered, mut timed_out, mut aborted) = (0, 0, 0);
    for (k, (want, call, settled)) in calls.iter().enumerate() {
        let outcome = call
            .borrow_mut()
            .take()
            .unwrap_or_else(|| panic!("#{k} never settled"));
        let at = settled.get().unwrap().as_millis() as u64;
        match (want, outcome) {
            (Want::Answer(key, ms), Ok(result)) => {
                assert_eq!(
                    result["structuredContent"]["k"],
                    json!(key),
                    "#{k}: {result}"
                );
                assert_eq!(at, *ms, "#{k} answered at {at} ms");
                answered += 1;
            }
            (Want::Timeout(timeout), Err(ClientError::RequestTimeout { timeout_ms, .. })) => {
                assert_eq!((at, timeout_ms), (*timeout, *timeout), "#{k}");
                timed_out += 1;
            }
            (Want::Aborted(when, _), Err(ClientError::Aborted { reason })) => {
                assert_eq!(reason, format!("stopped at {when}"), "#{k}");
                assert_eq!(at, *when, "#{k}");
                aborted += 1;
            }
            (_, other) => panic!("#{k}: {other:?}"),
        }
    }
    assert!(
        answered > 50 && timed_out > 20 && aborted > 50,
        "{answered} {timed_out} {aborted}"
    );
    assert_eq!(r.client.pending_requests(), 0);
    assert_eq!(
        r.seen.borrow().len(),
        aborted,
        "each hang saw its cancellation"
    );
    assert!(r.errors.borrow().is_empty(), "{:?}", r.errors.borrow());
    assert_eq!(r.client.phase(), Phase::Connected);
    // And the next request is served.
    let echoed = r
        .run(
            r.client
                .call_tool("echo", Some(json!({"a": 1})), RequestOptions::default()),
        )
        .unwrap();
    assert_eq!(echoed["structuredContent"]["echo"], json!({"a": 1}));
}

// ---- incoming traffic -------------------------------------------------------------------

#[test]
fn notifications_reach_their_handlers() {
    let r = rig(ClientOptions::default());
    r.connect();
    let got: Rc<RefCell<Vec<String>>> = Rc::default();
    let g = got.clone();
    let id = r.client.on_notification(
        "notifications/tools/list_changed",
        Rc::new(move |m, _p| g.borrow_mut().push(format!("exact {m}"))),
    );
    let g = got.clone();
    r.client.on_notification(
        "*",
        Rc::new(move |m, p| g.borrow_mut().push(format!("any {m} {}", p.is_some()))),
    );
    r.server
        .register_tool(ToolDef::new("late", "Late", |_a: Value, _c| async {
            Ok(json!(1))
        }))
        .unwrap();
    r.idle(5);
    assert_eq!(
        *got.borrow(),
        vec![
            "exact notifications/tools/list_changed".to_string(),
            "any notifications/tools/list_changed false".to_string()
        ]
    );
    r.client.remove_notification_handler(id);
    got.borrow_mut().clear();
    r.server.unregister_tool("late");
    // The server announces a change made this soon after the last one at the interval's end.
    r.idle(ServerConfig::default().list_changed_interval_ms + 20);
    assert_eq!(
        *got.borrow(),
        vec!["any notifications/tools/list_changed false".to_string()]
    );
}

#[test]
fn progress_goes_to_the_requests_callback() {
    let r = rig(ClientOptions::default());
    r.connect();
    let got: Rc<RefCell<Vec<Value>>> = Rc::default();
    let g = got.clone();
    let result = r
        .run(r.client.call_tool(
            "progress",
            None,
            RequestOptions {
                on_progress: Some(Rc::new(move |p| g.borrow_mut().push(p))),
                ..RequestOptions::default()
            },
        ))
        .unwrap();
    assert_eq!(result["content"][0]["text"], json!("finished"));
    let call = r.wire.sent_with_method("tools/call").pop().unwrap();
    assert_eq!(call["params"]["_meta"]["progressToken"], call["id"]);
    let got = got.borrow();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0]["progress"], json!(1.0));
    assert_eq!(got[1]["message"], json!("done"));
}

#[test]
fn server_requests_are_answered_by_handlers_and_ping_automatically() {
    let r = rig(ClientOptions::default());
    r.client.set_request_handler(
        "sampling/createMessage",
        Some(Rc::new(|req: IncomingRequest| {
            Box::pin(async move {
                assert_eq!(req.params.as_ref().unwrap()["maxTokens"], json!(5));
                Ok(json!({"role":"assistant","content":{"type":"text","text":"4"},"model":"m"}))
            })
        })),
    );
    r.connect();
    let init = &r.wire.sent_with_method("initialize")[0];
    assert_eq!(init["params"]["capabilities"], json!({"sampling": {}}));
    let result = r
        .run(r.client.call_tool("ask", None, RequestOptions::default()))
        .unwrap();
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"4\""),
        "{result}"
    );

    r.wire
        .inject(json!({"jsonrpc":"2.0","id":"p1","method":"ping"}));
    r.wire
        .inject(json!({"jsonrpc":"2.0","id":"u1","method":"elicitation/create","params":{}}));
    r.idle(2);
    let replies = r.wire.sent_replies();
    let ping = replies.iter().find(|m| m["id"] == json!("p1")).unwrap();
    assert_eq!(ping["result"], json!({}));
    let unknown = replies.iter().find(|m| m["id"] == json!("u1")).unwrap();
    assert_eq!(unknown["error"]["code"], json!(-32601));
    assert!(unknown["error"]["message"]
        .as_str()
        .unwrap()
        .contains("elicitation/create"));
}

#[test]
fn the_server_can_cancel_a_request_it_sent() {
    let r = rig(ClientOptions::default());
    let fired: Rc<RefCell<Option<String>>> = Rc::default();
    let f = fired.clone();
    r.client.set_request_handler(
        "roots/list",
        Some(Rc::new(move |req: IncomingRequest| {
            let f = f.clone();
            Box::pin(async move {
                let why = req.cancel.cancelled().await;
                *f.borrow_mut() = Some(why);
                Ok(json!({"roots": []}))
            })
        })),
    );
    r.connect();
    r.wire
        .inject(json!({"jsonrpc":"2.0","id":7,"method":"roots/list"}));
    r.idle(2);
    r.wire.inject(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}}));
    r.idle(2);
    assert_eq!(fired.borrow().as_deref(), Some("enough"));
    assert!(
        r.wire.sent_replies().iter().all(|m| m["id"] != json!(7)),
        "no reply after cancellation"
    );
}

#[test]
fn malformed_messages_are_reported_not_fatal() {
    let r = rig(ClientOptions::default());
    r.connect();
    r.wire.inject(json!({"hello": 1}));
    r.wire.inject(json!({"jsonrpc":"2.0","id":5,"method":7}));
    assert_eq!(r.errors.borrow().len(), 2);
    assert!(r.errors.borrow()[0].to_string().contains("invalid message"));
    let replies = r.wire.sent_replies();
    assert_eq!(replies.last().unwrap()["error"]["code"], json!(-32600));
    assert_eq!(r.client.phase(), Phase::Connected);
    r.run(r.client.ping(RequestOptions::default())).unwrap();
}

// ---- heartbeat --------------------------------------------------------------------------

#[test]
fn heartbeat_is_off_by_default() {
    let r = rig(ClientOptions::default());
    r.connect();
    r.idle(60);
    assert!(r.wire.sent_with_method("ping").is_empty());
}

#[test]
fn a_missed_heartbeat_counts_as_a_dead_connection() {
    let r = rig(ClientOptions {
        heartbeat_ms: Some(25),
        heartbeat_timeout_ms: Some(25),
        ..ClientOptions::default()
    });
    r.connect();
    r.idle_until("two pings", || r.wire.sent_with_method("ping").len() >= 2);
    // Still connected at the second ping: the first was answered within its timeout.
    assert_eq!(r.client.phase(), Phase::Connected);
    let call = r.spawn(r.client.call_tool("hang", None, RequestOptions::default()));
    r.wire.deaf.set(true);
    r.idle_until("the close", || r.client.phase() == Phase::Closed);
    let reason = r.closes.borrow()[0].clone().unwrap();
    assert!(reason.contains("heartbeat"), "{reason}");
    let e = call.borrow().clone().unwrap().unwrap_err();
    assert!(matches!(e, ClientError::TransportClosed { .. }), "{e:?}");
}

#[test]
fn a_missed_heartbeat_reconnects_when_reconnection_is_on() {
    let sched = Recorder::firing();
    let r = rig(ClientOptions {
        timeout_ms: 30,
        heartbeat_ms: Some(20),
        heartbeat_timeout_ms: Some(20),
        reconnect: Some(ReconnectOptions {
            initial_delay_ms: 5,
            ..ReconnectOptions::default()
        }),
        ..ClientOptions::default()
    });
    r.client.set_scheduler(sched.clone());
    r.connect();
    r.wire.deaf.set(true);
    // Stay deaf through the first attempt's initialize too, then recover.
    r.idle_until("the first attempt's initialize", || {
        r.wire.sent_with_method("initialize").len() == 2
    });
    r.wire.deaf.set(false);
    r.idle_until("the reconnection", || !r.reconnects.borrow().is_empty());
    assert_eq!(r.client.phase(), Phase::Connected);
    // The first attempt's initialize went unanswered (timed out); the second worked.
    assert_eq!(sched.calls.borrow().clone(), vec![(5, 0), (10, 1)]);
    assert_eq!(*r.reconnects.borrow(), vec![2]);
    assert!(
        r.errors.borrow()[0].to_string().contains("timed out"),
        "{:?}",
        r.errors.borrow()
    );
    r.run(r.client.call_tool("echo", None, RequestOptions::default()))
        .unwrap();
}

// ---- reconnection -----------------------------------------------------------------------

/// A scheduler that records `(delay, attemptCount)` and either runs `reconnect` on the
/// next turn (`firing`) or keeps it for the test (`holding`); counts cancel calls.
struct Recorder {
    calls: RefCell<Vec<(u64, u32)>>,
    held: RefCell<Vec<Box<dyn FnOnce()>>>,
    fire: bool,
    give_cancel: bool,
    cancels: Rc<Cell<u32>>,
    ex: RefCell<Option<LocalExecutor>>,
}

impl Recorder {
    fn new(fire: bool, give_cancel: bool) -> Rc<Recorder> {
        Rc::new(Recorder {
            calls: RefCell::new(Vec::new()),
            held: RefCell::new(Vec::new()),
            fire,
            give_cancel,
            cancels: Rc::new(Cell::new(0)),
            ex: RefCell::new(None),
        })
    }
    fn firing() -> Rc<Recorder> {
        Recorder::new(true, true)
    }
    fn holding(give_cancel: bool) -> Rc<Recorder> {
        Recorder::new(false, give_cancel)
    }
    fn delays(&self) -> Vec<u64> {
        self.calls.borrow().iter().map(|c| c.0).collect()
    }
    fn attempts(&self) -> Vec<u32> {
        self.calls.borrow().iter().map(|c| c.1).collect()
    }
}

impl ReconnectScheduler for Recorder {
    fn schedule(
        &self,
        reconnect: Box<dyn FnOnce()>,
        delay_ms: u64,
        attempt_count: u32,
    ) -> Result<Option<Box<dyn FnOnce()>>, String> {
        self.calls.borrow_mut().push((delay_ms, attempt_count));
        if self.fire {
            // Run at once, ignoring the delay: the schedule is what is under test.
            reconnect();
        } else {
            self.held.borrow_mut().push(reconnect);
        }
        let _ = &self.ex;
        if self.give_cancel {
            let n = self.cancels.clone();
            Ok(Some(Box::new(move || n.set(n.get() + 1))))
        } else {
            Ok(None)
        }
    }
}

fn reconnecting(initial: u64, max: u64, factor: f64, retries: u32) -> ClientOptions {
    ClientOptions {
        reconnect: Some(ReconnectOptions {
            initial_delay_ms: initial,
            max_delay_ms: max,
            factor,
            max_retries: retries,
            jitter: 0.0,
        }),
        ..ClientOptions::default()
    }
}

#[test]
fn reconnection_follows_the_backoff_schedule_and_reinitializes() {
    let r = rig(reconnecting(10, 50, 2.0, 5));
    let sched = Recorder::firing();
    r.client.set_scheduler(sched.clone());
    r.connect();
    let pending = r.spawn(r.client.call_tool("hang", None, RequestOptions::default()));
    r.wire.script(&[
        Start::Fail("down"),
        Start::Fail("down"),
        Start::Fail("down"),
        Start::Ok,
    ]);
    r.wire.drop_connection("peer navigated");
    r.idle(10);
    assert_eq!(sched.delays(), vec![10, 20, 40, 50]);
    assert_eq!(sched.attempts(), vec![0, 1, 2, 3]);
    assert_eq!(*r.reconnects.borrow(), vec![4]);
    assert_eq!(r.client.phase(), Phase::Connected);
    assert_eq!(r.wire.starts.get(), 5);
    assert_eq!(
        r.wire.sent_with_method("initialize").len(),
        2,
        "re-initialized"
    );
    assert_eq!(
        r.wire.sent_with_method("notifications/initialized").len(),
        2
    );
    let failed: Vec<_> = r.errors.borrow().iter().map(|e| e.to_string()).collect();
    assert_eq!(failed.len(), 3, "{failed:?}");
    assert!(
        failed[0].contains("reconnection attempt 1 failed"),
        "{failed:?}"
    );
    assert!(r.closes.borrow().is_empty(), "reconnecting is not closing");
    // The request in flight when the connection dropped failed; new ones work.
    let e = pending.borrow().clone().unwrap().unwrap_err();
    assert_eq!(e, ClientError::transport_closed("peer navigated"));
    let ok = r
        .run(r.client.call_tool(
            "echo",
            Some(json!({"again": true})),
            RequestOptions::default(),
        ))
        .unwrap();
    assert_eq!(ok["structuredContent"]["echo"]["again"], json!(true));
    // A later loss starts the schedule over.
    r.wire.drop_connection("again");
    r.idle(5);
    assert_eq!(sched.attempts(), vec![0, 1, 2, 3, 0]);
    assert_eq!(*r.reconnects.borrow(), vec![4, 1]);
}

#[test]
fn reconnection_gives_up_after_max_retries() {
    let r = rig(reconnecting(1, 100, 3.0, 3));
    let sched = Recorder::firing();
    r.client.set_scheduler(sched.clone());
    r.connect();
    r.wire.script(&[Start::Fail("gone"); 5]);
    r.wire.drop_connection("bye");
    r.idle(10);
    assert_eq!(sched.calls.borrow().clone(), vec![(1, 0), (3, 1), (9, 2)]);
    assert_eq!(r.client.phase(), Phase::Closed);
    let reason = r.closes.borrow()[0].clone().unwrap();
    assert!(reason.contains("after 3 attempt(s)"), "{reason}");
    assert!(reason.contains("gone"), "{reason}");
    assert_eq!(r.wire.starts.get(), 4);
}

#[test]
fn requests_made_while_reconnecting_wait_for_the_new_connection() {
    let r = rig(reconnecting(5, 50, 2.0, 3));
    let sched = Recorder::holding(true);
    r.client.set_scheduler(sched.clone());
    r.connect();
    r.wire.drop_connection("blip");
    r.idle(1);
    assert_eq!(r.client.phase(), Phase::Reconnecting);
    let queued = r.spawn(r.client.call_tool(
        "echo",
        Some(json!({"q": 1})),
        RequestOptions::default(),
    ));
    let timing_out = r.spawn(r.client.call_tool("echo", None, with_timeout(10)));
    r.idle(20);
    assert!(queued.borrow().is_none(), "held until reconnected");
    assert!(matches!(
        timing_out.borrow().clone(),
        Some(Err(ClientError::RequestTimeout { .. }))
    ));
    assert!(
        r.wire
            .sent_with_method("notifications/cancelled")
            .is_empty(),
        "a request never sent is not cancelled on the server"
    );
    let reconnect = sched.held.borrow_mut().pop().unwrap();
    reconnect();
    r.idle(5);
    assert_eq!(r.client.phase(), Phase::Connected);
    assert_eq!(
        queued.borrow().clone().unwrap().unwrap()["structuredContent"]["echo"]["q"],
        json!(1)
    );
    let methods = r.wire.sent_methods();
    let second_init = methods
        .iter()
        .rposition(|m| m == "notifications/initialized")
        .unwrap();
    let call = methods.iter().rposition(|m| m == "tools/call").unwrap();
    assert!(
        call > second_init,
        "queued requests go out after re-initializing: {methods:?}"
    );
}

#[test]
fn close_calls_the_schedulers_cancel_and_a_late_reconnect_does_nothing() {
    let r = rig(reconnecting(100, 1_000, 2.0, 5));
    let sched = Recorder::holding(true);
    r.client.set_scheduler(sched.clone());
    r.connect();
    r.wire.drop_connection("blip");
    r.idle(1);
    assert_eq!(sched.calls.borrow().clone(), vec![(100, 0)]);
    assert_eq!(sched.cancels.get(), 0);
    r.client.close();
    assert_eq!(
        sched.cancels.get(),
        1,
        "close() calls the scheduler's cancel function"
    );
    assert_eq!(r.client.phase(), Phase::Closed);
    assert_eq!(*r.closes.borrow(), vec![None]);
    let starts = r.wire.starts.get();
    let late = sched.held.borrow_mut().pop().unwrap();
    late();
    r.idle(5);
    assert_eq!(
        r.wire.starts.get(),
        starts,
        "a late reconnect() after close is a no-op"
    );
    assert_eq!(r.client.phase(), Phase::Closed);
}

#[test]
fn a_scheduler_returning_nothing_is_tolerated() {
    let r = rig(reconnecting(7, 1_000, 2.0, 5));
    let sched = Recorder::holding(false);
    r.client.set_scheduler(sched.clone());
    r.connect();
    // Fires later: reconnects as usual; a second call of the same reconnect does nothing.
    r.wire.drop_connection("blip");
    r.idle(1);
    let reconnect = sched.held.borrow_mut().pop().unwrap();
    reconnect();
    r.idle(5);
    assert_eq!(r.client.phase(), Phase::Connected);
    assert_eq!(*r.reconnects.borrow(), vec![1]);
    // Never fires: close() has no cancel function to call and still closes cleanly.
    r.wire.drop_connection("blip 2");
    r.idle(1);
    assert_eq!(sched.calls.borrow().clone(), vec![(7, 0), (7, 0)]);
    r.client.close();
    assert_eq!(r.client.phase(), Phase::Closed);
    assert_eq!(*r.closes.borrow(), vec![None]);
    let starts = r.wire.starts.get();
    sched.held.borrow_mut().pop().unwrap()();
    r.idle(2);
    assert_eq!(r.wire.starts.get(), starts);
}

struct Throwing;

impl ReconnectScheduler for Throwing {
    fn schedule(
        &self,
        _reconnect: Box<dyn FnOnce()>,
        _delay_ms: u64,
        _attempt_count: u32,
    ) -> Result<Option<Box<dyn FnOnce()>>, String> {
        Err("no timers here".into())
    }
}

#[test]
fn a_throwing_scheduler_reports_and_closes() {
    let r = rig(reconnecting(1, 10, 2.0, 5));
    r.client.set_scheduler(Rc::new(Throwing));
    r.connect();
    r.wire.drop_connection("blip");
    r.idle(1);
    assert_eq!(r.client.phase(), Phase::Closed);
    assert!(r.errors.borrow()[0].to_string().contains("no timers here"));
    assert_eq!(r.closes.borrow().len(), 1);
}

#[test]
fn the_default_scheduler_waits_on_the_runtime_timer_and_close_cancels_it() {
    let r = rig(reconnecting(40, 1_000, 2.0, 5));
    r.connect();
    let lost_at = r.ex.now();
    r.wire.drop_connection("blip");
    r.idle(1);
    assert_eq!(r.client.phase(), Phase::Reconnecting);
    assert_eq!(r.wire.starts.get(), 1);
    r.idle_until("the reconnection", || r.client.phase() == Phase::Connected);
    assert_eq!(
        r.ex.now() - lost_at,
        Duration::from_millis(40),
        "reconnected when the initial delay ran out"
    );
    assert_eq!(*r.reconnects.borrow(), vec![1]);

    r.wire.drop_connection("blip again");
    r.idle(5);
    r.client.close();
    r.idle(80);
    assert_eq!(
        r.wire.starts.get(),
        2,
        "the cancelled timer never reconnected"
    );
    assert_eq!(r.client.phase(), Phase::Closed);
}

#[test]
fn jitter_uses_the_random_source() {
    let r = rig(ClientOptions {
        reconnect: Some(ReconnectOptions {
            initial_delay_ms: 100,
            max_delay_ms: 1_000,
            factor: 2.0,
            max_retries: 2,
            jitter: 0.5,
        }),
        ..ClientOptions::default()
    });
    let sched = Recorder::holding(true);
    r.client.set_scheduler(sched.clone());
    r.client.set_random(Rc::new(|| 1.0));
    r.connect();
    r.wire.drop_connection("blip");
    r.idle(1);
    assert_eq!(sched.delays(), vec![50]);
}

// ---- the readiness handshake ------------------------------------------------------------

#[test]
fn handshake_rechecks_until_ready_and_times_out_clearly() {
    let ex = LocalExecutor::with_virtual_clock();
    let rt: Rc<dyn Runtime> = Rc::new(ex.clone());
    // Ready after a few checks.
    let checks = Rc::new(Cell::new(0));
    let ready = CancellationToken::new();
    let c = checks.clone();
    let r = ready.clone();
    let check: Rc<dyn Fn()> = Rc::new(move || {
        c.set(c.get() + 1);
        if c.get() == 3 {
            r.cancel("ready");
        }
    });
    let hs = Handshake {
        interval_ms: Some(10),
        timeout_ms: Some(1_000),
    };
    ex.block_on(hs.run(rt.clone(), check, ready, CancellationToken::new()))
        .unwrap();
    assert_eq!(checks.get(), 3);

    // Never ready: a timeout naming how long and how many checks.
    let checks = Rc::new(Cell::new(0));
    let c = checks.clone();
    let start = ex.now();
    let e = ex
        .block_on(
            Handshake {
                interval_ms: Some(10),
                timeout_ms: Some(55),
            }
            .run(
                rt.clone(),
                Rc::new(move || c.set(c.get() + 1)),
                CancellationToken::new(),
                CancellationToken::new(),
            ),
        )
        .unwrap_err();
    assert_eq!(ex.now() - start, Duration::from_millis(55));
    match e {
        HandshakeError::TimedOut {
            after_ms,
            checks: n,
        } => {
            assert_eq!(after_ms, 55);
            // At once, then each 10 ms after the last: at 0, 10, 20, 30, 40 and 50 ms (the
            // executor's clock is virtual: no timer runs late).
            assert_eq!(n, 6, "{n} checks");
            assert_eq!(n, checks.get());
        }
        other => panic!("{other:?}"),
    }

    // Aborted while waiting; a single check without an interval.
    let abort = CancellationToken::new();
    let a = abort.clone();
    let checks = Rc::new(Cell::new(0));
    let c = checks.clone();
    ex.spawn_local(async move { a.cancel("closed") });
    let e = ex
        .block_on(
            Handshake {
                interval_ms: None,
                timeout_ms: None,
            }
            .run(
                rt,
                Rc::new(move || c.set(c.get() + 1)),
                CancellationToken::new(),
                abort,
            ),
        )
        .unwrap_err();
    assert_eq!(
        e,
        HandshakeError::Aborted {
            reason: "closed".into()
        }
    );
    assert_eq!(checks.get(), 1);
}

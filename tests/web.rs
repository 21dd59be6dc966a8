//! wasm-bindgen tests for the Rust glue, run in headless Chromium (`make test-wasm`).
#![cfg(target_arch = "wasm32")]

use js_sys::{Function, Reflect};
use modelcontext_polyfill::browser::js_handler::JsTool;
use modelcontext_polyfill::browser::runtime::{BrowserRuntime, TaskQueue};
use modelcontext_polyfill::browser::store::registry_error_to_js;
use modelcontext_polyfill::browser::DomError;
use modelcontext_polyfill::js;
use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::{
    RegistryError, Runtime, Server, ServerConfig, ServerInfo, ToolDef,
};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn name_of(e: &JsValue) -> String {
    Reflect::get(e, &"name".into())
        .unwrap()
        .as_string()
        .unwrap()
}

#[wasm_bindgen_test]
fn names_are_made_once_per_text_and_survive_the_table_growing() {
    // 300 texts at 300 addresses: the table grows past its first 64 slots several times.
    let texts: Vec<&'static str> = (0..300)
        .map(|i| &*Box::leak(format!("name_{i}").into_boxed_str()))
        .collect();
    let first: Vec<JsValue> = texts.iter().map(|t| js::name(t)).collect();
    let o: JsValue = js::object().into();
    for (i, (t, v)) in texts.iter().zip(&first).enumerate() {
        assert_eq!(v.as_string().as_deref(), Some(*t));
        // Asked again (after the growth), each address still finds its own text.
        assert_eq!(js::name(t), *v);
        js::set(&o, t, &JsValue::from_f64(i as f64));
    }
    for (i, t) in texts.iter().enumerate() {
        assert_eq!(js::get(&o, t).unwrap().as_f64(), Some(i as f64));
    }
    // The same text at another address is its own entry with the same value.
    let copy: &'static str = Box::leak(String::from("name_7").into_boxed_str());
    assert_eq!(js::name(copy), first[7]);
}

#[wasm_bindgen_test]
fn dom_strings_convert_like_webidl() {
    assert_eq!(js::to_dom_string(&JsValue::from_f64(1.5)).unwrap(), "1.5");
    assert_eq!(js::to_dom_string(&JsValue::NULL).unwrap(), "null");
    let obj = js_sys::eval("({ toString() { return 'custom' } })").unwrap();
    assert_eq!(js::to_dom_string(&obj).unwrap(), "custom");
    let err = js::to_dom_string(&js_sys::Symbol::for_("s").into()).unwrap_err();
    assert_eq!(name_of(&err), "TypeError");
    let throwing = js_sys::eval("({ toString() { throw new RangeError('no') } })").unwrap();
    assert_eq!(
        name_of(&js::to_dom_string(&throwing).unwrap_err()),
        "RangeError"
    );
}

#[wasm_bindgen_test]
fn json_conversion_follows_json_stringify() {
    assert_eq!(js::stringify(&JsValue::UNDEFINED).unwrap(), None);
    let cyclic = js_sys::eval("(() => { const a = {}; a.self = a; return a })()").unwrap();
    assert!(js::stringify(&cyclic).is_err());
    let v = js_sys::eval("({ b: 1, a: [true, null, 'x'], f() {}, d: { toJSON() { return 7 } } })")
        .unwrap();
    // Key order is kept; functions are dropped; toJSON is honoured.
    assert_eq!(
        js::to_json(&v).unwrap(),
        Some(json!({"b": 1, "a": [true, null, "x"], "d": 7}))
    );
    let back = js::from_json(&json!({"k": [1, 2]}));
    assert_eq!(
        js::stringify(&back).unwrap().as_deref(),
        Some(r#"{"k":[1,2]}"#)
    );
}

#[wasm_bindgen_test]
fn fractional_numbers_are_written_as_the_js_engine_writes_them_and_read_back_the_same() {
    use modelcontext_polyfill::protocol::json_text::to_string;
    let numbers = [
        0.1,
        0.01,
        9999.99,
        -2.5e21,
        1.5e-7,
        1e21,
        5e-324,
        f64::MAX,
        123456.789,
    ];
    for n in numbers {
        let text = to_string(&json!(n));
        assert_eq!(
            text,
            String::from(js_sys::Number::from(n).to_string_with_radix(10).unwrap())
        );
        assert_eq!(serde_json::from_str::<f64>(&text).unwrap(), n, "{text}");
    }
    assert_eq!(
        to_string(&json!({"min": 0.5, "e": 1e21})),
        r#"{"min":0.5,"e":1e+21}"#
    );
    // Integers are serde_json's, as before.
    assert_eq!(
        to_string(&json!([1, -2, u64::MAX])),
        "[1,-2,18446744073709551615]"
    );
}

#[wasm_bindgen_test]
fn dom_errors_map_to_named_exceptions() {
    let cases = [
        (DomError::InvalidState("a".into()), "InvalidStateError"),
        (DomError::Security("b".into()), "SecurityError"),
        (DomError::Unknown("c".into()), "UnknownError"),
        (DomError::Abort("d".into()), "AbortError"),
        (DomError::Data("e".into()), "DataError"),
        (DomError::Timeout("f".into()), "TimeoutError"),
        (DomError::NotAllowed("g".into()), "NotAllowedError"),
    ];
    for (e, name) in cases {
        assert_eq!(e.name(), name);
        let message = e.message().to_string();
        let js_err = e.into_js();
        assert!(js_err.is_instance_of::<web_sys::DomException>(), "{name}");
        assert_eq!(name_of(&js_err), name);
        assert_eq!(js::error_message(&js_err), format!("{name}: {message}"));
    }
    let t = DomError::Type("bad input".into());
    assert_eq!(t.name(), "TypeError");
    let js_err: JsValue = t.into();
    assert!(js_err.is_instance_of::<js_sys::TypeError>());
    assert!(!js_err.is_instance_of::<web_sys::DomException>());
    assert_eq!(js::error_message(&js_err), "TypeError: bad input");
}

#[wasm_bindgen_test]
fn exceptions_have_the_right_names_and_messages() {
    let e = DomError::InvalidState("nope".into()).into_js();
    assert_eq!(name_of(&e), "InvalidStateError");
    assert!(e.is_instance_of::<web_sys::DomException>());
    assert_eq!(js::error_message(&js::type_error("bad")), "TypeError: bad");
    assert_eq!(js::error_message(&JsValue::from_str("plain")), "plain");
    let dup = RegistryError::Duplicate {
        kind: "tool",
        key: "x".into(),
    };
    assert_eq!(name_of(&registry_error_to_js(&dup)), "InvalidStateError");
    let schema = RegistryError::InvalidSchema {
        which: "inputSchema",
        message: "m".into(),
    };
    assert_eq!(name_of(&registry_error_to_js(&schema)), "TypeError");
}

async fn tick(ms: u64) {
    BrowserRuntime.sleep(ms).await;
}

/// Sleeps share one timer (src/browser/runtime.rs): each wakes at its own deadline, in
/// deadline order whatever the order they were made in; a shorter sleep made after a longer
/// one is not held back by it; a dropped sleep wakes nothing and leaves the others on time.
#[wasm_bindgen_test]
async fn sleeps_wake_in_deadline_order_and_dropped_ones_never() {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    let log = Rc::new(RefCell::new(Vec::<(u64, f64)>::new()));
    let start = js_sys::Date::now();
    let after = |ms: u64| {
        let l = log.clone();
        async move {
            BrowserRuntime.sleep(ms).await;
            l.borrow_mut().push((ms, js_sys::Date::now() - start));
        }
    };
    for ms in [120, 30, 60] {
        wasm_bindgen_futures::spawn_local(after(ms));
    }
    // Polled once (so it holds a waker), then dropped before its deadline.
    let mut dropped = BrowserRuntime.sleep(10);
    let mut cx = Context::from_waker(std::task::Waker::noop());
    assert!(matches!(
        Pin::new(&mut dropped).poll(&mut cx),
        Poll::Pending
    ));
    drop(dropped);
    tick(200).await;
    let log = log.borrow();
    assert_eq!(
        log.iter().map(|(ms, _)| *ms).collect::<Vec<_>>(),
        vec![30, 60, 120]
    );
    for (ms, at) in log.iter() {
        // Not before its deadline (Date.now() has millisecond steps), and not held to a
        // later sleep's.
        assert!(*at >= *ms as f64 - 1.0, "{ms} ms sleep woke after {at} ms");
        assert!(*at < *ms as f64 + 60.0, "{ms} ms sleep woke after {at} ms");
    }
}

#[wasm_bindgen_test]
async fn queued_tasks_run_in_order_after_microtasks() {
    let log = Rc::new(RefCell::new(Vec::<&str>::new()));
    let q = TaskQueue::new().unwrap();
    let l = log.clone();
    q.queue(move || l.borrow_mut().push("task 1"));
    let l = log.clone();
    q.queue(move || l.borrow_mut().push("task 2"));
    let l = log.clone();
    wasm_bindgen_futures::spawn_local(async move { l.borrow_mut().push("microtask") });
    log.borrow_mut().push("sync");
    tick(20).await;
    assert_eq!(*log.borrow(), vec!["sync", "microtask", "task 1", "task 2"]);
}

#[wasm_bindgen_test]
fn a_capture_listener_runs_before_the_target_and_is_removed_in_the_capture_phase() {
    // The parent records how it is asked to remove a listener.
    let parent = js_sys::eval(
        "(() => { const p = document.createElement('div'); p.appendChild(document.createElement('span'));
          p.removed = [];
          p.removeEventListener = function (t, f, c) {
            this.removed.push([t, c === true]);
            return EventTarget.prototype.removeEventListener.call(this, t, f, c);
          };
          return p })()",
    )
    .unwrap();
    let child = js::get(&parent, "firstChild").unwrap();
    let order = Rc::new(RefCell::new(Vec::<&str>::new()));
    let o = order.clone();
    let _target =
        js::Listener::dom(&child, "ping", move |_, _| o.borrow_mut().push("target")).unwrap();
    let o = order.clone();
    let capturing =
        js::Listener::dom_capture(&parent, "ping", move |_, _| o.borrow_mut().push("capture"))
            .unwrap();
    let ping = || {
        let ev: JsValue = web_sys::Event::new("ping").unwrap().into();
        js::call(&child, "dispatchEvent", &[&ev]).unwrap();
    };
    ping();
    assert_eq!(*order.borrow(), vec!["capture", "target"]);
    drop(capturing);
    let removed = js::stringify(&js::get(&parent, "removed").unwrap()).unwrap();
    assert_eq!(removed.as_deref(), Some(r#"[["ping",true]]"#));
    ping();
    assert_eq!(*order.borrow(), vec!["capture", "target", "target"]);
}

#[wasm_bindgen_test]
async fn an_observer_calls_back_until_it_is_dropped_then_is_disconnected() {
    // A MutationObserver that records its disconnection.
    let class: Function = js_sys::eval(
        "globalThis.disconnected = 0;
         (class extends MutationObserver {
           disconnect() { globalThis.disconnected++; super.disconnect(); }
         })",
    )
    .unwrap()
    .unchecked_into();
    let el = js_sys::eval("document.createElement('div')").unwrap();
    let calls = Rc::new(std::cell::Cell::new(0));
    let seen = Rc::new(RefCell::new(Vec::<String>::new()));
    let (c, s) = (calls.clone(), seen.clone());
    let observer = js::Observer::new(&class, move |records: JsValue| {
        c.set(c.get() + 1);
        for r in js::items(&records) {
            s.borrow_mut().extend(js::get_string(&r, "attributeName"));
        }
    })
    .unwrap();
    let init = js_sys::eval("({ attributes: true })").unwrap();
    observer.observe(&el, &init).unwrap();
    let touch = |v: &str| {
        js::call(&el, "setAttribute", &[&"data-x".into(), &v.into()]).unwrap();
    };
    touch("1");
    tick(0).await;
    assert_eq!(calls.get(), 1);
    // The batch's records reach the callback.
    assert_eq!(*seen.borrow(), ["data-x"]);
    touch("2");
    drop(observer);
    tick(0).await;
    assert_eq!(calls.get(), 1);
    let disconnected = js::get(&js::global(), "disconnected").unwrap();
    assert_eq!(disconnected.as_f64(), Some(1.0));
}

/// Page functions' options as the engine makes them: polyfill/src/call_options.js.
fn use_page_call_options() {
    let source = include_str!("../polyfill/src/call_options.js");
    let factory = js_sys::eval(&format!(
        "(() => {{ {source}\n return __mcpCallOptions; }})()"
    ))
    .unwrap();
    let config = js_sys::Object::new();
    Reflect::set(&config, &"callOptions".into(), &factory).unwrap();
    modelcontext_polyfill::browser::js_handler::use_call_options(&config).unwrap();
}

/// A server whose page functions get the options the engine makes.
fn page_server() -> Server {
    use_page_call_options();
    Server::new(
        ServerInfo::new("web-test", "0"),
        ServerConfig::default(),
        Rc::new(BrowserRuntime),
        Rc::new(JsonSchemaCompiler::new()),
    )
}

fn capture(
    server: &Server,
) -> (
    modelcontext_polyfill::server::Session,
    Rc<RefCell<Vec<Value>>>,
) {
    let out = Rc::new(RefCell::new(Vec::new()));
    let o = out.clone();
    let s = server.connect(move |t| o.borrow_mut().push(serde_json::from_str(&t).unwrap()));
    (s, out)
}

#[wasm_bindgen_test]
async fn a_page_function_serves_tools_call_with_validated_arguments() {
    let server = page_server();
    // An async page function that reads its input and the options object it is given.
    let f: Function = js_sys::eval(
        "(async (input, options) => { const { reportProgress, log } = options; return { greeting: 'hi ' + input.name, aborted: options.signal.aborted, keys: Object.keys(options), requestId: options.requestId, fns: [typeof reportProgress, typeof log, typeof options.sendRequest, typeof options.setStatus], progress: reportProgress(1, 2) } })",
    )
    .unwrap()
    .unchecked_into();
    server
        .register_tool(
            ToolDef::new("greet", "Greets", JsTool { name: "greet".into(), f })
                .input_schema(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})),
        )
        .unwrap();
    let (session, out) = capture(&server);
    session.receive(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#);
    session.receive(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}"#);
    session.receive(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":7}}}"#);
    tick(30).await;
    let out = out.borrow();
    let by_id = |id: i64| out.iter().find(|m| m["id"] == json!(id)).cloned().unwrap();
    assert_eq!(by_id(1)["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(
        by_id(2)["result"]["structuredContent"],
        json!({
            "greeting": "hi Ada",
            "aborted": false,
            // `signal` is the one enumerable member; the extras are reachable by name and
            // work destructured (no progress token was sent: nothing reported).
            "keys": ["signal"],
            "requestId": 2,
            "fns": ["function", "function", "function", "undefined"],
            "progress": false
        })
    );
    assert_eq!(by_id(3)["result"]["isError"], json!(true));
    let text = by_id(3)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("/name") && text.contains("type"), "{text}");
}

#[wasm_bindgen_test]
async fn a_throwing_page_function_becomes_an_error_result_and_cancel_aborts_its_signal() {
    let server = page_server();
    let boom: Function = js_sys::eval("(() => { throw new RangeError('boom') })")
        .unwrap()
        .unchecked_into();
    server
        .register_tool(ToolDef::new(
            "boom",
            "Throws",
            JsTool {
                name: "boom".into(),
                f: boom,
            },
        ))
        .unwrap();
    // Never settles on its own; records its signal's abort.
    let wait: Function = js_sys::eval(
        "((input, options) => new Promise(() => { options.signal.addEventListener('abort', () => { globalThis.__aborted = options.signal.reason.name }) }))",
    )
    .unwrap()
    .unchecked_into();
    server
        .register_tool(ToolDef::new(
            "wait",
            "Waits",
            JsTool {
                name: "wait".into(),
                f: wait,
            },
        ))
        .unwrap();
    let (session, out) = capture(&server);
    session.receive(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#);
    session.receive(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"boom"}}"#);
    session.receive(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait"}}"#);
    tick(10).await;
    session.receive(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"user"}}"#);
    tick(20).await;
    let out = out.borrow();
    let boom = out.iter().find(|m| m["id"] == json!(2)).unwrap();
    assert_eq!(boom["result"]["isError"], json!(true));
    assert_eq!(
        boom["result"]["content"][0]["text"],
        json!("RangeError: boom")
    );
    assert!(
        out.iter().all(|m| m["id"] != json!(3)),
        "a cancelled call gets no response"
    );
    let aborted = Reflect::get(&js_sys::global(), &"__aborted".into()).unwrap();
    assert_eq!(aborted.as_string().as_deref(), Some("AbortError"));
}

#[wasm_bindgen_test]
async fn a_signal_is_made_when_first_read_and_carries_an_earlier_cancel() {
    let server = page_server();
    // Each keeps its options in globalThis.__opts[name] and never settles; `freeze` freezes
    // them first, `read` reads the signal at once (twice, to compare).
    for (name, body) in [
        ("late", "o"),
        ("frozen_late", "Object.freeze(o)"),
        (
            "frozen_read",
            "(Object.freeze(o), globalThis.__same = o.signal === o.signal, o)",
        ),
    ] {
        let f: Function = js_sys::eval(&format!(
            "((input, o) => {{ (globalThis.__opts ??= {{}})['{name}'] = {body}; return new Promise(() => {{}}) }})"
        ))
        .unwrap()
        .unchecked_into();
        server
            .register_tool(ToolDef::new(
                name,
                "Waits",
                JsTool {
                    name: name.into(),
                    f,
                },
            ))
            .unwrap();
    }
    let (session, out) = capture(&server);
    session.receive(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#);
    for (id, name) in [(2, "late"), (3, "frozen_late"), (4, "frozen_read")] {
        session.receive(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}"}}}}"#
        ));
    }
    tick(10).await;
    // Before any cancel: an own enumerable member, not yet aborted, the same object on
    // every read, and a plain data property once read.
    let before = js_sys::eval(
        "(() => { const o = __opts.late; const keys = Object.keys(o); const a = o.signal; \
          const d = Object.getOwnPropertyDescriptor(o, 'signal'); \
          return JSON.stringify({ keys, aborted: a.aborted, same: a === o.signal, isSignal: a instanceof AbortSignal, data: 'value' in d && d.enumerable && d.writable, spread: { ...o }.signal === a, frozenSame: __same }) })()",
    )
    .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&before.as_string().unwrap()).unwrap(),
        json!({"keys": ["signal"], "aborted": false, "same": true, "isSignal": true, "data": true, "spread": true, "frozenSame": true})
    );
    for id in 2..=4 {
        session.receive(&format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"user"}}}}"#
        ));
    }
    tick(10).await;
    // After: every signal aborted with an AbortError, whether it was read before the cancel
    // (late, frozen_read) or is read only now (frozen_late), frozen options included.
    let after = js_sys::eval(
        "JSON.stringify(['late', 'frozen_late', 'frozen_read'].map((n) => { const s = __opts[n].signal; \
          return [n, s.aborted, s.reason && s.reason.name, s === __opts[n].signal] }))",
    )
    .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&after.as_string().unwrap()).unwrap(),
        json!([
            ["late", true, "AbortError", true],
            ["frozen_late", true, "AbortError", true],
            ["frozen_read", true, "AbortError", true]
        ])
    );
    // The server still answers.
    session.receive(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    tick(10).await;
    assert!(out
        .borrow()
        .iter()
        .any(|m| m["id"] == json!(5) && m["result"] == json!({})));
}

/// The tab transport's checks, made in Rust without the core's gates (the first server) and
/// by `polyfill/src/gates.js` with them (the second): only our channel's envelopes of the
/// wire's type going to the server are answered, and the answers are the wire's envelopes.
#[wasm_bindgen_test]
async fn the_tab_transport_answers_only_its_own_envelopes_with_and_without_the_gates() {
    use modelcontext_polyfill::transport::tab::{TabOptions, TabServer};
    js_sys::eval(
        "globalThis.__tabOut = []; window.addEventListener('message', (e) => { const d = e.data; \
         if (d && d.type === 'mcp' && d.direction === 'server-to-client' && /^gate-/.test(d.channel)) __tabOut.push([d.channel, d.payload]) })",
    )
    .unwrap();
    let origin = js_sys::eval("location.origin")
        .unwrap()
        .as_string()
        .unwrap();
    // The transport measures and serializes a message with the engine's messageText.
    let source = include_str!("../polyfill/src/message_text.js");
    let config = js_sys::eval(&format!(
        "(() => {{ {source}\n return {{ messageText: __mcpMessageText }}; }})()"
    ))
    .unwrap();
    modelcontext_polyfill::transport::guard::use_message_text(&config).unwrap();
    for (channel, gated) in [("gate-off", false), ("gate-on", true)] {
        if gated {
            let source = include_str!("../polyfill/src/gates.js");
            let config = js_sys::eval(&format!(
                "(() => {{ {source}\n return {{ messageGate: __mcpMessageGate, postEnvelope: __mcpPostEnvelope }}; }})()"
            ))
            .unwrap();
            js::use_message_gate(&config);
            modelcontext_polyfill::wire::mcpb::use_post_envelope(&config);
        }
        let mut options = TabOptions::from_js(&JsValue::UNDEFINED, &origin, "tab").unwrap();
        options.channel = channel.into();
        let tab = TabServer::start(page_server(), options).unwrap();
        let post = |channel: &str, kind: &str, direction: &str, payload: &str| {
            js_sys::eval(&format!(
                "window.postMessage({{ channel: '{channel}', type: '{kind}', direction: '{direction}', payload: {payload} }}, '*')"
            ))
            .unwrap();
        };
        let ping = |id: u32| format!("{{ jsonrpc: '2.0', id: {id}, method: 'ping' }}");
        post(channel, "mcp", "client-to-server", "{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } }");
        post("gate-elsewhere", "mcp", "client-to-server", &ping(2));
        post(channel, "other", "client-to-server", &ping(3));
        post(channel, "mcp", "sideways", &ping(4));
        post(channel, "mcp", "client-to-server", "undefined");
        post(channel, "mcp", "client-to-server", &ping(5));
        // The messages are handled in the order they were posted: once the last one (ping 5) is
        // answered, every earlier one has had its turn. (Polled, not a fixed wait: a loaded
        // machine may take longer than one.)
        let answered = || {
            let out = js_sys::eval(&format!(
                "JSON.stringify(__tabOut.filter(([c]) => c === '{channel}').map(([, p]) => typeof p === 'string' ? p : p.id))"
            ))
            .unwrap();
            serde_json::from_str::<Value>(&out.as_string().unwrap()).unwrap()
        };
        for _ in 0..250 {
            if answered().as_array().unwrap().contains(&json!(5)) {
                break;
            }
            tick(20).await;
        }
        assert_eq!(answered(), json!(["mcp-server-ready", 1, 5]), "{channel}");
        tab.stop();
    }
}

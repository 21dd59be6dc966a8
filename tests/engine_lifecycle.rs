//! The lifecycle: the handshake era (initialize → initialized, negotiation, refusals before
//! and after), the stateless era (per-request `_meta`, server/discover, decorated results,
//! its own error codes and missing methods), and one server answering both.
mod support;

use modelcontext_polyfill::server::{HandlerError, ServerConfig, ToolDef};
use serde_json::{json, Value};
use support::*;

const ALL_VERSIONS: [&str; 5] = [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

fn with_echo(h: &Harness) {
    h.server
        .register_tool(ToolDef::new(
            "echo",
            "Echoes",
            |args: Value, _ctx| async move { Ok::<_, HandlerError>(args) },
        ))
        .unwrap();
    h.run();
}

#[test]
fn initialize_answers_with_server_info_capabilities_and_instructions() {
    for v in HANDSHAKE_VERSIONS {
        let h = Harness::new();
        let r = h.initialize(v);
        let res = &r["result"];
        assert_eq!(res["protocolVersion"], json!(v));
        assert_eq!(res["instructions"], json!("Use the tools."));
        assert_eq!(res["serverInfo"]["name"], json!("test-server"));
        assert_eq!(res["serverInfo"]["version"], json!("1.2.3"));
        let titled = v >= "2025-06-18";
        assert_eq!(
            res["serverInfo"].get("title").is_some(),
            titled,
            "{v}: {res}"
        );
        let mut caps = json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true},
            "logging": {},
        });
        if v >= "2025-03-26" {
            caps["completions"] = json!({});
        }
        assert_eq!(res["capabilities"], caps, "{v}");
        assert_eq!(h.session.protocol_version().unwrap().as_str(), v);
        assert!(h.session.is_ready());
        assert_eq!(
            h.session.client_info(),
            Some(json!({"name":"t","version":"0"}))
        );
    }
}

#[test]
fn negotiation_falls_back_to_the_newest_handshake_version() {
    for requested in [
        "2099-01-01",
        "2026-07-28",
        "2024-10-07",
        "",
        "latest",
        "2025-11-25",
    ] {
        let h = Harness::new();
        let r = h.request(
            "initialize",
            json!({"protocolVersion": requested, "capabilities": {}, "clientInfo": {"name":"c","version":"1"}}),
        );
        assert_eq!(
            r["result"]["protocolVersion"],
            json!("2025-11-25"),
            "{requested:?}"
        );
        assert_eq!(h.session.protocol_version().unwrap().as_str(), "2025-11-25");
    }
}

#[test]
fn malformed_initialize_is_invalid_params_and_leaves_the_session_uninitialized() {
    let h = Harness::new();
    for (params, word) in [
        (json!({}), "protocolVersion"),
        (json!({"protocolVersion": 20241105}), "protocolVersion"),
        (
            json!({"protocolVersion": "2025-06-18", "capabilities": []}),
            "capabilities",
        ),
        (
            json!({"protocolVersion": "2025-06-18", "clientInfo": {"version": "1"}}),
            "clientInfo",
        ),
        (
            json!({"protocolVersion": "2025-06-18", "clientInfo": "me"}),
            "clientInfo",
        ),
    ] {
        let r = h.request("initialize", params.clone());
        assert_eq!(code(&r), -32602, "{params}");
        assert!(message(&r).contains(word), "{r}");
        assert_eq!(h.session.protocol_version(), None);
    }
    assert_eq!(
        h.initialize("2025-06-18")["result"]["protocolVersion"],
        json!("2025-06-18")
    );
}

#[test]
fn requests_before_initialize_are_refused_except_ping() {
    let h = Harness::new();
    with_echo(&h);
    for method in [
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "resources/subscribe",
        "prompts/list",
        "prompts/get",
        "logging/setLevel",
        "completion/complete",
        "foo/bar",
    ] {
        let r = h.request(method, json!({"name": "echo", "uri": "x://y"}));
        assert_eq!(code(&r), -32600, "{method}: {r}");
        let m = message(&r);
        assert!(m.contains("initialize") && m.contains(method), "{m}");
    }
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    // `initialized` before `initialize` means nothing.
    h.notify("notifications/initialized", json!({}));
    h.run();
    assert!(!h.session.is_ready());
    assert_eq!(h.session.protocol_version(), None);
}

#[test]
fn a_second_initialize_is_refused_and_changes_nothing() {
    for v in HANDSHAKE_VERSIONS {
        let h = Harness::new();
        h.initialize(v);
        let r = h.request(
            "initialize",
            json!({"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name":"c","version":"1"}}),
        );
        assert_eq!(code(&r), -32600);
        assert!(message(&r).contains("already initialized"), "{r}");
        assert_eq!(h.session.protocol_version().unwrap().as_str(), v);
    }
}

#[test]
fn server_discover_lists_every_version_and_is_decorated() {
    let h = Harness::new();
    let r = h.stateless("server/discover", json!({}));
    let res = &r["result"];
    assert_eq!(res["supportedVersions"], json!(ALL_VERSIONS));
    assert_eq!(res["resultType"], json!("complete"));
    assert_eq!(res["ttlMs"], json!(0));
    assert_eq!(res["cacheScope"], json!("private"));
    assert_eq!(res["instructions"], json!("Use the tools."));
    assert_eq!(res["capabilities"]["tools"], json!({"listChanged": true}));
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "test-server", "version": "1.2.3", "title": "Test Server"})
    );
    // Like every 2026-07-28 request, discovery names its version in `_meta`: without it,
    // or with `_meta` but no version, it is -32602 (the official suite's expectation).
    let r = h.request("server/discover", json!({}));
    assert_eq!(code(&r), -32602);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("protocolVersion"));
    let r = h.request(
        "server/discover",
        json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
    );
    assert_eq!(code(&r), -32602);
    // initialize and ping carrying a stateless version are methods 2026-07-28 lacks.
    assert_eq!(code(&h.stateless("initialize", json!({}))), -32601);
    assert_eq!(code(&h.stateless("ping", json!({}))), -32601);
    // Stateless requests do not initialize the session.
    assert_eq!(h.session.protocol_version(), None);
    assert_eq!(code(&h.request("tools/list", json!({}))), -32600);
}

#[test]
fn stateless_results_carry_result_type_cache_hints_and_server_info() {
    let config = ServerConfig {
        ttl_ms: 5000,
        cache_scope: "public",
        ..ServerConfig::default()
    };
    let h = Harness::with_config(config);
    with_echo(&h);
    for method in [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ] {
        let r = h.stateless(method, json!({}));
        assert_eq!(r["result"]["resultType"], json!("complete"), "{method}");
        assert_eq!(r["result"]["ttlMs"], json!(5000), "{method}");
        assert_eq!(r["result"]["cacheScope"], json!("public"), "{method}");
        assert_eq!(
            r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            json!("test-server")
        );
    }
    let r = h.stateless("tools/call", json!({"name": "echo", "arguments": {"x": 1}}));
    assert_eq!(r["result"]["resultType"], json!("complete"));
    assert_eq!(r["result"]["structuredContent"], json!({"x": 1}));
    assert!(
        r["result"].get("ttlMs").is_none(),
        "tools/call is not cacheable: {r}"
    );
    assert!(r["result"].get("cacheScope").is_none());
}

#[test]
fn stateless_meta_is_checked() {
    let h = Harness::new();
    with_echo(&h);
    let v = |meta: Value| h.request("tools/list", json!({ "_meta": meta }));

    let r = v(json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}));
    assert_eq!(code(&r), -32602);
    assert!(
        message(&r).contains("io.modelcontextprotocol/clientCapabilities"),
        "{r}"
    );
    let r = v(
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                     "io.modelcontextprotocol/clientCapabilities": "all"}),
    );
    assert_eq!(code(&r), -32602);

    for requested in ["2099-01-01", "2025-06-18", "2024-11-05", ""] {
        let r = v(json!({"io.modelcontextprotocol/protocolVersion": requested,
                         "io.modelcontextprotocol/clientCapabilities": {}}));
        assert_eq!(code(&r), -32022, "{requested:?}: {r}");
        assert_eq!(r["error"]["data"]["requested"], json!(requested));
        let supported = r["error"]["data"]["supported"].as_array().unwrap();
        assert!(supported.contains(&json!("2026-07-28")), "{r}");
        assert!(message(&r).contains(&format!("{requested:?}")), "{r}");
    }
    let r = v(json!({"io.modelcontextprotocol/protocolVersion": 20260728,
                     "io.modelcontextprotocol/clientCapabilities": {}}));
    assert_eq!(code(&r), -32602);
    // `_meta` that is not an object carries no version: the request is refused as uninitialized.
    let r = h.request("tools/list", json!({"_meta": 5}));
    assert_eq!(code(&r), -32600);
}

#[test]
fn the_stateless_era_has_no_ping_logging_or_subscribe() {
    let h = Harness::new();
    for (method, params) in [
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "x://y"})),
        ("resources/unsubscribe", json!({"uri": "x://y"})),
        ("initialized", json!({})),
    ] {
        let r = h.stateless(method, params);
        assert_eq!(code(&r), -32601, "{method}: {r}");
    }
}

#[test]
fn stateless_resource_not_found_is_invalid_params() {
    let h = Harness::new();
    let r = h.stateless("resources/read", json!({"uri": "app://missing"}));
    assert_eq!(code(&r), -32602);
    assert_eq!(r["error"]["data"], json!({"uri": "app://missing"}));
    let h = Harness::new();
    h.initialize("2025-11-25");
    let r = h.request("resources/read", json!({"uri": "app://missing"}));
    assert_eq!(code(&r), -32002);
    assert_eq!(r["error"]["data"], json!({"uri": "app://missing"}));
}

#[test]
fn initialize_with_the_stateless_version_negotiates_the_newest_handshake() {
    let h = Harness::new();
    let r = h.initialize("2026-07-28");
    assert_eq!(r["result"]["protocolVersion"], json!("2025-11-25"));
    assert!(
        r["result"].get("resultType").is_none(),
        "handshake results are undecorated: {r}"
    );
}

#[test]
fn one_server_answers_both_eras_at_once() {
    let a = Harness::new();
    with_echo(&a);
    let b = a.another_session();
    assert_eq!(a.server.session_count(), 2);
    assert_ne!(a.session.id(), b.session.id());
    a.initialize("2025-06-18");
    let la = a.request("tools/list", json!({}));
    let lb = b.stateless("tools/list", json!({}));
    assert_eq!(la["result"]["tools"], lb["result"]["tools"]);
    assert!(la["result"].get("resultType").is_none());
    assert_eq!(lb["result"]["resultType"], json!("complete"));
    let ca = a.request("tools/call", json!({"name":"echo","arguments":{"n":1}}));
    let cb = b.stateless("tools/call", json!({"name":"echo","arguments":{"n":2}}));
    assert_eq!(ca["result"]["structuredContent"], json!({"n": 1}));
    assert_eq!(cb["result"]["structuredContent"], json!({"n": 2}));
    assert_eq!(b.session.protocol_version(), None);
    // Each session keeps its own era.
    assert_eq!(code(&b.request("tools/list", json!({}))), -32600);
    assert_eq!(a.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_handshake_session_serves_requests_with_stateless_meta_in_its_own_version() {
    let h = Harness::new();
    with_echo(&h);
    h.initialize("2025-03-26");
    let r = h.stateless("tools/list", json!({}));
    assert!(r["result"].get("resultType").is_none(), "{r}");
    assert_eq!(r["result"]["tools"][0]["name"], json!("echo"));
}

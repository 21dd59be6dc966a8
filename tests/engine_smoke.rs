mod support;

use modelcontext_polyfill::server::{HandlerError, ToolDef};
use serde_json::{json, Value};
use support::*;

fn echo_tool() -> ToolDef {
    ToolDef::new("echo", "Echoes text", |args: Value, _ctx| async move {
        Ok::<_, HandlerError>(json!(args["text"]
            .as_str()
            .unwrap_or_default()
            .repeat(args["n"].as_u64().unwrap_or(1) as usize)))
    })
    .input_schema(json!({
        "type": "object",
        "properties": {"text": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["text"]
    }))
}

#[test]
fn every_handshake_version_lists_and_calls() {
    for v in HANDSHAKE_VERSIONS {
        let h = Harness::new();
        h.server.register_tool(echo_tool()).unwrap();
        let init = h.initialize(v);
        assert_eq!(init["result"]["protocolVersion"], json!(v));
        let list = h.request("tools/list", json!({}));
        assert_eq!(list["result"]["tools"][0]["name"], json!("echo"));
        let call = h.request(
            "tools/call",
            json!({"name":"echo","arguments":{"text":"ab","n":2}}),
        );
        assert_eq!(call["result"]["content"][0]["text"], json!("abab"), "{v}");
        let bad = h.request("tools/call", json!({"name":"echo","arguments":{"n":"x"}}));
        if v == "2025-11-25" {
            assert_eq!(bad["result"]["isError"], json!(true));
            let text = bad["result"]["content"][0]["text"].as_str().unwrap();
            assert!(text.contains("required") && text.contains("/n"), "{text}");
        } else {
            assert_eq!(code(&bad), -32602, "{v}");
        }
    }
}

#[test]
fn stateless_requests_are_decorated() {
    let h = Harness::new();
    h.server.register_tool(echo_tool()).unwrap();
    let list = h.stateless("tools/list", json!({}));
    assert_eq!(list["result"]["resultType"], json!("complete"));
    assert_eq!(list["result"]["ttlMs"], json!(0));
    let d = h.stateless("server/discover", json!({}));
    assert!(d["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&json!("2026-07-28")));
}

#[test]
#[should_panic(expected = "not a valid CallToolResult")]
fn the_schema_checker_rejects_invalid_messages() {
    McpSchemas::default().check("2025-11-25", "CallToolResult", &json!({"content": 3}));
}

//! The whole-list `tools/list` answer a session hands its sink as shared text
//! ([`Sent::Shared`]) says which tools show a schema equal to an earlier tool's
//! ([`Repeats`]), so that a browser wire can post each such schema as one object.
mod support;

use modelcontext_polyfill::server::{Repeats, Sent, Server, Session, SharedText, ToolDef};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::*;

/// What a list repeats, by names: each member with its (tool, earlier tool) pairs, sorted.
type Named = Vec<(String, Vec<(String, String)>)>;

fn tool(name: &str) -> ToolDef {
    ToolDef::new(name, "A tool", |a: Value, _c| async move {
        Ok::<_, modelcontext_polyfill::server::HandlerError>(a)
    })
}

/// A session of `h`'s server whose answers are kept as the sink got them.
fn sink(h: &Harness) -> (Session, Rc<RefCell<Vec<Sent>>>) {
    let out = Rc::new(RefCell::new(Vec::new()));
    let o = out.clone();
    let s = h
        .server
        .connect_with(h.server.config().limits.clone(), move |m: Sent| {
            o.borrow_mut().push(m)
        });
    (s, out)
}

/// [`sink`], initialized at `version`.
fn session(h: &Harness, version: &str) -> (Session, Rc<RefCell<Vec<Sent>>>) {
    let (s, out) = sink(h);
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":version,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    s.receive(&init.to_string());
    h.run();
    out.borrow_mut().clear();
    (s, out)
}

/// The shared result of one whole `tools/list`: its parsed text, what it repeats (as names:
/// member → (tool, earlier tool) pairs, sorted) and itself.
fn list(h: &Harness, s: &Session, out: &RefCell<Vec<Sent>>) -> (Value, Named, SharedText) {
    s.receive(r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
    h.run();
    // (A change of the tools also sent `notifications/tools/list_changed`.)
    let sent = std::mem::take(&mut *out.borrow_mut())
        .into_iter()
        .find(|m| !matches!(m, Sent::Text(t) if t.contains("list_changed")))
        .expect("an answer");
    let Sent::Shared { id, result } = sent else {
        panic!("a whole list is shared text")
    };
    assert_eq!(id.to_value(), json!(9));
    let parsed: Value = serde_json::from_str(result.text()).unwrap();
    let names: Vec<String> = parsed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let repeats = named(result.repeats(), &names);
    // Each pair's two tools show equal values, the earlier one first in the list.
    for (member, pairs) in result.repeats().members() {
        for &(item, earlier) in pairs {
            assert!(earlier < item);
            let t = &parsed["tools"];
            assert_eq!(t[item as usize][member], t[earlier as usize][member]);
            assert!(t[item as usize].get(member).is_some());
        }
    }
    (parsed, repeats, result)
}

fn named(repeats: &Repeats, names: &[String]) -> Named {
    assert_eq!(repeats.list(), "tools");
    repeats
        .members()
        .map(|(member, pairs)| {
            let mut pairs: Vec<(String, String)> = pairs
                .iter()
                .map(|&(i, e)| (names[i as usize].clone(), names[e as usize].clone()))
                .collect();
            pairs.sort();
            (member.to_string(), pairs)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn register(server: &Server, def: ToolDef) {
    server.register_tool(def).unwrap();
}

#[test]
fn tools_of_one_schema_repeat_the_first_of_them() {
    let h = Harness::new();
    let s1 = json!({ "type": "object", "properties": { "a": { "type": "number" } } });
    let s2 = json!({ "type": "object", "properties": { "b": { "type": "string" } } });
    // Equal schemas given as separate values (as a page's separate objects would be).
    register(&h.server, tool("b1").input_schema(s1.clone()));
    register(&h.server, tool("a2").input_schema(s2.clone()));
    register(&h.server, tool("c1").input_schema(s1.clone()));
    register(&h.server, tool("d1").input_schema(s1.clone()));
    register(&h.server, tool("e2").input_schema(s2.clone()));
    // Without a schema: each shows the same `{"type":"object","properties":{}}`.
    register(&h.server, tool("f0"));
    register(&h.server, tool("g0"));
    // One of its own.
    register(
        &h.server,
        tool("h3").input_schema(json!({ "type": "object", "required": ["x"] })),
    );
    let (s, out) = session(&h, "2025-11-25");
    let (parsed, repeats, first) = list(&h, &s, &out);
    assert_eq!(parsed["tools"].as_array().unwrap().len(), 8);
    assert_eq!(
        repeats,
        vec![(
            "inputSchema".to_string(),
            pairs(&[("c1", "b1"), ("d1", "b1"), ("e2", "a2"), ("g0", "f0")])
        )]
    );
    // The next whole list is the same shared result; a change of the tools makes another,
    // which repeats as the tools now do.
    assert!(Rc::ptr_eq(&list(&h, &s, &out).2, &first));
    assert!(h.server.unregister_tool("b1"));
    register(&h.server, tool("i1").input_schema(s1.clone()));
    let (_, repeats, after) = list(&h, &s, &out);
    assert!(!Rc::ptr_eq(&after, &first));
    assert_eq!(
        repeats,
        vec![(
            "inputSchema".to_string(),
            pairs(&[("d1", "c1"), ("e2", "a2"), ("g0", "f0"), ("i1", "c1")])
        )]
    );
}

#[test]
fn output_schemas_repeat_where_the_version_shows_them() {
    let h = Harness::new();
    let out_schema = json!({ "type": "object", "properties": { "r": { "type": "number" } } });
    let input = json!({ "type": "object" });
    register(
        &h.server,
        tool("a")
            .input_schema(input.clone())
            .output_schema(out_schema.clone()),
    );
    register(&h.server, tool("b").output_schema(out_schema.clone()));
    register(
        &h.server,
        tool("c").input_schema(json!({ "type": "object", "properties": {} })),
    );
    let (s, out) = session(&h, "2025-06-18");
    let (parsed, repeats, _) = list(&h, &s, &out);
    assert_eq!(
        parsed["tools"][1]["outputSchema"],
        parsed["tools"][0]["outputSchema"]
    );
    assert_eq!(
        repeats,
        vec![("outputSchema".to_string(), pairs(&[("b", "a")]))],
        "b and c show equal input schemas by their text's content, not by one registered text: \
         only what the registry shares is noted"
    );
    // Before 2025-06-18 no tool shows an output schema: nothing of it is noted.
    let (s, out) = session(&h, "2025-03-26");
    let (parsed, repeats, _) = list(&h, &s, &out);
    assert!(parsed["tools"][0].get("outputSchema").is_none());
    assert!(repeats.is_empty(), "{repeats:?}");
}

#[test]
fn a_list_that_repeats_nothing_notes_nothing_and_its_text_is_the_answer() {
    let h = Harness::new();
    register(
        &h.server,
        tool("a").input_schema(json!({ "type": "object", "required": ["a"] })),
    );
    register(
        &h.server,
        tool("b").input_schema(json!({ "type": "object", "required": ["b"] })),
    );
    let (s, out) = session(&h, "2025-11-25");
    s.receive(r#"{"jsonrpc":"2.0","id":"x","method":"tools/list"}"#);
    h.run();
    let sent = out.borrow_mut().pop().unwrap();
    let Sent::Shared { result, .. } = &sent else {
        panic!("a whole list is shared text")
    };
    assert!(result.repeats().is_empty());
    let text: Value = serde_json::from_str(&sent.into_text()).unwrap();
    assert_eq!(text["id"], json!("x"));
    assert_eq!(text["result"]["tools"].as_array().unwrap().len(), 2);
}

#[test]
fn a_stateless_whole_list_is_shared_text_carrying_what_every_2026_result_does() {
    let h = Harness::new();
    let s = json!({ "type": "object", "properties": { "a": { "type": "number" } } });
    register(&h.server, tool("a").input_schema(s.clone()));
    register(&h.server, tool("b").input_schema(s.clone()));
    // Through the harness: each answer checked against the 2026-07-28 schema.
    let list = h.stateless("tools/list", json!({}));
    let prompts = h.stateless("prompts/list", json!({}));
    let members: Vec<&String> = list["result"].as_object().unwrap().keys().collect();
    assert_eq!(
        members,
        ["tools", "resultType", "ttlMs", "cacheScope", "_meta"],
        "{list}"
    );
    for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert_eq!(list["result"][key], prompts["result"][key], "{key}");
    }
    assert_eq!(
        list["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("test-server")
    );
    // A new identity shows in the next whole list.
    h.server
        .set_info(modelcontext_polyfill::server::ServerInfo::new(
            "renamed", "2.0.0",
        ));
    let again = h.stateless("tools/list", json!({}));
    assert_eq!(
        again["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("renamed")
    );
    assert_eq!(again["result"]["tools"], list["result"]["tools"]);
    // As a sink gets it: the shared text, which notes the repeated schema.
    let (session, out) = sink(&h);
    let request = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{
        "_meta": Harness::stateless_meta(json!({}))}});
    session.receive(&request.to_string());
    h.run();
    let sent = out.borrow_mut().pop().expect("an answer");
    let Sent::Shared { result, .. } = &sent else {
        panic!("a stateless whole list is shared text too")
    };
    assert_eq!(
        named(result.repeats(), &["a".into(), "b".into()]),
        vec![("inputSchema".to_string(), pairs(&[("b", "a")]))]
    );
    let text: Value = serde_json::from_str(&sent.into_text()).unwrap();
    assert_eq!(text["result"], again["result"]);
}

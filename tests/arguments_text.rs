//! A `tools/call`'s arguments kept as the agent's JSON text: a handler that takes text (a
//! page's function, in the browser) gets them as they came, checked from the text, never made
//! a tree of values; what the text cannot show is answered as the value's reading answered it.
mod support;

use modelcontext_polyfill::server::held::{self, ARGUMENT_MARKER_START};
use modelcontext_polyfill::server::{
    HandlerError, HeldArguments, HeldText, Limits, ServerConfig, TaskSupport, ToolDef,
};
use serde_json::{json, Value};
use std::rc::Rc;
use support::*;

/// The plain schema the core checks from text, and one with a pattern the core's checker does
/// not take (a lookahead: the `jsonschema` crate's), which reads the text into a value.
const PLAIN: &str = r#"{"type":"object","properties":{"xs":{"type":"array","items":{"type":"integer"}},"s":{"type":"string"}},"required":["xs"]}"#;
const CRATE: &str = r#"{"type":"object","properties":{"xs":{"type":"array"},"s":{"type":"string","pattern":"^(?=a)"}},"required":["xs"]}"#;

fn harness(version: &str) -> (Harness, Recorder) {
    harness_with(version, Harness::new(), &[])
}

/// [`harness`]'s tools in `h`, and `more` (name and schema) with the same two handlers.
fn harness_with(version: &str, h: Harness, more: &[(&str, &str)]) -> (Harness, Recorder) {
    let rec = Recorder::default();
    let more = more.iter().map(|&(name, schema)| (name, Some(schema)));
    for (name, schema) in [
        ("plain", Some(PLAIN)),
        ("crate", Some(CRATE)),
        ("open", None),
    ]
    .into_iter()
    .chain(more)
    {
        let mut def = ToolDef::new(name, "Records its arguments", rec.clone());
        if let Some(s) = schema {
            def = def.input_schema(serde_json::from_str::<Value>(s).unwrap());
        }
        h.server.register_tool(def).unwrap();
        // The same schema, a handler that takes a value: the reading the text path must match.
        let mut def = ToolDef::new(
            format!("{name}_value"),
            "Echoes",
            |a: Value, _c| async move { Ok::<_, HandlerError>(a) },
        );
        if let Some(s) = schema {
            def = def.input_schema(serde_json::from_str::<Value>(s).unwrap());
        }
        h.server.register_tool(def).unwrap();
    }
    h.initialize(version);
    h.take();
    (h, rec)
}

fn call_text(h: &Harness, id: u32, name: &str, arguments: &str) -> Value {
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
    );
    let out = h.exchange_text(&text);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], json!(id), "{out:?}");
    out.into_iter().next().unwrap()
}

/// `args` (an object's text) with a member of 16 KiB more (`"pad": [0,0,…]`) in front: long
/// enough to be checked as text.
fn long(args: &str) -> String {
    let pad = vec!["0"; 8200].join(",");
    match args.strip_prefix('{') {
        Some(rest) if rest.trim_start().starts_with('}') => format!(r#"{{"pad":[{pad}]}}"#),
        Some(rest) => format!(r#"{{"pad":[{pad}],{rest}"#),
        // Not an object: an array as long.
        None => format!("[{pad},{args}]"),
    }
}

#[test]
fn valid_arguments_reach_the_handler_as_text() {
    let (h, rec) = harness("2025-11-25");
    // Long: spaces, member order, number forms and escapes as the agent wrote them.
    let short = r#"{ "s" : "a\u00e9\n", "xs": [1, 2.0, -0, 1e2] }"#;
    let args = long(short);
    assert!(args.len() > 16 * 1024);
    for tool in ["plain", "crate", "open"] {
        let out = call_text(&h, 1, tool, &args);
        assert_eq!(first_text(&out), args, "{tool}: {out}");
        assert_eq!(rec.take(), [Got::Text(args.clone())], "{tool}");
    }
    // Short: read into a value to be checked, then written as text for the handler.
    let written = serde_json::to_string(&serde_json::from_str::<Value>(short).unwrap()).unwrap();
    assert_ne!(written, short);
    for tool in ["plain", "crate", "open"] {
        let out = call_text(&h, 1, tool, short);
        assert_eq!(first_text(&out), written, "{tool}: {out}");
        assert_eq!(rec.take(), [Got::Text(written.clone())], "{tool}");
    }
    // `null` is `{}`, as absent arguments are.
    let out = call_text(&h, 2, "open", "null");
    assert_eq!(first_text(&out), "{}", "{out}");
    assert_eq!(rec.take(), [Got::Text("{}".into())]);
    let out = h.request("tools/call", json!({"name": "open"}));
    assert_eq!(first_text(&out), "{}", "{out}");
    assert_eq!(rec.take(), [Got::Text("{}".into())]);
}

#[test]
fn refused_arguments_are_answered_as_the_values_reading_answers_them_and_the_next_call_runs() {
    for version in ["2025-06-18", "2025-11-25"] {
        let (h, rec) = harness(version);
        let cases = [
            // Against the schema (the plain checker's and the crate's).
            ("plain", r#"{"xs": [1, "two", 3.5]}"#),
            ("plain", r#"{"s": "no xs"}"#),
            ("crate", r#"{"xs": [], "s": "b"}"#),
            // Not an object.
            ("open", "[1, 2]"),
            ("plain", r#""text""#),
            ("open", "7"),
        ];
        let cases = cases
            .into_iter()
            .flat_map(|(tool, args)| [(tool, args.to_string()), (tool, long(args))]);
        for (i, (tool, args)) in cases.enumerate() {
            let id = 10 + i as u32;
            let mut got = call_text(&h, id, tool, &args);
            let mut want = call_text(&h, id, &format!("{tool}_value"), &args);
            for v in [&mut got, &mut want] {
                if let Some(text) = v.pointer_mut("/error/message") {
                    *text = json!(text.as_str().unwrap().replace("_value", ""));
                }
                if let Some(text) = v.pointer_mut("/result/content/0/text") {
                    *text = json!(text.as_str().unwrap().replace("_value", ""));
                }
            }
            assert_eq!(
                got,
                want,
                "{version} {tool} {}",
                &args[args.len().saturating_sub(60)..]
            );
            let refused = got.get("error").is_some() || got["result"]["isError"] == json!(true);
            assert!(refused, "{version} {tool}: {got}");
        }
        assert_eq!(rec.take(), [], "no refused call ran");
        let out = call_text(&h, 99, "plain", r#"{"xs":[1]}"#);
        assert_eq!(first_text(&out), r#"{"xs":[1]}"#);
    }
}

#[test]
fn text_serde_json_cannot_hold_is_a_parse_error_with_the_id_and_the_next_call_runs() {
    let (h, rec) = harness("2025-11-25");
    // JSON.stringify('a\ud800b') in a browser, and a number past f64's range: valid JSON
    // text whose value `serde_json` refuses, as it refused the whole message before.
    let texts = [r#"{"xs": [], "s": "a\ud800b"}"#, r#"{"xs": [1e400]}"#];
    for (i, args) in texts
        .into_iter()
        .flat_map(|a| [a.to_string(), long(a)])
        .enumerate()
    {
        for tool in ["plain", "crate", "open"] {
            let out = call_text(&h, i as u32, tool, &args);
            assert_eq!(code(&out), -32700, "{tool} {args}: {out}");
            assert!(message(&out).starts_with("Parse error"), "{out}");
        }
    }
    assert_eq!(rec.take(), []);
    let out = call_text(&h, 9, "open", r#"{"s":"a\ufffdb"}"#);
    let got: Value = serde_json::from_str(&first_text(&out)).unwrap();
    assert_eq!(got, json!({"s": "a\u{fffd}b"}));
}

/// A schema whose `xs` the text walk reads whole (an `anyOf`), so the place of a refusal in
/// it is `xs` itself.
const WHOLE: &str = r#"{"type":"object","properties":{"xs":{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"null"}]},"s":{"type":"string"}}}"#;

/// [`harness_with`] `more`, on a server that reads at most 1,000 values of a message (and of
/// refused arguments, for their report), compiling schemas as a page's engine does.
fn few_values(version: &str, more: &[(&str, &str)]) -> (Harness, Recorder) {
    let config = ServerConfig {
        limits: Limits {
            max_values: 1_000,
            ..Limits::default()
        },
        ..ServerConfig::default()
    };
    harness_with(version, Harness::with(config, Rc::new(PlainOrCrate)), more)
}

/// Refused arguments are read into a value for their report, at most `max_values` of them:
/// past that (an agent's millions of `[]`, a tree of hundreds of megabytes that wasm memory
/// keeps) the report is made from the text. A plain schema's names the value whose check
/// fails first; text that is not an object or not readable is answered as before; the next
/// call runs.
#[test]
fn refused_arguments_past_the_value_limit_are_reported_from_the_text_and_the_next_call_runs() {
    let (h, rec) = few_values("2025-11-25", &[("whole", WHOLE)]);
    let zeros = |n: usize| vec!["0"; n].join(",");
    let fits = zeros(900);
    let many = zeros(8_200);
    let past = "the schema refuses this value or one inside it; the instance holds more than \
                1000 JSON values, more than are read to report each violation [keyword: $values]";
    // Where the reading ran out before a check was made: not said to be refused.
    let unread = "the instance holds more than 1000 JSON values, more than are read to check \
                  this value against the schema [keyword: $values]";
    let cases: [(&str, String, Option<String>); 8] = [
        // Within the limit: the report the value's reading gives.
        (
            "plain",
            format!(r#"{{"xs": [{fits}, "x"], "s": 1}}"#),
            Some(
                r#"/xs/900: "x" is not of type "integer" [keyword: type]; /s: 1 is not of type "string" [keyword: type]"#
                    .to_string(),
            ),
        ),
        // Past it: where the check fails first, in the text's order.
        (
            "plain",
            format!(r#"{{"xs": [{many}, "x"], "s": 1}}"#),
            Some(format!("/xs/8200: {past}")),
        ),
        (
            "plain",
            format!(r#"{{"pad": [{many}], "s": "no xs"}}"#),
            Some(format!("(root): {past}")),
        ),
        (
            "plain",
            format!(r#"{{"pad": {{"a~/b": [[{many}]]}}, "s": ["x"], "xs": []}}"#),
            Some(format!("/s: {past}")),
        ),
        // A container read whole: the place is the container, refused inside or too large to read.
        (
            "whole",
            format!(r#"{{"pad": [{many}], "xs": [1, "x"]}}"#),
            Some(format!("/xs: {past}")),
        ),
        (
            "whole",
            format!(r#"{{"xs": [{many}, "x"]}}"#),
            Some(format!("/xs: {unread}")),
        ),
        // A schema the crate checks: not checked past the limit (in a page, the validator
        // module would read it whole; natively, the crate reads a value).
        (
            "crate",
            format!(r#"{{"xs": [{many}], "s": "b"}}"#),
            Some(format!("(root): {unread}")),
        ),
        // Accepted past the limit: runs.
        ("whole", format!(r#"{{"xs": [{many}], "s": "a"}}"#), None),
    ];
    for (i, (tool, args, want)) in cases.into_iter().enumerate() {
        let out = call_text(&h, i as u32, tool, &args);
        match &want {
            Some(want) => {
                assert_eq!(out["result"]["isError"], json!(true), "{i} {tool}: {out}");
                assert_eq!(
                    first_text(&out),
                    format!("Invalid arguments for tool {tool}: {want}"),
                    "{i} {tool}"
                );
                assert_eq!(rec.take(), [], "{i} {tool}: nothing ran");
            }
            None => assert_eq!(rec.take(), [Got::Text(args.clone())], "{i} {tool}: {out}"),
        }
        // A handler that takes a value: refused alike, without the tree; accepted, read whole.
        let name = format!("{tool}_value");
        let out = call_text(&h, i as u32, &name, &args);
        match want {
            Some(want) => assert_eq!(
                first_text(&out),
                format!("Invalid arguments for tool {name}: {want}"),
                "{i} {name}"
            ),
            None => assert_eq!(
                out["result"]["structuredContent"],
                serde_json::from_str::<Value>(&args).unwrap(),
                "{i} {name}"
            ),
        }
    }
    // Not an object, and not readable, past the limit: answered as before (the value's reading
    // answered it so, before the limit: `refused_arguments_are_answered_as_…`).
    for (tool, args) in [
        ("plain", format!("[{many}]")),
        ("open", format!(r#"{{"xs": [{many}], "s": "a\ud800b"}}"#)),
        ("plain", format!(r#"{{"xs": [{many}, 1e400]}}"#)),
    ] {
        let got = call_text(&h, 50, tool, &args);
        let mut want = call_text(&h, 50, &format!("{tool}_value"), &args);
        if let Some(text) = want.pointer_mut("/error/message") {
            *text = json!(text.as_str().unwrap().replace("_value", ""));
        }
        assert!(got.get("error").is_some(), "{tool}: {got}");
        assert_eq!(got, want, "{tool}");
        assert_eq!(rec.take(), [], "{tool}");
    }
    let out = call_text(&h, 99, "plain", r#"{"xs":[1]}"#);
    assert_eq!(first_text(&out), r#"{"xs":[1]}"#);
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
}

/// A part `uniqueItems` needs whole is read into a value of at most 10,000 values by the
/// check from the text; past them, the arguments are read as any the check does not take.
/// Arguments past `max_values` whose part fits in it are checked from the text with the part
/// read on that budget, and accepted when valid (they were refused, the report claiming the
/// schema refused them); a part past it is refused there, unchecked; the next call runs.
#[test]
fn a_part_needed_whole_past_its_bound_is_read_on_the_value_limit() {
    let config = ServerConfig {
        limits: Limits {
            max_values: 12_000,
            ..Limits::default()
        },
        ..ServerConfig::default()
    };
    let unique = r#"{"type":"object","properties":{"xs":{"type":"array","uniqueItems":true}}}"#;
    let h = Harness::with(config, Rc::new(PlainOrCrate));
    let (h, rec) = harness_with("2025-11-25", h, &[("unique", unique)]);
    let numbers = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let pad = vec!["[]"; 2_000].join(",");
    let past = "the schema refuses this value or one inside it; the instance holds more than \
                12000 JSON values, more than are read to report each violation [keyword: $values]";
    let unread = "the instance holds more than 12000 JSON values, more than are read to check \
                  this value against the schema [keyword: $values]";
    let xs = numbers(10_500);
    let valid = format!(r#"{{"xs": [{xs}], "pad": [{pad}]}}"#);
    let twice = format!(r#"{{"xs": [{xs}, 7], "pad": [{pad}]}}"#);
    let within = format!(r#"{{"xs": [{xs}, 7]}}"#);
    let large = format!(r#"{{"xs": [{}]}}"#, numbers(12_500));
    for name in ["unique", "unique_value"] {
        let out = call_text(&h, 1, name, &valid);
        assert!(out["result"]["content"].is_array(), "{name}: {out}");
        assert_eq!(out["result"].get("isError"), None, "{name}");
        let out = call_text(&h, 2, name, &twice);
        assert_eq!(
            first_text(&out),
            format!("Invalid arguments for tool {name}: /xs: {past}")
        );
        let out = call_text(&h, 3, name, &within);
        assert!(
            first_text(&out).ends_with("has non-unique elements [keyword: uniqueItems]"),
            "{name}: {out}"
        );
        let out = call_text(&h, 4, name, &large);
        assert_eq!(out["result"]["isError"], json!(true), "{name}: {out}");
        assert_eq!(
            first_text(&out),
            format!("Invalid arguments for tool {name}: /xs: {unread}")
        );
    }
    assert_eq!(rec.take(), [Got::Text(valid)]);
    let out = call_text(&h, 5, "unique", r#"{"xs":[1]}"#);
    assert_eq!(first_text(&out), r#"{"xs":[1]}"#);
}

/// Before 2025-11-25, the same refusal is a -32602 error with the violation in its data.
#[test]
fn a_refusal_past_the_value_limit_is_an_invalid_params_error_before_2025_11_25() {
    let (h, rec) = few_values("2025-06-18", &[]);
    let many = vec!["0"; 8_200].join(",");
    let out = call_text(&h, 1, "plain", &format!(r#"{{"xs": [{many}, true]}}"#));
    assert_eq!(code(&out), -32602, "{out}");
    assert_eq!(
        out["error"]["data"]["violations"],
        json!([{
            "instancePath": "/xs/8200",
            "keyword": "$values",
            "message": "the schema refuses this value or one inside it; the instance holds \
                        more than 1000 JSON values, more than are read to report each violation"
        }])
    );
    assert_eq!(rec.take(), []);
    let out = call_text(&h, 2, "plain", r#"{"xs":[1]}"#);
    assert_eq!(first_text(&out), r#"{"xs":[1]}"#);
}

#[test]
fn a_task_capable_call_gives_the_handler_a_value_and_a_batchs_gets_text() {
    // A call that may become a task keeps its arguments as a value until it runs.
    let h = Harness::new();
    let rec = Recorder::default();
    h.server
        .register_tool(
            ToolDef::new("t", "Records", rec.clone()).task_support(TaskSupport::Optional),
        )
        .unwrap();
    let out = h.stateless("tools/call", json!({"name": "t", "arguments": {"a": 1}}));
    assert_eq!(first_text(&out), "value", "{out}");
    assert_eq!(rec.take(), [Got::Value(json!({"a": 1}))]);
    // A batch's call (2025-03-26) is read as a single one is: its arguments apart, as text;
    // short ones are read into a value to be checked, and written as text for a handler that
    // takes text (the call keeps no tree of values).
    let (h, rec) = harness("2025-03-26");
    let out = h.exchange_text(
        r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open","arguments":{"a": 1}}}]"#,
    );
    assert_eq!(
        out[0][0]["result"]["content"][0]["text"],
        json!(r#"{"a":1}"#),
        "{out:?}"
    );
    assert_eq!(rec.take(), [Got::Text(r#"{"a":1}"#.into())]);
    // Long ones reach the handler as the agent wrote them.
    let long = format!(r#"{{"a": 1, "pad": "{}"}}"#, "x".repeat(20_000));
    let out = h.exchange_text(&format!(
        r#"[{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"open","arguments":{long}}}}}]"#
    ));
    assert_eq!(out[0][0]["result"]["content"][0]["text"], json!(long));
    assert_eq!(rec.take(), [Got::Text(long)]);
}

/// A string a transport held out of a message (the browser's: a page's JS string).
struct Long(String);

impl HeldText for Long {
    fn text(&self) -> String {
        self.0.clone()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[test]
fn held_strings_go_back_where_their_markers_were_for_a_handler_that_takes_text() {
    let (h, rec) = harness("2025-11-25");
    let marker = format!("{ARGUMENT_MARKER_START}7 0");
    let call = |tool: &str| {
        held::hold_received(Rc::new(HeldArguments::new(vec![(
            marker.clone(),
            Box::new(Long("the document".into())),
        )])));
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{{"xs":[1,{{"doc":"{marker}"}}],"s":"a"}}}}}}"#
        );
        let out = h.exchange_text(&text);
        held::let_go();
        out
    };
    // "open": no schema. The handler's text has `null` in the marker's place, and the text
    // goes back there (the default `call_text_holding`: a value with the texts read in).
    let out = call("open");
    assert_eq!(first_text(&out[0]), "value", "{out:?}");
    assert_eq!(
        rec.take(),
        [Got::Value(
            json!({"xs": [1, {"doc": "the document"}], "s": "a"})
        )]
    );
    // "plain" reads no string's text: checked with the marker in place, answered alike. Its
    // `items` refuse the object, and the violation quotes the text, not the marker.
    let out = call("plain");
    let text = first_text(&out[0]);
    assert!(
        text.contains("the document") && !text.contains(&marker),
        "{text}"
    );
    assert_eq!(rec.take(), []);
    // The next call is served.
    let out = call_text(&h, 5, "open", r#"{"n":1}"#);
    assert_eq!(first_text(&out), r#"{"n":1}"#);
}

/// Arguments with long strings a transport held out of them (a marker in each one's place),
/// past the value limit: their text with the strings written back is what is checked and what
/// a handler that takes text gets; refused, they are reported from that text, as arguments
/// that came whole are; the next call runs.
#[test]
fn held_strings_past_the_value_limit_are_checked_in_the_text_and_the_next_call_runs() {
    // A plain schema that reads the held string's text (its length: the marker is shorter).
    let short = r#"{"type":"object","properties":{"xs":{"type":"array"},"s":{"type":"string","maxLength":12}}}"#;
    let (h, rec) = few_values("2025-11-25", &[("short", short)]);
    let marker = format!("{ARGUMENT_MARKER_START}9 0");
    let call = |tool: &str, args: &str, doc: &str| {
        held::hold_received(Rc::new(HeldArguments::new(vec![(
            marker.clone(),
            Box::new(Long(doc.into())),
        )])));
        let out = call_text(&h, 1, tool, &args.replace("MARK", &marker));
        held::let_go();
        out
    };
    let many = vec!["0"; 8_200].join(",");
    let past = "the schema refuses this value or one inside it; the instance holds more than \
                1000 JSON values, more than are read to report each violation [keyword: $values]";
    let fine = format!(r#"{{"xs": [{many}], "s": "MARK"}}"#);
    let whole = format!(r#"{{"xs": [{many}], "s": "a \"doc\""}}"#);
    // Accepted: the handler that takes text gets the text with the string in place.
    for tool in ["plain", "short", "open"] {
        let out = call(tool, &fine, r#"a "doc""#);
        assert_eq!(first_text(&out), whole, "{tool}: {out}");
        assert_eq!(rec.take(), [Got::Text(whole.clone())], "{tool}");
        // A handler that takes a value gets the value, the string read in.
        let out = call(&format!("{tool}_value"), &fine, r#"a "doc""#);
        assert_eq!(
            out["result"]["structuredContent"],
            serde_json::from_str::<Value>(&whole).unwrap(),
            "{tool}"
        );
    }
    // Refused, by what the held string says or by an item after it: reported from the text,
    // for each handler alike, nothing run.
    for (tool, args, doc, want) in [
        (
            "short",
            fine.clone(),
            "a much longer document",
            format!("/s: {past}"),
        ),
        (
            "plain",
            format!(r#"{{"s": "MARK", "xs": [{many}, "x"]}}"#),
            "a",
            format!("/xs/8200: {past}"),
        ),
    ] {
        for name in [tool.to_string(), format!("{tool}_value")] {
            let out = call(&name, &args, doc);
            assert_eq!(
                first_text(&out),
                format!("Invalid arguments for tool {name}: {want}"),
                "{name}"
            );
        }
        assert_eq!(rec.take(), [], "{tool}");
    }
    let out = call_text(&h, 5, "plain", r#"{"xs":[1]}"#);
    assert_eq!(first_text(&out), r#"{"xs":[1]}"#);
}

#[test]
fn another_methods_arguments_are_read_as_before() {
    // `prompts/get`'s arguments: read back into its params.
    let h = Harness::new();
    h.server
        .register_prompt(
            modelcontext_polyfill::server::PromptDef::new(
                "greet",
                |args: modelcontext_polyfill::collections::VecMap<String, String>, _c| async move {
                    let name = args.get("name").cloned().unwrap_or_default();
                    Ok::<_, HandlerError>(json!(format!("Hello {name}")))
                },
            )
            .argument("name", "", true),
        )
        .unwrap();
    h.initialize("2025-11-25");
    h.take();
    let out = h.exchange_text(
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"arguments":{"name":"Ada"},"name":"greet"}}"#,
    );
    assert_eq!(
        out[0]["result"]["messages"][0]["content"]["text"],
        json!("Hello Ada"),
        "{out:?}"
    );
    // Its arguments with a lone surrogate: the parse error the message's reading gave.
    let out = h.exchange_text(
        r#"{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"\udc00"}}}"#,
    );
    assert_eq!(code(&out[0]), -32700, "{out:?}");
    assert_eq!(out[0]["id"], json!(2));
}

//! The registry's own rules, checked without a server.

use super::*;
use crate::server::validator::SchemaViolation;
use crate::server::HandlerError;
use serde_json::json;
use std::cell::Cell;

/// Accepts any schema; counts compilations.
#[derive(Default)]
struct Counting(Cell<usize>);
struct AnyValue;
impl CompiledSchema for AnyValue {
    fn validate(&self, _instance: &Value) -> Vec<SchemaViolation> {
        Vec::new()
    }
}
impl SchemaCompiler for Counting {
    fn compile(&self, _schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        self.0.set(self.0.get() + 1);
        Ok(Rc::new(AnyValue))
    }
}

fn tool(name: &str, schema: impl Into<SchemaText>) -> ToolDef {
    ToolDef::new(name, "d", |_args: Value, _ctx| async {
        Ok::<_, HandlerError>(Value::Null)
    })
    .input_schema(schema)
}

#[test]
fn identical_schemas_compile_once_while_in_use() {
    let compiler = Counting::default();
    let mut r = Registry::default();
    let empty = json!({ "type": "object" });
    for name in ["a", "b", "c"] {
        r.add_tool(tool(name, empty.clone()), &compiler).unwrap();
    }
    assert_eq!(compiler.0.get(), 1);
    let shared = |r: &Registry, x: &str, y: &str| {
        Rc::ptr_eq(
            r.tool(x).unwrap().input.as_ref().unwrap(),
            r.tool(y).unwrap().input.as_ref().unwrap(),
        )
    };
    assert!(shared(&r, "a", "c"));
    // And one copy of its text: each tool keeps the first one's, not its own.
    let text = |r: &Registry, x: &str| {
        let tool = r.tool(x).unwrap();
        tool.def.input_schema.as_ref().unwrap().shared()
    };
    assert!(Rc::ptr_eq(&text(&r, "a"), &text(&r, "c")));
    // A different schema (key order counts: it is compared as JSON text) compiles anew.
    let other = json!({ "properties": {}, "type": "object" });
    r.add_tool(tool("d", other), &compiler).unwrap();
    assert_eq!(compiler.0.get(), 2);
    assert!(!shared(&r, "a", "d"));
    // Once no tool uses a compilation, an identical schema compiles again.
    for name in ["a", "b", "c"] {
        r.remove_tool(name);
    }
    let again = SchemaText::from(empty);
    r.add_tool(tool("e", again.clone()), &compiler).unwrap();
    assert_eq!(compiler.0.get(), 3);
    assert!(Rc::ptr_eq(&text(&r, "e"), &again.shared()));
    // Output schemas share theirs the same way, with the input schemas of the same text.
    let with_output = |name: &str| tool(name, json!({})).output_schema(json!({ "type": "object" }));
    r.add_tool(with_output("f"), &compiler).unwrap();
    r.add_tool(with_output("g"), &compiler).unwrap();
    let output = |x: &str| {
        r.tool(x)
            .unwrap()
            .def
            .output_schema
            .as_ref()
            .unwrap()
            .shared()
    };
    assert!(Rc::ptr_eq(&output("f"), &output("g")));
    assert!(Rc::ptr_eq(&output("f"), &text(&r, "e")));
}

#[test]
fn tools_are_kept_by_name() {
    let mut r = Registry::default();
    for name in ["m", "b", "z", "a", "k"] {
        r.add_tool(tool(name, json!({})), &Counting::default())
            .unwrap();
    }
    let names = |r: &Registry| r.tools().map(|t| t.def.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&r), ["a", "b", "k", "m", "z"]);
    let err = r
        .add_tool(tool("k", json!({})), &Counting::default())
        .unwrap_err();
    assert!(matches!(&err, RegistryError::Duplicate { kind: "tool", key } if key == "k"));
    assert_eq!(r.remove_tool("k").unwrap().def.name, "k");
    assert!(r.remove_tool("k").is_none());
    assert!(r.tool("k").is_none());
    assert_eq!(r.tool("z").unwrap().def.name, "z");
    assert_eq!(names(&r), ["a", "b", "m", "z"]);
    assert_eq!(r.clear_tools(), 4);
    assert_eq!(r.tools().len(), 0);
}

#[test]
fn tool_name_rule() {
    assert!(check_tool_name("a.b-c_9").is_ok());
    assert!(check_tool_name(&"x".repeat(128)).is_ok());
    assert!(check_tool_name(&"x".repeat(129)).is_err());
    assert!(check_tool_name("").is_err());
    let err = check_tool_name("has space").unwrap_err().to_string();
    assert!(err.contains(r#"character " " is not allowed"#), "{err}");
    let err = check_tool_name("tab\there").unwrap_err().to_string();
    assert!(err.contains(r#"character "\t" is not allowed"#), "{err}");
    let err = check_tool_name("é").unwrap_err().to_string();
    assert!(err.contains(r#"character "é" is not allowed"#), "{err}");
}

#[test]
fn kept_schemas_are_their_text_with_every_key_in_order() {
    let text = r#"{"type":"object","properties":{"z":{"type":"string","enum":["b","a"]},"a":{"type":"array","items":{"type":"number"}}},"required":["z","a"],"additionalProperties":false}"#;
    let parsed: Value = serde_json::from_str(text).unwrap();
    let mut r = Registry::default();
    r.add_tool(tool("t", parsed.clone()), &Counting::default())
        .unwrap();
    let kept = r.tool("t").unwrap().def.input_schema.clone().unwrap();
    assert_eq!(kept.as_str(), text);
    assert_eq!(kept.value().unwrap(), parsed);
    // A text given as text is kept as it was written, not re-serialized.
    let spaced = SchemaText::parse(r#"{ "type": "object" }"#).unwrap();
    r.add_tool(tool("spaced", spaced.clone()), &Counting::default())
        .unwrap();
    let kept = r.tool("spaced").unwrap().def.input_schema.clone().unwrap();
    assert_eq!(kept.as_str(), r#"{ "type": "object" }"#);
    // Clones share the text.
    assert!(Rc::ptr_eq(&kept.shared(), &spaced.shared()));
}

#[test]
fn a_schema_whose_text_cannot_be_read_back_is_refused() {
    // Built as a value, 200 levels deep: its text is past what the JSON parser reads.
    let mut deep = json!({ "type": "object" });
    for _ in 0..200 {
        deep = json!({ "type": "object", "properties": { "a": deep } });
    }
    let mut r = Registry::default();
    let err = r
        .add_tool(tool("deep", deep), &Counting::default())
        .unwrap_err();
    assert!(
        matches!(&err, RegistryError::InvalidSchema { which: "inputSchema", message } if message.contains("cannot be read back")),
        "{err}"
    );
    assert!(r.tool("deep").is_none());
    // The registry still takes the next tool.
    r.add_tool(
        tool("ok", json!({ "type": "object" })),
        &Counting::default(),
    )
    .unwrap();
    assert!(r.tool("ok").is_some());
}

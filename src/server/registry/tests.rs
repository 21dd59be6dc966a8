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
    // A different schema (key order counts: it is compared as JSON text) compiles anew.
    let other = json!({ "properties": {}, "type": "object" });
    r.add_tool(tool("d", other), &compiler).unwrap();
    assert_eq!(compiler.0.get(), 2);
    assert!(!shared(&r, "a", "d"));
    // Once no tool uses a compilation, an identical schema compiles again.
    for name in ["a", "b", "c"] {
        r.remove_tool(name);
    }
    r.add_tool(tool("e", empty), &compiler).unwrap();
    assert_eq!(compiler.0.get(), 3);
}

#[test]
fn tool_name_rule() {
    assert!(check_tool_name("a.b-c_9").is_ok());
    assert!(check_tool_name(&"x".repeat(128)).is_ok());
    assert!(check_tool_name(&"x".repeat(129)).is_err());
    assert!(check_tool_name("").is_err());
    let err = check_tool_name("has space").unwrap_err().to_string();
    assert!(err.contains("' '"), "{err}");
    assert!(check_tool_name("é").is_err());
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

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

fn tool(name: &str, schema: Value) -> ToolDef {
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
fn kept_schemas_are_refitted_without_changing_a_key_or_its_order() {
    let text = r#"{"type":"object","properties":{"z":{"type":"string","enum":["b","a"]},"a":{"type":"array","items":{"type":"number"}}},"required":["z","a"],"additionalProperties":false}"#;
    let parsed: Value = serde_json::from_str(text).unwrap();
    let refitted = fitted(parsed.clone());
    assert_eq!(refitted, parsed);
    assert_eq!(refitted.to_string(), text);
    let mut r = Registry::default();
    r.add_tool(tool("t", parsed), &Counting::default()).unwrap();
    let kept = r.tool("t").unwrap().def.input_schema.clone().unwrap();
    assert_eq!(kept.to_string(), text);
    // Each array is at its length: nothing left over from parsing.
    let items = kept["required"].as_array().unwrap();
    assert_eq!(items.capacity(), items.len());
}

//! Turning what handlers return into well-formed MCP results.
//!
//! Handlers are lenient in what they return (a page's function may return a string, an
//! object, or a full MCP result); these functions are strict in what they produce.

use crate::protocol::json_text;
use serde_json::{Map, Value};

/// Text content: `{"type":"text","text":…}`.
pub fn text_block(text: impl Into<String>) -> Value {
    // By hand: `json!` would copy the text through its serializer.
    let mut m = Map::with_capacity(2);
    m.insert("type".into(), Value::from("text"));
    m.insert("text".into(), Value::String(text.into()));
    Value::Object(m)
}

fn is_str(b: &Map<String, Value>, key: &str) -> bool {
    b.get(key).is_some_and(Value::is_string)
}

/// Whether `b` is a well-formed content block of a known type.
pub fn is_valid_block(b: &Value) -> bool {
    let Some(o) = b.as_object() else {
        return false;
    };
    match o.get("type").and_then(Value::as_str) {
        Some("text") => is_str(o, "text"),
        Some("image") | Some("audio") => is_str(o, "data") && is_str(o, "mimeType"),
        Some("resource") => o
            .get("resource")
            .and_then(Value::as_object)
            .is_some_and(|r| is_str(r, "uri") && (is_str(r, "text") || is_str(r, "blob"))),
        Some("resource_link") => is_str(o, "uri") && is_str(o, "name"),
        _ => false,
    }
}

/// Keeps well-formed blocks; anything else becomes a text block holding its JSON, so
/// nothing the handler produced is lost and nothing malformed is sent.
fn sanitize_blocks(blocks: &[Value]) -> Vec<Value> {
    blocks
        .iter()
        .map(|b| {
            if is_valid_block(b) {
                b.clone()
            } else {
                text_block(json_text::to_string(b))
            }
        })
        .collect()
}

/// Normalizes a tool handler's value into a `CallToolResult` object:
/// - an object with a `content` array is a `CallToolResult` already (blocks checked);
/// - a string becomes one text block;
/// - `null` becomes empty content;
/// - any other value becomes its JSON text, and objects are also `structuredContent`.
pub fn call_tool_result(value: Value) -> Map<String, Value> {
    let mut out = Map::new();
    match value {
        Value::Object(mut o) if o.get("content").is_some_and(Value::is_array) => {
            let blocks = match o.remove("content") {
                Some(Value::Array(b)) => sanitize_blocks(&b),
                _ => Vec::new(),
            };
            out.insert("content".into(), Value::Array(blocks));
            if let Some(sc) = o.remove("structuredContent") {
                out.insert("structuredContent".into(), sc);
            }
            if let Some(Value::Bool(true)) = o.get("isError") {
                out.insert("isError".into(), Value::Bool(true));
            }
            if let Some(meta @ Value::Object(_)) = o.remove("_meta") {
                out.insert("_meta".into(), meta);
            }
        }
        Value::Object(o) if o.contains_key("structuredContent") && o.len() == 1 => {
            let sc = o.get("structuredContent").cloned().unwrap_or(Value::Null);
            out.insert(
                "content".into(),
                Value::Array(vec![text_block(json_text::to_string(&sc))]),
            );
            out.insert("structuredContent".into(), sc);
        }
        Value::String(s) => {
            out.insert("content".into(), Value::Array(vec![text_block(s)]));
        }
        Value::Null => {
            out.insert("content".into(), Value::Array(Vec::new()));
        }
        Value::Object(o) => {
            let v = Value::Object(o);
            out.insert(
                "content".into(),
                Value::Array(vec![text_block(json_text::to_string(&v))]),
            );
            out.insert("structuredContent".into(), v);
        }
        other => {
            out.insert(
                "content".into(),
                Value::Array(vec![text_block(json_text::to_string(&other))]),
            );
        }
    }
    out
}

/// An `isError` tool result carrying `message`.
pub fn tool_error(message: impl Into<String>) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("content".into(), Value::Array(vec![text_block(message)]));
    out.insert("isError".into(), Value::Bool(true));
    out
}

/// Normalizes a resource handler's value into `contents` for `uri`:
/// `{contents:[…]}`, an array of contents, one contents object, or a string (text with
/// `mime_type`). Each entry gets the `uri` when it has none. `Err` names what is wrong.
pub fn resource_contents(
    value: Value,
    uri: &str,
    mime_type: Option<&str>,
) -> Result<Vec<Value>, String> {
    let items = match value {
        Value::Object(mut o) if o.get("contents").is_some_and(Value::is_array) => {
            match o.remove("contents") {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            }
        }
        Value::Array(a) => a,
        Value::String(text) => {
            let mut m = Map::new();
            m.insert("uri".into(), Value::from(uri));
            if let Some(mt) = mime_type {
                m.insert("mimeType".into(), Value::from(mt));
            }
            m.insert("text".into(), Value::from(text));
            return Ok(vec![Value::Object(m)]);
        }
        Value::Object(o) => vec![Value::Object(o)],
        other => {
            return Err(format!(
                "a resource handler must return text, contents or {{contents}}, got {other}",
                other = json_text::to_string(&other)
            ))
        }
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let Value::Object(mut o) = item else {
                return Err(format!("contents[{i}] is not an object"));
            };
            if !o.contains_key("uri") {
                o.insert("uri".into(), Value::from(uri));
            }
            if !o.contains_key("mimeType") {
                if let Some(mt) = mime_type {
                    o.insert("mimeType".into(), Value::from(mt));
                }
            }
            let text = o.get("text").is_some_and(Value::is_string);
            let blob = o.get("blob").is_some_and(Value::is_string);
            if text == blob {
                return Err(format!(
                    "contents[{i}] needs exactly one of a string \"text\" or a base64 \"blob\""
                ));
            }
            if !o.get("uri").is_some_and(Value::is_string) {
                return Err(format!("contents[{i}].uri must be a string"));
            }
            Ok(Value::Object(o))
        })
        .collect()
}

/// Normalizes a prompt handler's value into a `GetPromptResult` object: `{messages}`, an
/// array of messages, or a string (one user message). Message contents that are strings
/// become text blocks.
pub fn prompt_result(
    value: Value,
    description: Option<&str>,
) -> Result<Map<String, Value>, String> {
    let (messages, desc) = match value {
        Value::Object(mut o) if o.get("messages").is_some_and(Value::is_array) => {
            let d = o.remove("description").filter(Value::is_string);
            match o.remove("messages") {
                Some(Value::Array(m)) => (m, d),
                _ => (Vec::new(), d),
            }
        }
        Value::Array(a) => (a, None),
        Value::String(s) => (
            vec![{
                let mut m = Map::with_capacity(2);
                m.insert("role".into(), Value::from("user"));
                m.insert("content".into(), text_block(s));
                Value::Object(m)
            }],
            None,
        ),
        other => {
            return Err(format!(
                "a prompt handler must return text, messages or {{messages}}, got {other}",
                other = json_text::to_string(&other)
            ))
        }
    };
    let mut out_msgs = Vec::with_capacity(messages.len());
    for (i, m) in messages.into_iter().enumerate() {
        let Value::Object(mut o) = m else {
            return Err(format!("messages[{i}] is not an object"));
        };
        match o.get("role").and_then(Value::as_str) {
            Some("user") | Some("assistant") => {}
            _ => {
                return Err(format!(
                    "messages[{i}].role must be \"user\" or \"assistant\""
                ))
            }
        }
        let content = match o.remove("content") {
            Some(Value::String(s)) => text_block(s),
            Some(b) if is_valid_block(&b) => b,
            Some(b) => {
                return Err(format!(
                    "messages[{i}].content is not a content block: {b}",
                    b = json_text::to_string(&b)
                ))
            }
            None => return Err(format!("messages[{i}] has no content")),
        };
        o.insert("content".into(), content);
        out_msgs.push(Value::Object(o));
    }
    let mut out = Map::new();
    if let Some(d) = desc.or_else(|| description.map(Value::from)) {
        out.insert("description".into(), d);
    }
    out.insert("messages".into(), Value::Array(out_msgs));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_values_normalize() {
        assert_eq!(
            Value::Object(call_tool_result(json!("hi"))),
            json!({"content":[{"type":"text","text":"hi"}]})
        );
        assert_eq!(
            Value::Object(call_tool_result(json!({"a":1}))),
            json!({"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1}})
        );
        assert_eq!(
            Value::Object(call_tool_result(json!(3))),
            json!({"content":[{"type":"text","text":"3"}]})
        );
        let r = call_tool_result(json!({"content":[{"type":"bogus"}],"isError":true}));
        assert_eq!(r["content"][0]["text"], json!("{\"type\":\"bogus\"}"));
        assert_eq!(r["isError"], json!(true));
    }

    #[test]
    fn resource_values_normalize_and_fail_clearly() {
        let c = resource_contents(json!("x"), "a://b", Some("text/plain")).unwrap();
        assert_eq!(
            c,
            vec![json!({"uri":"a://b","mimeType":"text/plain","text":"x"})]
        );
        let err = resource_contents(json!([{"text":"a","blob":"b"}]), "a://b", None).unwrap_err();
        assert!(err.contains("contents[0]"), "{err}");
        assert!(resource_contents(json!(5), "a://b", None).is_err());
    }

    #[test]
    fn prompt_values_normalize() {
        let r = prompt_result(json!([{"role":"user","content":"hey"}]), Some("d")).unwrap();
        assert_eq!(
            Value::Object(r),
            json!({"description":"d","messages":[{"role":"user","content":{"type":"text","text":"hey"}}]})
        );
        assert!(
            prompt_result(json!([{"role":"system","content":"x"}]), None)
                .unwrap_err()
                .contains("role")
        );
    }
}

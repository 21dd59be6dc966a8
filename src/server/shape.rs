//! Per-version shapes of what the server lists and returns.
//!
//! The registry holds the newest, richest form of everything; these functions cut it down
//! to what each protocol version defines, so every message is valid for the version
//! negotiated. What older versions lose is documented on each function.

use serde_json::{json, Map, Value};

use super::engine::config::{ServerConfig, ServerInfo};
use super::registry::{admits_object, PromptDef, Resource, Tool};
use crate::protocol::ProtocolVersion;

/// `_meta` key: the server's `Implementation`, on results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

fn put(m: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        m.insert(key.to_string(), v);
    }
}

fn icons(list: &[Value], version: ProtocolVersion) -> Option<Value> {
    (version.has_icons() && !list.is_empty()).then(|| Value::Array(list.to_vec()))
}

/// A schema object with `"type": "object"` (first when it had no type; in place of a type
/// list admitting objects), and boolean subschemas under `properties` written as objects,
/// which every MCP version accepts (`true` ≡ `{}`, `false` ≡ `{"not": {}}`).
fn object_typed(schema: Map<String, Value>) -> Map<String, Value> {
    let mut m = Map::with_capacity(schema.len() + 1);
    if !schema.contains_key("type") {
        m.insert("type".into(), Value::from("object"));
    }
    for (k, v) in schema {
        let v = match (k.as_str(), v) {
            ("type", _) => Value::from("object"),
            ("properties", Value::Object(props)) => Value::Object(
                props
                    .into_iter()
                    .map(|(name, sub)| {
                        let sub = match sub {
                            Value::Bool(true) => json!({}),
                            Value::Bool(false) => json!({ "not": {} }),
                            other => other,
                        };
                        (name, sub)
                    })
                    .collect(),
            ),
            (_, v) => v,
        };
        m.insert(k, v);
    }
    m
}

/// The `inputSchema` advertised for a tool: the registered schema as an object schema
/// (`"type": "object"` added when the schema does not say — arguments are always objects —
/// and boolean subschemas written as objects); `{"type":"object"}` when the tool has none.
/// The registry refuses input schemas whose `type` admits no object.
pub fn advertised_input_schema(tool: &Tool) -> Value {
    // (A registered tool's schema text always parses: the registry refused any that did not.)
    match tool.def.input_schema.as_ref().and_then(|s| s.value().ok()) {
        Some(Value::Object(o)) => Value::Object(object_typed(o)),
        Some(Value::Bool(false)) => json!({ "type": "object", "not": {} }),
        _ => json!({ "type": "object", "properties": {} }),
    }
}

/// The `outputSchema` advertised for `version`: none before 2025-06-18; through 2025-11-25
/// an object schema (`"type": "object"` added when absent, left out when the schema's type
/// admits no object, since those versions' `structuredContent` is always an object);
/// 2026-07-28 takes any schema, booleans written as objects.
pub fn advertised_output_schema(tool: &Tool, version: ProtocolVersion) -> Option<Value> {
    if !version.has_structured_content() {
        return None;
    }
    let schema = tool.def.output_schema.as_ref()?.value().ok()?;
    let object_only = version.requires_object_structured_content();
    match schema {
        Value::Object(o) if !object_only => Some(Value::Object(o)),
        Value::Object(o) => match o.get("type") {
            Some(t) if !admits_object(t) => None,
            _ => Some(Value::Object(object_typed(o))),
        },
        Value::Bool(b) => {
            let mut m = Map::new();
            if object_only {
                m.insert("type".into(), Value::from("object"));
            }
            if !b {
                m.insert("not".into(), json!({}));
            }
            Some(Value::Object(m))
        }
        _ => None,
    }
}

/// A tool for `tools/list`. 2024-11-05 has no annotations; before 2025-06-18 there is no
/// `title`, `outputSchema` or `_meta` (the title then rides in `annotations.title`);
/// before 2025-11-25 no `icons`; `execution` (tasks) only in 2025-11-25.
pub fn tool(t: &Tool, version: ProtocolVersion) -> Value {
    let d = &t.def;
    let mut m = Map::new();
    m.insert("name".into(), Value::from(d.name.clone()));
    if version.has_titles() {
        put(&mut m, "title", d.title.clone().map(Value::from));
    }
    m.insert("description".into(), Value::from(d.description.clone()));
    m.insert("inputSchema".into(), advertised_input_schema(t));
    put(&mut m, "outputSchema", advertised_output_schema(t, version));
    if version.has_tool_annotations() {
        let mut ann = d.annotations.as_deref().cloned().unwrap_or_default();
        if !version.has_titles() {
            if let Some(title) = &d.title {
                ann.entry("title")
                    .or_insert_with(|| Value::from(title.clone()));
            }
        }
        if !ann.is_empty() {
            m.insert("annotations".into(), Value::Object(ann));
        }
    }
    put(&mut m, "icons", icons(&d.icons, version));
    if version.has_tasks() {
        put(&mut m, "execution", d.execution.as_deref().cloned());
    }
    if version.has_titles() {
        put(&mut m, "_meta", d.meta.as_deref().cloned());
    }
    Value::Object(m)
}

fn resource_common(r: &Resource, version: ProtocolVersion, m: &mut Map<String, Value>) {
    let d = &r.def;
    m.insert("name".into(), Value::from(d.name.clone()));
    if version.has_titles() {
        put(m, "title", d.title.clone().map(Value::from));
    }
    put(m, "description", d.description.clone().map(Value::from));
    put(m, "mimeType", d.mime_type.clone().map(Value::from));
    put(m, "annotations", d.annotations.clone());
    put(m, "icons", icons(&d.icons, version));
    if version.has_titles() {
        put(m, "_meta", d.meta.as_deref().cloned());
    }
}

/// A static resource for `resources/list`.
pub fn resource(r: &Resource, version: ProtocolVersion) -> Value {
    let mut m = Map::new();
    m.insert("uri".into(), Value::from(r.def.uri.clone()));
    resource_common(r, version, &mut m);
    put(&mut m, "size", r.def.size.map(Value::from));
    Value::Object(m)
}

/// A resource template for `resources/templates/list`.
pub fn template(r: &Resource, version: ProtocolVersion) -> Value {
    let mut m = Map::new();
    m.insert("uriTemplate".into(), Value::from(r.def.uri.clone()));
    resource_common(r, version, &mut m);
    Value::Object(m)
}

/// A prompt for `prompts/list`.
pub fn prompt(p: &PromptDef, version: ProtocolVersion) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::from(p.name.clone()));
    if version.has_titles() {
        put(&mut m, "title", p.title.clone().map(Value::from));
    }
    put(
        &mut m,
        "description",
        p.description.clone().map(Value::from),
    );
    if !p.arguments.is_empty() {
        let args = p
            .arguments
            .iter()
            .map(|a| {
                let mut am = Map::new();
                am.insert("name".into(), Value::from(a.name.clone()));
                if version.has_titles() {
                    put(&mut am, "title", a.title.clone().map(Value::from));
                }
                put(
                    &mut am,
                    "description",
                    a.description.clone().map(Value::from),
                );
                am.insert("required".into(), Value::from(a.required));
                Value::Object(am)
            })
            .collect();
        m.insert("arguments".into(), Value::Array(args));
    }
    put(&mut m, "icons", icons(&p.icons, version));
    if version.has_titles() {
        put(&mut m, "_meta", p.meta.as_deref().cloned());
    }
    Value::Object(m)
}

/// Content blocks for `version`: audio (before 2025-03-26) and `resource_link` (before
/// 2025-06-18) become text blocks describing them; `_meta` on blocks is dropped before
/// 2025-06-18.
pub fn content_blocks(blocks: &[Value], version: ProtocolVersion) -> Vec<Value> {
    blocks
        .iter()
        .map(|b| {
            let mut b = b.clone();
            adapt_block(&mut b, version);
            b
        })
        .collect()
}

/// [`content_blocks`] for one block, in place: a block `version` can carry as it is is left
/// untouched (the common case costs no copy).
fn adapt_block(b: &mut Value, version: ProtocolVersion) {
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
    let described = match kind {
        "audio" if !version.has_audio() => Some(format!(
            "[audio content ({}) not representable in protocol {}]",
            b.get("mimeType")
                .and_then(Value::as_str)
                .unwrap_or("unknown type"),
            version
        )),
        "resource_link" if !version.has_resource_link() => Some(format!(
            "Resource: {} ({})",
            b.get("name").and_then(Value::as_str).unwrap_or(""),
            b.get("uri").and_then(Value::as_str).unwrap_or("")
        )),
        _ => None,
    };
    if let Some(text) = described {
        *b = json!({ "type": "text", "text": text });
    }
    if !version.has_titles() {
        if let Some(o) = b.as_object_mut() {
            o.remove("_meta");
        }
    }
}

/// A `CallToolResult` for `version`: content blocks adapted, and `structuredContent`
/// dropped before 2025-06-18 (its JSON text is already in `content`) and, through
/// 2025-11-25, when it is not an object (those versions allow only objects).
pub fn call_tool_result(mut result: Map<String, Value>, version: ProtocolVersion) -> Value {
    if let Some(Value::Array(blocks)) = result.get_mut("content") {
        for b in blocks.iter_mut() {
            adapt_block(b, version);
        }
    }
    let representable = match result.get("structuredContent") {
        None => true,
        Some(sc) if version.requires_object_structured_content() => sc.is_object(),
        Some(_) => version.has_structured_content(),
    };
    if !representable {
        result.remove("structuredContent");
    }
    Value::Object(result)
}

/// A `GetPromptResult` for `version`: each message's content adapted as
/// [`content_blocks`] does (audio before 2025-03-26 and `resource_link` before 2025-06-18
/// become text).
pub fn prompt_result(mut result: Map<String, Value>, version: ProtocolVersion) -> Value {
    if let Some(Value::Array(messages)) = result.get_mut("messages") {
        for m in messages.iter_mut() {
            if let Some(content) = m.get_mut("content") {
                adapt_block(content, version);
            }
        }
    }
    Value::Object(result)
}

/// 2026-07-28: `resultType`, `ttlMs`/`cacheScope` on cacheable results, and the server's
/// identity in `_meta` (`info`, asked only then), added to the `result` of `method` in `version`
/// (each member after the result's own). What it adds depends on the server's settings and
/// identity only: sessions add it to each result, and the whole-list `tools/list` text once
/// (`Server::tools_list_text`).
pub fn decorate(
    method: &str,
    mut result: Value,
    version: Option<ProtocolVersion>,
    config: &ServerConfig,
    info: &dyn Fn() -> ServerInfo,
) -> Value {
    let stateless = version.is_some_and(|v| v.has_result_type()) || method == "server/discover";
    let Some(obj) = result.as_object_mut().filter(|_| stateless) else {
        return result;
    };
    let version = version.unwrap_or(ProtocolVersion::V2026_07_28);
    obj.entry("resultType").or_insert_with(|| json!("complete"));
    let cacheable = matches!(
        method,
        "server/discover"
            | "tools/list"
            | "resources/list"
            | "resources/templates/list"
            | "prompts/list"
            | "resources/read"
            | "skills/list"
            | "skills/get"
            | "resources/directory/read"
    );
    // An input-required result (server::input_required) is not an answer to cache.
    let complete = obj.get("resultType").and_then(Value::as_str) == Some("complete");
    if cacheable && complete {
        obj.entry("ttlMs").or_insert_with(|| json!(config.ttl_ms));
        obj.entry("cacheScope")
            .or_insert_with(|| json!(config.cache_scope));
    }
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(m) = meta.as_object_mut() {
        m.entry(META_SERVER_INFO)
            .or_insert_with(|| info().implementation(version));
    }
    result
}

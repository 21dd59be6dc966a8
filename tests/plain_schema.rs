//! Plain schemas (`server::plain_schema`) beside the full validator (`schema`, on the
//! `jsonschema` crate): for every schema the plain compiler accepts, both must report the same
//! violations — instance path, keyword, schema path, message — for every instance.
//!
//! Two sources: the JSON-Schema-Test-Suite's draft 2020-12 files (every group whose schema is
//! plain; the suite's own answer must hold too), and a corpus of tool-shaped schemas checked
//! against generated instances.

use modelcontext_polyfill::schema::suite;
use modelcontext_polyfill::schema::{Dialect, JsonSchemaCompiler};
use modelcontext_polyfill::server::plain_schema::PlainSchema;
use modelcontext_polyfill::server::{CompiledSchema, SchemaCompiler, SchemaViolation};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn suite_dir() -> PathBuf {
    match std::env::var_os("JSON_SCHEMA_TEST_SUITE") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/json-schema-test-suite"),
    }
}

/// Violations as comparable tuples, sorted (the order of several may differ).
fn key(v: &[SchemaViolation]) -> Vec<(String, String, String, String)> {
    let mut k: Vec<_> = v
        .iter()
        .map(|v| {
            (
                v.instance_path.clone(),
                v.keyword.clone(),
                v.schema_path.clone(),
                v.message.clone(),
            )
        })
        .collect();
    k.sort();
    k
}

/// Compares the two on `instance`; a difference is described in `problems`.
fn compare(
    schema: &Value,
    plain: &PlainSchema,
    full: &dyn CompiledSchema,
    instance: &Value,
    problems: &mut Vec<String>,
) -> bool {
    let (p, f) = (plain.validate(instance), full.validate(instance));
    if key(&p) != key(&f) {
        problems.push(format!(
            "schema {schema}\n  instance {instance}\n  plain {:?}\n  full  {:?}",
            key(&p),
            key(&f)
        ));
    }
    p.is_empty()
}

#[test]
fn plain_schemas_answer_the_suite_as_the_full_validator_does() {
    suite_side_by_side("draft2020-12", Dialect::Draft202012, 100, 400);
}

/// Draft 7, the dialect zod-to-json-schema and the MCP SDKs write: its plain keywords mean what
/// they mean in 2020-12.
#[test]
fn plain_schemas_answer_the_draft_7_suite_as_the_full_validator_does() {
    suite_side_by_side("draft7", Dialect::Draft7, 80, 300);
}

/// Every group of the suite folder `folder` whose schema is plain: both must give the same
/// violations for every test, and the suite's answer. At least `min_groups` groups and
/// `min_tests` tests must be plain (this fails if the plain set shrinks by accident).
fn suite_side_by_side(folder: &str, dialect: Dialect, min_groups: usize, min_tests: usize) {
    let dir = suite_dir().join("tests").join(folder);
    assert!(
        dir.is_dir(),
        "the JSON-Schema-Test-Suite is not at {}",
        dir.display()
    );
    let compiler = JsonSchemaCompiler::new().with_default_dialect(dialect);
    let dialect_uri = (dialect != Dialect::Draft202012).then(|| dialect.schema_uri());
    let (mut groups, mut plain_groups, mut tests) = (0, 0, 0);
    let mut problems = Vec::new();
    for (file, contents) in suite::read_tree(&dir).unwrap() {
        if file.starts_with("optional") {
            continue;
        }
        for group in contents.as_array().unwrap() {
            groups += 1;
            // The folder's dialect, named in the schema as a page names it (the full validator
            // would also take it from its default; the plain compiler reads only `$schema`).
            let mut schema = group["schema"].clone();
            if let (Some(uri), Value::Object(map)) = (dialect_uri, &mut schema) {
                map.entry("$schema").or_insert_with(|| json!(uri));
            }
            let schema = &schema;
            let Some(plain) = PlainSchema::compile(schema) else {
                continue;
            };
            let full = compiler
                .compile(schema)
                .unwrap_or_else(|e| panic!("{file}: plain but refused by the full validator: {e}"));
            plain_groups += 1;
            for test in group["tests"].as_array().unwrap() {
                tests += 1;
                let valid = compare(schema, &plain, full.as_ref(), &test["data"], &mut problems);
                if valid != test["valid"].as_bool().unwrap() {
                    problems.push(format!(
                        "{file}: {} / {}: plain says valid={valid}",
                        group["description"], test["description"]
                    ));
                }
            }
        }
    }
    println!("{folder}: plain {plain_groups} of {groups} groups, {tests} tests");
    assert!(
        problems.is_empty(),
        "{} differences:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The plain set covers a fair part of the suite (this fails if it shrinks by accident).
    assert!(
        plain_groups >= min_groups && tests >= min_tests,
        "{folder}: {plain_groups} groups, {tests} tests"
    );
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// A value of any type, small, with the edge cases the checks care about.
fn any(rng: &mut Rng, depth: u32) -> Value {
    let scalars = [
        json!(null),
        json!(true),
        json!(0),
        json!(1),
        json!(-1),
        json!(1.0),
        json!(2.5),
        json!(-0.5),
        json!(3),
        json!(100),
        json!(1e300),
        json!(9007199254740993u64),
        json!(18446744073709551615u64),
        json!(-9223372036854775808i64),
        json!(""),
        json!("a"),
        json!("ab"),
        json!("héllo"),
        json!("😀😀"),
        json!("red"),
        json!("x/y~z"),
    ];
    match rng.below(if depth > 2 { 1 } else { 4 }) {
        0 => rng.pick(&scalars).clone(),
        1 => Value::Array((0..rng.below(4)).map(|_| any(rng, depth + 1)).collect()),
        _ => {
            let keys = ["a", "b", "q", "n", "tags", "when", "x/y", "size", "extra"];
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                m.insert((*rng.pick(&keys)).to_owned(), any(rng, depth + 1));
            }
            Value::Object(m)
        }
    }
}

/// An instance shaped like `schema`, with a mutation now and then.
fn shaped(rng: &mut Rng, schema: &Value, depth: u32) -> Value {
    if rng.below(6) == 0 || depth > 6 {
        return any(rng, depth);
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return rng.pick(options).clone();
    }
    if let Some(branches) = ["anyOf", "oneOf", "allOf"]
        .iter()
        .find_map(|k| schema.get(*k).and_then(Value::as_array))
    {
        let branch = rng.pick(branches).clone();
        return shaped(rng, &branch, depth + 1);
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => rng.pick(ts).as_str().unwrap_or("null"),
        _ => "any",
    };
    match ty {
        "object" => {
            let mut m = serde_json::Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, s) in props {
                    if rng.below(4) != 0 {
                        m.insert(k.clone(), shaped(rng, s, depth + 1));
                    }
                }
            }
            if rng.below(4) == 0 {
                m.insert("extra".into(), any(rng, depth + 1));
            }
            Value::Object(m)
        }
        "array" => {
            let item = schema.get("items").cloned().unwrap_or(json!({}));
            Value::Array(
                (0..rng.below(5))
                    .map(|_| shaped(rng, &item, depth + 1))
                    .collect(),
            )
        }
        "string" => json!(rng.pick(&[
            "",
            "a",
            "abc",
            "héllo wörld",
            "2026-11-26",
            "2026-1-26",
            "red",
            "blue",
            "rouge",
        ])),
        "integer" => json!(*rng.pick(&[-5i64, 0, 1, 2, 3, 7, 10, 12, 99, 100, 101])),
        "number" => rng
            .pick(&[
                json!(0.5),
                json!(1),
                json!(2.0),
                json!(-3.25),
                json!(10),
                json!(100.5),
            ])
            .clone(),
        "boolean" => json!(rng.below(2) == 0),
        "null" => Value::Null,
        _ => any(rng, depth),
    }
}

#[test]
fn plain_schemas_match_the_full_validator_on_tool_shaped_schemas() {
    let corpus = [
        json!({"type": "object", "properties": {"q": {"type": "string", "description": "query"}}, "required": ["q"]}),
        json!({"type": "object", "properties": {"a": {"type": "number"}}}),
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 100, "multipleOf": 3}}, "required": ["n"], "additionalProperties": false}),
        json!({"type": "object", "properties": {"size": {"type": "string", "enum": ["s", "m", "l", "xl", "xxl"]}, "color": {"enum": ["red", "blue", 3, null]}}, "additionalProperties": {"type": "string"}}),
        json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 2}, "minItems": 1, "maxItems": 3, "uniqueItems": true}}}),
        json!({"type": "object", "properties": {"when": {"type": "string", "format": "date", "title": "When"}, "x/y": {"type": ["string", "null"]}}, "required": ["when", "x/y"]}),
        json!({"type": "object", "properties": {"choice": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}}, "required": ["choice"]}),
        json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}}, "required": ["n"]}}}}}}),
        json!({"type": "object", "minProperties": 1, "maxProperties": 2, "properties": {"a": false, "b": true}}),
        json!({"type": ["integer", "string"], "minimum": 2.5, "maxLength": 1}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"a": {"const": {"k": [1, 2.0]}}}, "default": {}, "examples": [{}]}),
        json!({"type": "array", "items": false}),
        json!({"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]}, "maxItems": 2}),
        json!({"type": "object", "additionalProperties": false}),
        json!({"type": "object", "properties": {"n": {"type": "number", "multipleOf": 2}}}),
        json!({"additionalProperties": false, "anyOf": [{"type": "string"}, {"maxProperties": 0}]}),
        json!({"type": "array", "items": {"type": "integer", "maximum": 10}, "minItems": 2, "maxItems": 3}),
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": false, "required": ["q", "n"], "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        json!(false),
        json!(true),
        json!({}),
        // As zod-to-json-schema writes them: draft 7.
        json!({"type": "object", "properties": {"q": {"type": "string", "minLength": 1}, "n": {"type": "number", "exclusiveMinimum": 0}, "when": {"type": "string", "format": "date-time"}}, "required": ["q"], "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"}),
        json!({"$schema": "http://json-schema.org/draft-07/schema", "type": "array", "items": {"type": "string", "enum": ["red", "blue"]}, "uniqueItems": true, "maxItems": 2}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema#", "anyOf": [{"type": "string", "minLength": 2}, {"type": "null"}]}),
        // `$ref`s into `$defs` (zod 4) and `definitions` or `properties` (zod-to-json-schema).
        json!({"type": "object", "properties": {"from": {"$ref": "#/$defs/day"}, "to": {"$ref": "#/$defs/day"}, "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}}}, "required": ["from"], "$defs": {"day": {"type": "string", "minLength": 10, "maxLength": 10}, "tag": {"enum": ["red", "blue"]}}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"type": "integer", "minimum": 1}, "b": {"$ref": "#/properties/a"}, "c": {"$ref": "#/definitions/c"}}, "definitions": {"c": {"type": "array", "maxItems": 2}}, "additionalProperties": false}),
        json!({"$ref": "#/$defs/a", "minLength": 2, "$defs": {"a": {"$ref": "#/$defs/b", "maxLength": 3}, "b": {"type": "string"}}}),
        // A discriminated union (zod 4's oneOf), an intersection (allOf), overlapping branches.
        json!({"oneOf": [{"type": "object", "properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}, "required": ["kind", "n"]}, {"type": "object", "properties": {"kind": {"const": "b"}, "q": {"type": "string"}}, "required": ["kind"]}]}),
        json!({"allOf": [{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}, {"properties": {"q": {"type": "string", "maxLength": 2}}}, true], "minProperties": 1}),
        json!({"type": "object", "properties": {"n": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 2}, false]}, "a": {"allOf": [false]}}}),
        // not, and conditionals.
        json!({"type": "object", "properties": {"q": {"type": "string", "not": {"enum": ["admin", "root"]}}, "n": {"not": {"type": "string", "minLength": 2}}}}),
        json!({"type": "object", "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]}, "then": {"required": ["n"]}, "else": {"properties": {"n": false}}}),
        json!({"if": {"type": "string"}, "then": {"minLength": 2}, "not": true}),
        // A tuple, as zod 4 writes it, and a prefix followed by more items.
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false, "minItems": 2, "maxItems": 2}),
        json!({"type": "array", "prefixItems": [{"enum": ["red", "blue"]}], "items": {"type": "integer", "maximum": 10}}),
        // A record, as zod 4 writes it.
        json!({"type": "object", "propertyNames": {"type": "string", "minLength": 1, "maxLength": 4}, "additionalProperties": {"type": "number"}}),
    ];
    let compiler = JsonSchemaCompiler::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut problems = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for schema in &corpus {
        let plain = PlainSchema::compile(schema).unwrap_or_else(|| panic!("not plain: {schema}"));
        let full = compiler.compile(schema).unwrap();
        for _ in 0..400 {
            let instance = shaped(&mut rng, schema, 0);
            if compare(schema, &plain, full.as_ref(), &instance, &mut problems) {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
    }
    problems.truncate(20);
    assert!(problems.is_empty(), "differences:\n{}", problems.join("\n"));
    // Both outcomes are exercised.
    assert!(
        valid > 1000 && invalid > 1000,
        "{valid} valid, {invalid} invalid"
    );
}

/// A `$ref`'s target is compiled once, for every `$ref` to it: `$defs` that each use the next
/// twice compile to one node per use, not to twice as many per level (2^14 for 14 levels, past
/// the budget), and check what the full validator checks.
#[test]
fn refs_that_multiply_compile_once_each() {
    let defs = |levels: usize| {
        let mut defs = serde_json::Map::new();
        for i in 0..levels {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(
                format!("d{i}"),
                json!({"type": "array", "items": next.clone(), "anyOf": [next]}),
            );
        }
        defs.insert(format!("d{levels}"), json!({"type": "string"}));
        json!({"$ref": "#/$defs/d0", "$defs": defs})
    };
    assert!(PlainSchema::compile(&defs(4)).is_some());
    let schema = defs(14);
    let plain = PlainSchema::compile(&schema).expect("plain: 14 levels, each compiled once");
    let full = JsonSchemaCompiler::new().compile(&schema).unwrap();
    let nested = |leaf: Value, levels: usize| (0..levels).fold(leaf, |v, _| json!([v]));
    let mut problems = Vec::new();
    for instance in [
        json!([]),
        json!(1),
        json!("s"),
        nested(json!("leaf"), 14),
        nested(json!(7), 14),
        nested(json!([]), 3),
    ] {
        compare(&schema, &plain, full.as_ref(), &instance, &mut problems);
    }
    assert!(problems.is_empty(), "differences:\n{}", problems.join("\n"));
}

#[test]
fn what_is_not_plain_is_left_to_the_full_validator() {
    for schema in [
        json!({"type": "string", "pattern": "^a"}),
        json!({"$ref": "https://example.com/schema"}),
        json!({"$ref": "#a", "$defs": {"a": {"$anchor": "a"}}}),
        json!({"$ref": "#"}),
        json!({"$ref": "#/$defs/no"}),
        json!({"$ref": "#/$defs/a%20b", "$defs": {"a b": {}}}),
        json!({"$ref": "#/$defs/f", "$defs": {"f": false}}),
        json!({"$ref": "#/$defs/a", "$defs": {"a": {"patternProperties": {}}}}),
        json!({"propertyNames": false}),
        json!({"properties": {"a": {"type": "string"}}, "$defs": {"unused": {"contains": {}}}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a", "type": "string", "definitions": {"a": {}}}),
        json!({"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}),
        json!({"patternProperties": {"^a": {}}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "prefixItems": [{}]}),
        json!({"items": [{}]}),
        json!({"dependentRequired": {"a": ["b"]}}),
        json!({"type": "number", "multipleOf": 0.1}),
        json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}),
        json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object"}),
        json!({"$schema": "https://example.com/my-dialect", "type": "object"}),
        json!({"type": "object", "x-custom": 1}),
        json!({"type": "strin"}),
        json!({"type": ["string", "string"]}),
        json!({"required": ["a", "a"]}),
        json!({"minLength": -1}),
        json!({"anyOf": []}),
        json!({"prefixItems": []}),
        json!({"oneOf": [], "allOf": [{}]}),
        json!({"title": 5}),
        json!({"properties": {"a": {"properties": {"b": {"contains": {}}}}}}),
        json!(3),
    ] {
        assert!(
            PlainSchema::compile(&schema).is_none(),
            "{schema} was taken as plain"
        );
    }
}

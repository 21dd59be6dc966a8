//! Plain schemas (`server::plain_schema`) beside the full validator (`schema`, on the
//! `jsonschema` crate): for every schema the plain compiler accepts, both must report the same
//! violations — instance path, keyword, schema path, message — for every instance.
//!
//! Three sources: the JSON-Schema-Test-Suite's draft 2020-12 and draft 7 files (every group
//! whose schema is plain; the suite's own answer must hold too), its optional files of regular
//! expressions, and corpora of tool-shaped schemas and of patterns checked against generated
//! instances.

use modelcontext_polyfill::schema::suite;
use modelcontext_polyfill::schema::{Dialect, JsonSchema, JsonSchemaCompiler};
use modelcontext_polyfill::server::plain_schema::PlainSchema;
use modelcontext_polyfill::server::{CompiledSchema, SchemaViolation};
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

/// The outcomes of many comparisons: the differences found, and how many instances each side
/// took as valid and as invalid.
#[derive(Default)]
struct Tally {
    problems: Vec<String>,
    valid: usize,
    invalid: usize,
}

impl Tally {
    /// Compares the two on `instance` ([`compare`]) and counts its outcome.
    fn check(&mut self, schema: &Value, plain: &PlainSchema, full: &JsonSchema, instance: &Value) {
        if compare(schema, plain, full, instance, &mut self.problems) {
            self.valid += 1;
        } else {
            self.invalid += 1;
        }
    }

    /// Fails on any difference, or unless both outcomes were seen more than `min` times each.
    fn assert_agreed(mut self, min: usize) {
        self.problems.truncate(20);
        assert_no_differences(&self.problems);
        assert!(
            self.valid > min && self.invalid > min,
            "{} valid, {} invalid",
            self.valid,
            self.invalid
        );
    }
}

/// Fails listing `problems`, if there are any.
fn assert_no_differences(problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{} differences:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Compares the two on `instance`; a difference is described in `problems`.
fn compare(
    schema: &Value,
    plain: &PlainSchema,
    full: &JsonSchema,
    instance: &Value,
    problems: &mut Vec<String>,
) -> bool {
    // Every violation of each (`validate` reports the first few, each in its own order).
    let (p, f) = (
        plain.violations(instance, usize::MAX),
        full.violations(instance, usize::MAX),
    );
    if key(&p) != key(&f) {
        problems.push(format!(
            "schema {schema}\n  instance {instance}\n  plain {:?}\n  full  {:?}",
            key(&p),
            key(&f)
        ));
    }
    // Asked for fewer, each reports the first of them: the walk that stops once it has found
    // that many finds the same ones in the same order.
    for k in 1..p.len().max(f.len()) {
        let (pk, fk) = (plain.violations(instance, k), full.violations(instance, k));
        if pk[..] != p[..k.min(p.len())] || fk[..] != f[..k.min(f.len())] {
            problems.push(format!(
                "schema {schema}\n  instance {instance}\n  the first {k} of plain {:?}\n  \
                 are {:?}\n  the first {k} of full {:?}\n  are {:?}",
                key(&p),
                key(&pk),
                key(&f),
                key(&fk)
            ));
        }
    }
    // Decided from the instance's text, without its value, the verdict is the same: with
    // each container a subschema needs whole for its branches alone read into a value when
    // small (as `accepts_text` reads it), whatever its size, never (checked from its text,
    // branch by branch), and when it holds up to 2 values (a reading that stops short).
    let text = serde_json::to_string(instance).unwrap();
    for up_to in [None, Some(0), Some(2)] {
        let accepted = plain.accepts_text_reading_whole_up_to(&text, up_to);
        if accepted != p.is_empty() || plain.accepts_text(&text) != p.is_empty() {
            problems.push(format!(
                "schema {schema}\n  text {text}\n  accepts_text (read whole up to {up_to:?} \
                 values) {}, validate {:?}",
                !p.is_empty(),
                key(&p)
            ));
        }
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
                .compile_schema(schema)
                .unwrap_or_else(|e| panic!("{file}: plain but refused by the full validator: {e}"));
            plain_groups += 1;
            for test in group["tests"].as_array().unwrap() {
                tests += 1;
                let valid = compare(schema, &plain, &full, &test["data"], &mut problems);
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
    assert_no_differences(&problems);
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
    let mut tally = Tally::default();
    for schema in &corpus {
        let plain = PlainSchema::compile(schema).unwrap_or_else(|| panic!("not plain: {schema}"));
        let full = compiler.compile_schema(schema).unwrap();
        for _ in 0..400 {
            tally.check(schema, &plain, &full, &shaped(&mut rng, schema, 0));
        }
    }
    // Both outcomes are exercised.
    tally.assert_agreed(1000);
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
    let full = JsonSchemaCompiler::new().compile_schema(&schema).unwrap();
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
        compare(&schema, &plain, &full, &instance, &mut problems);
    }
    assert!(problems.is_empty(), "differences:\n{}", problems.join("\n"));
}

#[test]
fn what_is_not_plain_is_left_to_the_full_validator() {
    for schema in [
        json!({"type": "string", "pattern": "^\\p{L}+$"}),
        json!({"type": "string", "pattern": "^(?!x)"}),
        json!({"properties": {"a": {"pattern": "[a&&b]"}}}),
        json!({"pattern": 3}),
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

/// The suite's optional files of regular expressions (ECMA-262's classes and escapes, characters
/// outside the BMP): every group whose schema is plain gets the full validator's answers.
#[test]
fn plain_patterns_answer_the_optional_regex_files_as_the_full_validator_does() {
    let compiler = JsonSchemaCompiler::new();
    let (mut plain_groups, mut tests) = (0, 0);
    let mut problems = Vec::new();
    for name in ["ecmascript-regex.json", "non-bmp-regex.json"] {
        let file = suite_dir().join("tests/draft2020-12/optional").join(name);
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let groups: Value = serde_json::from_str(&text).unwrap();
        for group in groups.as_array().unwrap() {
            let schema = &group["schema"];
            let Some(plain) = PlainSchema::compile(schema) else {
                continue;
            };
            let full = compiler.compile_schema(schema).unwrap_or_else(|e| {
                panic!("{name}: plain but refused by the full validator: {schema}: {e}")
            });
            plain_groups += 1;
            for test in group["tests"].as_array().unwrap() {
                tests += 1;
                compare(schema, &plain, &full, &test["data"], &mut problems);
            }
        }
    }
    println!("optional regex files: plain {plain_groups} groups, {tests} tests");
    assert_no_differences(&problems);
    assert!(
        plain_groups >= 12 && tests >= 50,
        "{plain_groups} groups, {tests} tests"
    );
}

/// Patterns as zod and hand-written tool schemas have them, and ones made to probe each part
/// of the subset the engine checks itself: every one must be plain and must
/// give the full validator's answer for strings made from its own characters and from the
/// characters the engines could disagree on (white space, line terminators, non-ASCII
/// letters and digits, characters outside the BMP).
#[test]
fn plain_patterns_match_the_full_validator_string_by_string() {
    let patterns = [
        // zod 4's (z.toJSONSchema): email, uuid, guid, datetime, date, time, ipv4, ipv6, cuid,
        // ulid, nanoid, base64, e164, hex, startsWith, endsWith, includes, lowercase.
        r"^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$",
        r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$",
        r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$",
        r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z))$",
        r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))$",
        r"^(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?$",
        r"^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])$",
        r"^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))$",
        r"^[cC][0-9a-z]{6,}$",
        r"^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$",
        r"^[a-zA-Z0-9_-]{21}$",
        r"^$|^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$",
        r"^\+[1-9]\d{6,14}$",
        r"^[0-9a-fA-F]*$",
        r"^ab.*",
        r".*yz$",
        "mid",
        r"^[^A-Z]*$",
        // More of zod 4's: uuidv4, v6, v7, base64url, cuid2, mac, cidrv4, cidrv6, xid, ksuid, a
        // datetime with offsets and local times, one with milliseconds, a time to the second.
        r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12})$",
        r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-6[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12})$",
        r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12})$",
        r"^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$",
        r"^[0-9a-z]+$",
        r"^(?:[0-9A-F]{2}:){5}[0-9A-F]{2}$|^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$",
        r"^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\/([0-9]|[1-2][0-9]|3[0-2])$",
        r"^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))\/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$",
        r"^[0-9a-vA-V]{20}$",
        r"^[A-Za-z0-9]{27}$",
        r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d))|(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?)$",
        r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}(?:Z))$",
        r"^(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d$",
        // Hand-written ones.
        r"^[a-z]+$",
        r"^\d{3}-\d{4}$",
        r"^#[0-9a-fA-F]{6}$",
        r"^(?:red|green|blue)$",
        r"^[A-Z]{2}\d{2} ?\d{4}$",
        r"^https?://[^\s/$.?#].[^\s]*$",
        r"^\w+(\.\w+)*$",
        r"^[\w.-]+$",
        r"^\S+$",
        r"\s",
        r"^[^\s]*$",
        r"^\W*$",
        r"^\D+$",
        r"^.$",
        r"^..?$",
        r"a.c",
        r"^[^a]",
        r"^[-a]$|^[a-]$",
        r"^[\-\]\[\\]+$",
        r"^\^\$\\\.\*\+\?\(\)\[\]\{\}\|\/\-$",
        r"^\n\r\t\f\v$",
        r"^\x41\u00e9\u4e2d$",
        r"^[\x41-\x5a\u00c0-\u00ff]+$",
        r"^[é-ü]+$",
        r"^日本\d*$",
        r"^(a|ab)(c|bcd)(d*)$",
        r"^(?:a{2,3}){2}$",
        r"^a{0}b$",
        r"^a{3,}?$",
        r"^(a+)+$",
        r"a+b",
        r"^$",
        r"",
        r"x*",
        r"^(|a)b$",
        r"^ $",
        r"^[ ]+$",
        r"^[😀-😂]$",
        r"^.{2}$",
        r"#comment",
        r"^a&b~c$",
    ];
    let alphabet: Vec<char> = [
        "abcxyzABXYZ0123456789_-.:/@+=#$^*?()[]{}|\\ 'é日本😀😁\u{1F600}",
        "\t\n\u{b}\u{c}\r\u{a0}\u{1680}\u{2000}\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}",
        "\u{85}\u{180e}\u{200b}\u{0660}\u{0966}\u{ff10}\u{00c0}\u{00ff}\u{0100}",
    ]
    .concat()
    .chars()
    .collect();
    let compiler = JsonSchemaCompiler::new();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut tally = Tally::default();
    for pattern in patterns {
        let schema = json!({"type": "string", "pattern": pattern});
        let plain = PlainSchema::compile(&schema).unwrap_or_else(|| panic!("not plain: {pattern}"));
        let full = compiler
            .compile_schema(&schema)
            .unwrap_or_else(|e| panic!("{pattern}: {e}"));
        // The pattern's own characters (escapes read loosely: enough to build near-misses).
        let own: Vec<char> = pattern
            .chars()
            .filter(|c| !"\\^$()?:|{}*+".contains(*c))
            .collect();
        for i in 0..600 {
            let len = rng.below(if i % 3 == 0 { 40 } else { 12 }) as usize;
            let s: String = (0..len)
                .map(|_| {
                    if !own.is_empty() && rng.below(3) != 0 {
                        *rng.pick(&own)
                    } else {
                        *rng.pick(&alphabet)
                    }
                })
                .collect();
            tally.check(&schema, &plain, &full, &json!(s));
        }
        // Strings the patterns above are about.
        for s in [
            "",
            "a",
            "abc",
            "ab",
            "yz",
            "xyz",
            "mid",
            "red",
            "2026-02-29",
            "2024-02-29",
            "2026-11-30",
            "2026-11-30T12:30:00Z",
            "2026-11-30T12:30:00.5Z",
            "12:30",
            "12:30:59.25",
            "192.168.0.1",
            "256.1.1.1",
            "::1",
            "fe80::1",
            "2001:db8::8a2e:370:7334",
            "ada@example.com",
            "a.b@c.io",
            "x@y",
            "123e4567-e89b-12d3-a456-426614174000",
            "ckopqwooh000001la8mbi2im9",
            "01ARZ3NDEKTSV4RRFFQ69G5FAV",
            "V1StGXR8_Z5jdHi6B-myT",
            "aGVsbG8=",
            "+14155552671",
            "#ff00aa",
            "DE12 3456",
            "https://example.com/a",
            "a.b.c",
            "a\nb",
            "a\rc",
            "a\u{2028}c",
            "\u{a0}",
            "\u{feff}",
            "\u{85}",
            "😀",
            "😀😀",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
            "aab",
            "abcd",
            "abbcd",
            "aaaaaa",
            "b",
            "aaab",
            "日本12",
            "éü",
            "A",
            "Aé中",
            "#comment",
            "a&b~c",
            "^$\\.*+?()[]{}|/-",
            "\n\r\t\u{c}\u{b}",
            "AA:BB:CC:DD:EE:FF",
            "10.0.0.0/8",
            "::1/128",
            "2026-12-01T10:00:00+01:00",
            "2026-12-01T10:00:00.123Z",
        ] {
            tally.check(&schema, &plain, &full, &json!(s));
        }
    }
    tally.assert_agreed(2000);
}

/// A pattern of the subset the engine checks itself, made at random: atoms (characters, escapes,
/// classes, `.`), groups, alternatives, anchors and quantifiers.
fn random_pattern(rng: &mut Rng, depth: u32) -> String {
    const ATOMS: [&str; 24] = [
        "a",
        "b",
        "ab",
        "é",
        "😀",
        "-",
        " ",
        ".",
        r"\d",
        r"\D",
        r"\w",
        r"\W",
        r"\s",
        r"\S",
        r"\.",
        r"\-",
        r"\n",
        "[ab]",
        "[^a]",
        "[a-c]",
        r"[\d_]",
        r"[^\s]",
        "[-b]",
        r"[\u00e0-\u00ff]",
    ];
    let mut out = String::new();
    if rng.below(4) == 0 {
        out.push('^');
    }
    for _ in 0..1 + rng.below(4) {
        if depth < 3 && rng.below(4) == 0 {
            out.push_str(if rng.below(2) == 0 { "(" } else { "(?:" });
            out.push_str(&random_pattern(rng, depth + 1));
            if rng.below(3) == 0 {
                out.push('|');
                out.push_str(&random_pattern(rng, depth + 1));
            }
            out.push(')');
        } else {
            let atom: &&str = rng.pick(&ATOMS);
            out.push_str(atom);
        }
        const QUANTIFIERS: [&str; 11] = [
            "", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "+?", "{2,}",
        ];
        let quantifier: &&str = rng.pick(&QUANTIFIERS);
        out.push_str(quantifier);
    }
    if rng.below(3) == 0 {
        out.push('|');
        let atom: &&str = rng.pick(&ATOMS);
        out.push_str(atom);
    }
    if rng.below(4) == 0 {
        out.push('$');
    }
    out
}

/// Patterns made at random from the subset, each against strings of the characters they are
/// made of: the engine's own matcher and the full validator must agree on every one.
#[test]
fn random_patterns_of_the_subset_match_as_the_full_validator_does() {
    let compiler = JsonSchemaCompiler::new();
    let mut rng = Rng(0x51_7cc1_b727_220a);
    let alphabet: Vec<char> = "aabbcé😀- _.\n\t\u{a0}\u{85}0189xZ\u{e0}".chars().collect();
    let mut tally = Tally::default();
    for _ in 0..1500 {
        let pattern = random_pattern(&mut rng, 0);
        let schema = json!({"type": "string", "pattern": pattern});
        let plain = PlainSchema::compile(&schema).unwrap_or_else(|| panic!("not plain: {pattern}"));
        let full = compiler
            .compile_schema(&schema)
            .unwrap_or_else(|e| panic!("{pattern}: {e}"));
        for _ in 0..40 {
            let s: String = (0..rng.below(9)).map(|_| *rng.pick(&alphabet)).collect();
            tally.check(&schema, &plain, &full, &json!(s));
        }
    }
    tally.assert_agreed(10_000);
}

/// What `accepts_text` does not take is left to a value's `validate`: text that is not JSON,
/// trails more, escapes a lone surrogate or nests past the depth limit; a member name written
/// twice is checked each time (the value keeps the last), never more loosely than the value.
#[test]
fn accepts_text_leaves_what_it_cannot_decide_to_validate() {
    let plain = |s: Value| PlainSchema::compile(&s).unwrap();
    let any = plain(json!({}));
    assert!(any.accepts_text(r#"{"a": [1, {"b": null}]}"#));
    for text in ["", "{", r#"{"a": 1} 2"#, "[1,]", "nul"] {
        assert!(!any.accepts_text(text), "{text}");
    }
    // A lone surrogate, as JSON.stringify escapes it: serde_json does not read it here.
    let s = plain(json!({"type": "string"}));
    assert!(s.accepts_text(r#""\ud83d\ude00""#));
    assert!(!s.accepts_text(r#""\ud800""#));
    // Nested past the limit the walk takes (128 levels), and within it.
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(any.accepts_text(&deep(100)));
    assert!(!any.accepts_text(&deep(129)));
    let items = plain(json!({"items": {"anyOf": [{"type": "array"}, {"type": "null"}]}}));
    assert!(items.accepts_text(&format!("[{}]", deep(100))));
    assert!(!items.accepts_text(&format!("[{}]", deep(128))));
    // A name written twice: each value checked; `minProperties` counts the value's members.
    let typed = plain(json!({"properties": {"n": {"type": "integer"}}}));
    assert!(typed.accepts_text(r#"{"n": 1, "n": 2}"#));
    assert!(!typed.accepts_text(r#"{"n": "x", "n": 2}"#));
    let two = plain(json!({"minProperties": 2}));
    assert!(!two.accepts_text(r#"{"n": 1, "n": 2}"#));
    assert!(
        two.validate(&serde_json::from_str(r#"{"n": 1, "n": 2}"#).unwrap())
            .len()
            == 1
    );
    assert!(two.accepts_text(r#"{"n": 1, "m": 2}"#));
    // Escaped member names are read as names.
    let required = plain(
        json!({"required": ["a/b", "é"], "additionalProperties": false, "properties": {"a/b": true, "é": true}}),
    );
    assert!(required.accepts_text(r#"{"a\/b": 1, "\u00e9": 2}"#));
    assert!(!required.accepts_text(r#"{"a\/b": 1}"#));
}

/// A part needed whole for `const`, `enum` or `uniqueItems` is read into a value only while it
/// holds at most 10,000 values: past them the text is not shown valid (the caller reads it on
/// its own budget), where the unbounded reading accepts it. `propertyNames` and
/// `minProperties` are checked from the names, at any size.
#[test]
fn accepts_text_reads_a_part_whole_up_to_ten_thousand_values() {
    let plain = |s: Value| PlainSchema::compile(&s).unwrap();
    let numbers = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let unique = plain(json!({"properties": {"xs": {"type": "array", "uniqueItems": true}}}));
    // The array and its items: 10,000 values, then one more.
    for (n, shown) in [(9_999, true), (10_000, false)] {
        let text = format!(r#"{{"xs": [{}]}}"#, numbers(n));
        assert_eq!(unique.accepts_text(&text), shown, "{n}");
        assert!(unique.accepts_text_reading_whole_up_to(&text, None), "{n}");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert!(unique.validate(&value).is_empty());
    }
    let either = plain(json!({"items": {"enum": [[], 1]}}));
    let text = format!("[{}]", "[],".repeat(20_000) + "1");
    assert!(either.accepts_text(&text));
    let big = plain(json!({"enum": [[], 1]}));
    assert!(!big.accepts_text(&format!("[{}]", numbers(10_000))));
    // Names: 30,000 members, each name checked, the distinct ones counted.
    let names = plain(json!({
        "propertyNames": {"maxLength": 6}, "minProperties": 30_000,
        "additionalProperties": {"type": "array"}
    }));
    let members = |n: usize, name: &dyn Fn(usize) -> String| {
        let m = (0..n).map(|i| format!(r#""{}": []"#, name(i)));
        format!("{{{}}}", m.collect::<Vec<_>>().join(","))
    };
    assert!(names.accepts_text(&members(30_000, &|i| format!("k{i}"))));
    assert!(!names.accepts_text(&members(29_999, &|i| format!("k{i}"))));
    // A name written twice is one member.
    assert!(!names.accepts_text(&members(30_000, &|i| format!("k{}", i.min(29_998)))));
    assert!(!names.accepts_text(&members(30_000, &|i| format!("k{}", i * 10))));
}

/// A schema of the plain set made at random: keywords of every kind, combined and nested, with
/// the bounds and values where the checks' edges are (fractional and negative bounds, empty
/// lists, names needing escapes in a pointer), now and then `$defs` with `$ref`s into them.
fn random_schema(rng: &mut Rng, depth: u32, defs: &[&str]) -> Value {
    if depth > 3 || rng.below(8) == 0 {
        return match rng.below(4) {
            0 => json!(rng.below(3) != 0),
            1 if !defs.is_empty() => json!({ "$ref": format!("#/$defs/{}", rng.pick(defs)) }),
            _ => json!({ "type": rng.pick(&["string", "integer", "number", "null", "object"]) }),
        };
    }
    let names = ["a", "b", "n", "q", "x/y", "tags"];
    let bound = |rng: &mut Rng| {
        rng.pick(&[
            json!(0),
            json!(1),
            json!(2),
            json!(3),
            json!(2.5),
            json!(-1),
            json!(100),
        ])
        .clone()
    };
    let count = |rng: &mut Rng| json!(rng.below(4));
    let mut m = serde_json::Map::new();
    for _ in 0..1 + rng.below(4) {
        let (key, value) = match rng.below(26) {
            0 => (
                "type",
                match rng.below(3) {
                    0 => json!(["string", "null"]),
                    1 => json!(["integer", "string"]),
                    _ => json!(rng.pick(&[
                        "string", "integer", "number", "boolean", "array", "object", "null"
                    ])),
                },
            ),
            1 => ("enum", json!(["red", 1, null, [1], {"k": 2}, 2.0])),
            2 => ("const", any(rng, 2)),
            3 => ("minimum", bound(rng)),
            4 => ("maximum", bound(rng)),
            5 => ("exclusiveMinimum", bound(rng)),
            6 => ("exclusiveMaximum", bound(rng)),
            7 => ("multipleOf", json!(1 + rng.below(3))),
            8 => ("minLength", count(rng)),
            9 => ("maxLength", count(rng)),
            10 => (
                "pattern",
                json!(rng.pick(&["^a", "b$", "^[a-c]+$", "é|😀", "^.{2}$"])),
            ),
            11 => ("minItems", count(rng)),
            12 => ("maxItems", count(rng)),
            13 => ("uniqueItems", json!(rng.below(2) == 0)),
            14 => ("minProperties", count(rng)),
            15 => ("maxProperties", count(rng)),
            16 => (
                "required",
                json!((0..rng.below(3))
                    .map(|_| *rng.pick(&names))
                    .collect::<Vec<_>>()),
            ),
            17 | 18 => {
                let mut props = serde_json::Map::new();
                for _ in 0..1 + rng.below(3) {
                    props.insert(
                        (*rng.pick(&names)).to_owned(),
                        random_schema(rng, depth + 1, defs),
                    );
                }
                ("properties", Value::Object(props))
            }
            19 => ("additionalProperties", random_schema(rng, depth + 1, defs)),
            20 => ("items", random_schema(rng, depth + 1, defs)),
            21 => (
                "prefixItems",
                json!((0..1 + rng.below(2))
                    .map(|_| random_schema(rng, depth + 1, defs))
                    .collect::<Vec<_>>()),
            ),
            22 => ("propertyNames", json!({"maxLength": rng.below(3)})),
            23 => ("not", random_schema(rng, depth + 1, defs)),
            24 => {
                m.insert("if".into(), random_schema(rng, depth + 1, defs));
                if rng.below(3) != 0 {
                    m.insert("then".into(), random_schema(rng, depth + 1, defs));
                }
                ("else", random_schema(rng, depth + 1, defs))
            }
            _ => (
                *rng.pick(&["anyOf", "oneOf", "allOf"]),
                json!((0..1 + rng.below(3))
                    .map(|_| random_schema(rng, depth + 1, defs))
                    .collect::<Vec<_>>()),
            ),
        };
        m.insert(key.to_owned(), value);
    }
    Value::Object(m)
}

/// Schemas made at random from the plain set, each against instances shaped like it and
/// instances of any shape: the engine's own checks and the full validator must report the same
/// violations for every one.
#[test]
fn random_schemas_of_the_plain_set_match_the_full_validator() {
    let compiler = JsonSchemaCompiler::new();
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    let mut tally = Tally::default();
    let mut plain_ones = 0;
    for i in 0..3000 {
        let defs: &[&str] = if i % 3 == 0 { &["d0", "d1"] } else { &[] };
        let mut schema = random_schema(&mut rng, 0, defs);
        if let (false, Value::Object(m)) = (defs.is_empty(), &mut schema) {
            let d0 = random_schema(&mut rng, 2, &[]);
            let d1 = random_schema(&mut rng, 1, &["d0"]);
            m.insert("$defs".into(), json!({"d0": d0, "d1": d1}));
        }
        let Some(plain) = PlainSchema::compile(&schema) else {
            continue;
        };
        plain_ones += 1;
        let full = compiler
            .compile_schema(&schema)
            .unwrap_or_else(|e| panic!("{schema}: {e}"));
        for j in 0..40 {
            let instance = if j % 4 == 0 {
                any(&mut rng, 0)
            } else {
                shaped(&mut rng, &schema, 0)
            };
            tally.check(&schema, &plain, &full, &instance);
        }
    }
    assert!(plain_ones > 2000, "{plain_ones} of 3,000 were plain");
    tally.assert_agreed(10_000);
}

/// `value` as JSON text written in one of the many ways JSON allows, chosen at random: spaces
/// between the tokens, numbers with a fraction or an exponent (`3` as `3.0`, `30e-1`, `0.3E+1`),
/// characters of strings and names as `\u` escapes, `/` as `\/`.
fn spelled(rng: &mut Rng, value: &Value, out: &mut String) {
    let space = |rng: &mut Rng, out: &mut String| {
        const SPACES: [&str; 6] = ["", "", " ", "\n", "\t ", "\r\n"];
        let spaces: &&str = rng.pick(&SPACES);
        out.push_str(spaces);
    };
    let string = |rng: &mut Rng, s: &str, out: &mut String| {
        out.push('"');
        for c in s.chars() {
            match (c, rng.below(4)) {
                ('"' | '\\', _) | ('\u{0}'..='\u{1f}', _) => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                ('/', 0) => out.push_str("\\/"),
                (c, 0) if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04X}", c as u32)),
                (c, 0) => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{u:04x}"));
                    }
                }
                (c, _) => out.push(c),
            }
        }
        out.push('"');
    };
    space(rng, out);
    match value {
        Value::Number(n) => match (n.as_i64(), rng.below(5)) {
            (Some(i), 0) => out.push_str(&format!("{i}.0")),
            (Some(i), 1) if i != 0 => out.push_str(&format!("{i}0e-1")),
            (Some(i), 2) if i >= 0 => out.push_str(&format!("0.{i}E+{}", i.to_string().len())),
            (Some(i), 3) => out.push_str(&format!("{i}e0")),
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => string(rng, s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                spelled(rng, item, out);
            }
            space(rng, out);
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (name, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(rng, out);
                string(rng, name, out);
                space(rng, out);
                out.push(':');
                spelled(rng, item, out);
            }
            space(rng, out);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
    space(rng, out);
}

/// The verdict read from the text is the value's, however the text spells the value: random
/// plain schemas, instances shaped like them written in the ways JSON allows.
#[test]
fn accepts_text_decides_as_validate_whatever_the_spelling() {
    let mut rng = Rng(0xbb67_ae85_84ca_a73b);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..2000 {
        let schema = random_schema(&mut rng, 0, &[]);
        let Some(plain) = PlainSchema::compile(&schema) else {
            continue;
        };
        for _ in 0..20 {
            let instance = shaped(&mut rng, &schema, 0);
            let mut text = String::new();
            spelled(&mut rng, &instance, &mut text);
            let value: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let valid = plain.validate(&value).is_empty();
            assert_eq!(
                plain.accepts_text(&text),
                valid,
                "schema {schema}\n  text {text}\n  violations {:?}",
                key(&plain.validate(&value))
            );
            // Containers the branches decide read whole, found in the text and checked
            // from there (its spaces, a name's escapes skipped over), or read in part first.
            for up_to in [None, Some(0), Some(2)] {
                assert_eq!(
                    plain.accepts_text_reading_whole_up_to(&text, up_to),
                    valid,
                    "read whole up to {up_to:?} values: schema {schema}\n  text {text}"
                );
            }
            if valid {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(
        accepted > 5000 && refused > 5000,
        "{accepted} accepted, {refused} refused"
    );
}

use super::*;
use crate::server::{CompiledSchema, SchemaCompiler, SchemaViolation};
use serde_json::{json, Value};

fn compile(schema: &Value) -> std::rc::Rc<dyn CompiledSchema> {
    match JsonSchemaCompiler::new().compile(schema) {
        Ok(compiled) => compiled,
        Err(message) => panic!("schema {schema} did not compile: {message}"),
    }
}

fn compile_error(compiler: &JsonSchemaCompiler, schema: &Value) -> String {
    match compiler.compile(schema) {
        Ok(_) => panic!("schema {schema} compiled but should not have"),
        Err(message) => message,
    }
}

fn only(violations: Vec<SchemaViolation>) -> SchemaViolation {
    assert_eq!(
        violations.len(),
        1,
        "expected one violation: {violations:?}"
    );
    violations.into_iter().next().unwrap()
}

#[test]
fn required_violation_names_path_keyword_and_property() {
    let schema = compile(&json!({"type": "object", "required": ["query"]}));
    let violation = only(schema.validate(&json!({})));
    assert_eq!(violation.instance_path, "");
    assert_eq!(violation.keyword, "required");
    assert_eq!(violation.schema_path, "/required");
    assert!(violation.message.contains("query"), "{}", violation.message);
    assert!(violation.describe().starts_with("(root): "));
}

#[test]
fn type_violation_at_nested_path() {
    let schema = compile(&json!({
        "type": "object",
        "properties": {
            "a": {"type": "array", "items": {"properties": {"b": {"type": "integer"}}}}
        }
    }));
    let violation = only(schema.validate(&json!({"a": [{"b": "x"}]})));
    assert_eq!(violation.instance_path, "/a/0/b");
    assert_eq!(violation.keyword, "type");
    assert_eq!(
        violation.schema_path,
        "/properties/a/items/properties/b/type"
    );
    assert!(
        violation.message.contains("integer"),
        "{}",
        violation.message
    );
    assert!(violation.describe().starts_with("/a/0/b: "));
}

#[test]
fn every_violation_is_reported_with_its_keyword() {
    let schema = compile(&json!({
        "properties": {
            "n": {"minimum": 5},
            "s": {"pattern": "^a"},
            "e": {"enum": [1, 2]},
            "c": {"const": "x"},
            "o": {"additionalProperties": false},
            "f": false
        },
        "required": ["r"]
    }));
    let violations =
        schema.validate(&json!({"n": 1, "s": "b", "e": 3, "c": "y", "o": {"z": 1}, "f": 0}));
    let mut keywords: Vec<&str> = violations.iter().map(|v| v.keyword.as_str()).collect();
    keywords.sort_unstable();
    assert_eq!(
        keywords,
        [
            "additionalProperties",
            "const",
            "enum",
            "minimum",
            "pattern",
            "properties",
            "required"
        ]
    );
}

#[test]
fn keyword_is_the_one_the_schema_author_wrote() {
    let cases = [
        (
            json!({"dependentRequired": {"a": ["b"]}}),
            json!({"a": 1}),
            "dependentRequired",
        ),
        (
            json!({"contains": {"type": "string"}, "minContains": 2}),
            json!(["a", 1]),
            "minContains",
        ),
        (
            json!({"propertyNames": {"maxLength": 1}}),
            json!({"abc": 1}),
            "propertyNames",
        ),
        (
            json!({"unevaluatedProperties": false}),
            json!({"y": 1}),
            "unevaluatedProperties",
        ),
        (
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            json!(1.5),
            "oneOf",
        ),
        (
            json!({"if": {"type": "string"}, "then": {"minLength": 3}}),
            json!("a"),
            "minLength",
        ),
        (json!({"uniqueItems": true}), json!([1, 1]), "uniqueItems"),
        (
            json!({"properties": {"a/b": false}}),
            json!({"a/b": 1}),
            "properties",
        ),
        (
            json!({"$defs": {"p": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/p"}}}),
            json!({"a": 1}),
            "type",
        ),
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}),
            json!({"a": 1}),
            "dependencies",
        ),
    ];
    for (schema, instance, keyword) in cases {
        let violation = only(compile(&schema).validate(&instance));
        assert_eq!(violation.keyword, keyword, "{schema}");
    }
}

#[test]
fn false_schema_keyword_is_the_keyword_that_held_it() {
    let schema = compile(&json!({"items": false, "prefixItems": [true]}));
    let violation = only(schema.validate(&json!([1, 2])));
    assert_eq!(violation.keyword, "items");
    assert_eq!(violation.instance_path, "/1");
    let root = only(compile(&json!(false)).validate(&json!(1)));
    assert_eq!(root.keyword, "false");
}

#[test]
fn valid_instance_has_no_violations() {
    let schema = compile(&json!({"type": "object", "properties": {"q": {"type": "string"}}}));
    assert!(schema.validate(&json!({"q": "text"})).is_empty());
}

#[test]
fn zero_fraction_float_is_an_integer() {
    let schema = compile(&json!({"type": "integer", "multipleOf": 1}));
    assert!(schema.validate(&json!(1.0)).is_empty());
    assert!(schema.validate(&json!(-3.0)).is_empty());
    let keywords: Vec<String> = schema
        .validate(&json!(1.5))
        .into_iter()
        .map(|v| v.keyword)
        .collect();
    assert_eq!(keywords, ["type", "multipleOf"]);
}

#[test]
fn invalid_schema_message_names_the_place() {
    let compiler = JsonSchemaCompiler::new();
    let message = compile_error(&compiler, &json!({"type": 12}));
    assert!(message.contains("/type"), "{message}");
    let message = compile_error(&compiler, &json!({"minimum": "x"}));
    assert!(
        message.contains("/minimum") && message.contains("number"),
        "{message}"
    );
    let message = compile_error(&compiler, &json!(12));
    assert!(message.starts_with("invalid schema"), "{message}");
}

#[test]
fn unknown_schema_uri_is_refused_by_name() {
    let compiler = JsonSchemaCompiler::new();
    let message = compile_error(
        &compiler,
        &json!({"$schema": "https://example.com/my-dialect"}),
    );
    assert!(message.contains("unknown $schema"), "{message}");
    assert!(
        message.contains("https://example.com/my-dialect"),
        "{message}"
    );
}

#[test]
fn default_dialect_is_2020_12() {
    let compiler = JsonSchemaCompiler::new();
    // Draft 4's boolean `exclusiveMaximum` is not a 2020-12 schema.
    let message = compile_error(&compiler, &json!({"maximum": 10, "exclusiveMaximum": true}));
    assert!(message.contains("/exclusiveMaximum"), "{message}");
    // The array form of `items` is not either.
    compile_error(&compiler, &json!({"items": [{"type": "integer"}]}));
}

#[test]
fn schema_selects_draft_4() {
    let schema = compile(&json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 10,
        "exclusiveMaximum": true
    }));
    assert!(schema.validate(&json!(9)).is_empty());
    let violation = only(schema.validate(&json!(10)));
    assert_eq!(violation.keyword, "exclusiveMaximum");
}

#[test]
fn schema_selects_draft_6_and_7() {
    for uri in [
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-07/schema#",
    ] {
        let schema = compile(&json!({
            "$schema": uri,
            "items": [{"type": "integer"}],
            "additionalItems": false
        }));
        assert!(schema.validate(&json!([1])).is_empty());
        let violation = only(schema.validate(&json!([1, 2])));
        assert_eq!(violation.keyword, "additionalItems", "{uri}");
        assert_eq!(only(schema.validate(&json!(["x"]))).instance_path, "/0");
    }
}

#[test]
fn schema_selects_2019_09_and_explicit_2020_12() {
    let dependent = json!({"dependentRequired": {"a": ["b"]}});
    let with = |uri: &str| {
        let mut schema = dependent.clone();
        schema["$schema"] = json!(uri);
        compile(&schema)
    };
    let draft201909 = with("https://json-schema.org/draft/2019-09/schema");
    assert_eq!(
        only(draft201909.validate(&json!({"a": 1}))).keyword,
        "dependentRequired"
    );
    let draft202012 = with("https://json-schema.org/draft/2020-12/schema");
    assert_eq!(draft202012.validate(&json!({"a": 1})).len(), 1);
    // Draft 7 does not know `dependentRequired`: an unknown keyword, ignored.
    let draft7 = with("http://json-schema.org/draft-07/schema#");
    assert!(draft7.validate(&json!({"a": 1})).is_empty());
}

#[test]
fn default_dialect_can_be_changed() {
    let compiler = JsonSchemaCompiler::new().with_default_dialect(Dialect::Draft7);
    let schema = compiler
        .compile(&json!({"items": [{"type": "integer"}]}))
        .unwrap();
    assert_eq!(only(schema.validate(&json!(["x"]))).instance_path, "/0");
    // `$schema` still wins over the default.
    let message = compile_error(
        &compiler,
        &json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "items": [true]}),
    );
    assert!(message.contains("/items"), "{message}");
}

#[test]
fn dialect_names_and_uris_round_trip() {
    for dialect in Dialect::ALL {
        assert_eq!(
            Dialect::from_schema_uri(dialect.schema_uri()),
            Some(dialect)
        );
        assert_eq!(Dialect::from_name(dialect.name()), Some(dialect));
    }
    assert_eq!(Dialect::from_schema_uri("http://example.com/"), None);
    assert_eq!(Dialect::default(), Dialect::Draft202012);
}

#[test]
fn format_is_an_annotation_unless_asserted() {
    let email = json!({"format": "email"});
    for dialect in [Dialect::Draft7, Dialect::Draft202012] {
        let compiler = JsonSchemaCompiler::new().with_default_dialect(dialect);
        let annotated = compiler.compile(&email).unwrap();
        assert!(
            annotated.validate(&json!("not an email")).is_empty(),
            "{dialect}"
        );
        let asserted = compiler
            .with_format_assertion(true)
            .compile(&email)
            .unwrap();
        assert_eq!(
            only(asserted.validate(&json!("not an email"))).keyword,
            "format"
        );
        assert!(asserted.validate(&json!("a@example.com")).is_empty());
    }
}

#[test]
fn external_reference_without_registration_is_a_clear_error() {
    let compiler = JsonSchemaCompiler::new();
    let message = compile_error(&compiler, &json!({"$ref": "https://example.com/item.json"}));
    assert!(
        message.contains("https://example.com/item.json"),
        "{message}"
    );
    assert!(message.contains("unresolvable reference"), "{message}");
    let message = compile_error(&compiler, &json!({"$ref": "#/$defs/missing"}));
    assert!(message.contains("/$defs/missing"), "{message}");
}

#[test]
fn registered_documents_resolve() {
    let compiler = JsonSchemaCompiler::new()
        .with_resources(vec![
            (
                "https://example.com/item.json".to_owned(),
                json!({"type": "integer"}),
            ),
            (
                "https://example.com/defs.json".to_owned(),
                json!({"$defs": {"name": {"type": "string", "minLength": 1}}}),
            ),
        ])
        .unwrap();
    let schema = compiler
        .compile(&json!({
            "properties": {
                "n": {"$ref": "https://example.com/item.json"},
                "s": {"$ref": "https://example.com/defs.json#/$defs/name"}
            }
        }))
        .unwrap();
    assert!(schema.validate(&json!({"n": 1, "s": "x"})).is_empty());
    let violations = schema.validate(&json!({"n": "x", "s": ""}));
    let paths: Vec<&str> = violations
        .iter()
        .map(|v| v.instance_path.as_str())
        .collect();
    assert_eq!(paths.len(), 2, "{violations:?}");
    assert!(paths.contains(&"/n") && paths.contains(&"/s"));
}

#[test]
fn deep_registered_document_is_refused() {
    let error = JsonSchemaCompiler::new()
        .with_resources(vec![(
            "https://example.com/deep".to_owned(),
            nested_schema(200),
        )])
        .unwrap_err();
    assert!(
        error.contains("https://example.com/deep") && error.contains("levels"),
        "{error}"
    );
}

#[test]
fn bad_registration_is_refused() {
    let error = JsonSchemaCompiler::new()
        .with_resources(vec![("not a uri".to_owned(), json!({}))])
        .unwrap_err();
    assert!(error.contains("not a uri"), "{error}");
}

/// A compiler with a 2020-12 meta-schema registered at `meta`, of the core and applicator
/// vocabularies and, if `validation`, the validation vocabulary.
fn with_meta_schema(meta: &str, validation: bool) -> JsonSchemaCompiler {
    let mut vocabulary = json!({
        "https://json-schema.org/draft/2020-12/vocab/core": true,
        "https://json-schema.org/draft/2020-12/vocab/applicator": true
    });
    if validation {
        vocabulary["https://json-schema.org/draft/2020-12/vocab/validation"] = json!(true);
    }
    JsonSchemaCompiler::new()
        .with_resources(vec![(
            meta.to_owned(),
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$id": meta,
                "$vocabulary": vocabulary,
                "$dynamicAnchor": "meta",
                "allOf": [{"$ref": "https://json-schema.org/draft/2020-12/meta/core"}]
            }),
        )])
        .unwrap()
}

#[test]
fn registered_meta_schema_may_be_named_by_schema() {
    let meta = "https://example.com/meta";
    let compiler = with_meta_schema(meta, true);
    let schema = compiler
        .compile(&json!({"$schema": meta, "minimum": 3}))
        .unwrap();
    assert_eq!(only(schema.validate(&json!(2))).keyword, "minimum");
}

/// Builds `{"properties": {"a": … {"type": "integer"}}}` nested `levels` schemas deep
/// (two JSON levels per schema), without recursion.
fn nested_schema(levels: usize) -> Value {
    let mut schema = json!({"type": "integer"});
    for _ in 0..levels {
        schema = json!({"type": "object", "properties": {"a": schema}, "required": ["a"]});
    }
    schema
}

/// Builds `{"a": {"a": … 1}}` nested `levels` deep.
fn nested_instance(levels: usize) -> Value {
    let mut instance = json!(1);
    for _ in 0..levels {
        instance = json!({"a": instance});
    }
    instance
}

#[test]
fn nesting_within_the_limit_validates() {
    // Two JSON levels per schema, plus the innermost schema.
    let levels = (DEFAULT_MAX_DEPTH - 1) / 2;
    let schema = compile(&nested_schema(levels));
    assert!(schema.validate(&nested_instance(levels)).is_empty());
    let violation = only(schema.validate(&nested_instance(levels - 1)));
    assert_eq!(violation.keyword, "type");
    assert_eq!(violation.instance_path.matches("/a").count(), levels - 1);
}

#[test]
fn nesting_beyond_the_limit_is_refused_not_overflowed() {
    let compiler = JsonSchemaCompiler::new();
    // 200 schemas = 400 JSON levels.
    let message = compile_error(&compiler, &nested_schema(200));
    assert!(message.contains("128 levels"), "{message}");

    // A recursive schema meets an instance 200 levels deep.
    let tree = compile(&json!({
        "anyOf": [
            {"type": "integer"},
            {"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]}
        ]
    }));
    let violation = only(tree.validate(&nested_instance(200)));
    assert_eq!(violation.keyword, DEPTH_KEYWORD);
    assert!(tree.validate(&nested_instance(100)).is_empty());

    // Deep arrays in data positions (`const`, `enum`) are held to the same limit.
    let mut deep = json!(0);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    compile_error(&compiler, &json!({"const": deep}));
}

#[test]
fn hostile_inputs_do_not_panic() {
    let compiler = JsonSchemaCompiler::new();
    let schemas = [
        json!(null),
        json!("string"),
        json!([]),
        json!({"$ref": ""}),
        json!({"$ref": "#"}),
        json!({"$ref": "#/definitions/none"}),
        json!({"$ref": 5}),
        json!({"$ref": "::::"}),
        json!({"$id": "::not a uri::"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"pattern": "("}),
        json!({"pattern": "(a+)+$"}),
        json!({"patternProperties": {"[": {}}}),
        json!({"multipleOf": 0}),
        json!({"multipleOf": 1e-308}),
        json!({"$schema": null}),
        json!({"$dynamicRef": "#nowhere"}),
        json!({"format": "no-such-format"}),
        json!({"type": ["integer", "integer"]}),
        json!({"enum": []}),
        json!({"maxLength": 1.5}),
        json!({"minimum": 1e308, "maximum": -1e308}),
    ];
    let instances = [
        json!(null),
        json!(1e308),
        json!(-0.0),
        json!("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"),
        json!({"a": [1, {"b": null}]}),
        json!([1, 1.0, "1"]),
    ];
    for schema in &schemas {
        if let Ok(compiled) = compiler.compile(schema) {
            for instance in &instances {
                let _ = compiled.validate(instance);
            }
        }
    }
}

/// A value of the kinds that hash alike in the crate's `uniqueItems` (arrays of arrays, a
/// number and the arrays holding it) or are equal without being written alike (`1` and `1.0`,
/// members in another order), so that repeats are frequent.
fn alike_value(rng: &mut crate::test_rng::Rng, depth: usize) -> Value {
    match rng.below(if depth == 0 { 4 } else { 7 }) {
        0 => json!(1),
        1 => json!(1.0),
        2 => json!(-0.0),
        3 => json!("a"),
        4 => Value::Array(
            (0..rng.below(3))
                .map(|_| alike_value(rng, depth - 1))
                .collect(),
        ),
        5 => json!({"a": alike_value(rng, depth - 1), "b": 0}),
        _ => json!({"b": 0, "a": alike_value(rng, depth - 1)}),
    }
}

#[test]
fn unique_items_agrees_with_the_crates_own_keyword() {
    // The crate's own `uniqueItems`, kept where a document declares `$vocabulary`.
    let schema = json!({"type": "array", "uniqueItems": true});
    let theirs = jsonschema::validator_for(&schema).unwrap();
    let ours = compile(&schema);
    let mut rng = crate::test_rng::Rng(0x5eed_0f11);
    let (mut repeated, mut distinct) = (0, 0);
    for _ in 0..3_000 {
        let len = rng.below(24);
        let items: Vec<Value> = (0..len).map(|_| alike_value(&mut rng, 3)).collect();
        let instance = Value::Array(items);
        let violations = ours.validate(&instance);
        // (Shortened as every violation's message is.)
        let expected = theirs.validate(&instance).err().map(|e| {
            SchemaViolation::new(String::new(), String::new(), String::new(), e.to_string()).message
        });
        assert_eq!(
            violations.first().map(|v| v.message.clone()),
            expected,
            "{instance}"
        );
        if let Some(v) = violations.first() {
            assert_eq!(
                (v.keyword.as_str(), v.schema_path.as_str()),
                ("uniqueItems", "/uniqueItems")
            );
            repeated += 1;
        } else {
            distinct += 1;
        }
    }
    // Both answers were met often, past the crate's pairwise threshold (15) too.
    assert!(repeated > 500 && distinct > 500, "{repeated} {distinct}");
}

#[test]
fn unique_items_of_items_that_hash_alike_are_decided() {
    // Each item is its index's bits as `[]` and `[[]]`: no two equal, and none writes
    // anything to the crate's hash.
    let items: Vec<Value> = (0..20_000)
        .map(|i: u32| {
            Value::Array(
                (0..15)
                    .map(|bit| {
                        if i >> bit & 1 == 1 {
                            json!([[]])
                        } else {
                            json!([])
                        }
                    })
                    .collect(),
            )
        })
        .collect();
    let schema = compile(&json!({"uniqueItems": true}));
    assert!(schema.validate(&Value::Array(items.clone())).is_empty());
    let mut again = items;
    again.push(again[12_345].clone());
    let violation = only(schema.validate(&Value::Array(again)));
    assert_eq!(violation.keyword, "uniqueItems");
    assert!(
        violation.message.ends_with("has non-unique elements"),
        "{}",
        violation.message
    );
    // `false`, and a subschema's `uniqueItems`, as before.
    assert!(compile(&json!({"uniqueItems": false}))
        .validate(&json!([1, 1]))
        .is_empty());
    let nested = only(
        compile(&json!({"properties": {"a": {"uniqueItems": true}}}))
            .validate(&json!({"a": [[1], [1.0]]})),
    );
    assert_eq!(
        (nested.instance_path.as_str(), nested.schema_path.as_str()),
        ("/a", "/properties/a/uniqueItems")
    );
}

#[test]
fn unique_items_follows_a_meta_schema_without_the_validation_vocabulary() {
    let meta = "https://example.com/no-validation";
    let compiler = with_meta_schema(meta, false);
    let schema = compiler
        .compile(&json!({"$schema": meta, "uniqueItems": true}))
        .unwrap();
    // Not a keyword of that dialect: an annotation.
    assert!(schema.validate(&json!([1, 1])).is_empty());
    // The standard dialect with the same compiler checks it.
    let standard = compiler.compile(&json!({"uniqueItems": true})).unwrap();
    assert_eq!(
        only(standard.validate(&json!([1, 1]))).keyword,
        "uniqueItems"
    );
}

#[test]
fn a_schema_whose_patterns_may_backtrack_is_reported_to_its_first_violation() {
    let may_backtrack = |schema: &Value| {
        let mut holds = super::compiler::Holds::default();
        holds.add(schema);
        holds.backtracking
    };
    for (pattern, backtracks) in [
        (r"^(a|a)+\1$", true),
        (r"^(?<w>a)\k<w>$", true),
        ("^a(?=b)", true),
        ("^a(?!b)", true),
        ("(?<=a)b", true),
        ("(?<!a)b", true),
        (r"^\d{3}(a|b)+$", false),
        (r"^\\1$", true), // (a literal backslash and 1: found, the report only shorter)
        ("^[a-z]+$", false),
    ] {
        let schema = json!({"items": {"pattern": pattern}});
        assert_eq!(may_backtrack(&schema), backtracks, "{pattern}");
        let names = json!({"patternProperties": {pattern: {}}});
        assert_eq!(may_backtrack(&names), backtracks, "{pattern}");
    }
    // An array of strings that each take the match nearly to its limit, and fail: the first
    // is reported, and the rest are not matched.
    let strings: Vec<Value> = (0..2_000).map(|_| json!("aaaaaaaaaaaaaaaaa!")).collect();
    let schema = compile(&json!({"items": {"type": "string", "pattern": r"^(a|a)+\1$"}}));
    let violation = only(schema.validate(&Value::Array(strings)));
    assert_eq!(
        (violation.instance_path.as_str(), violation.keyword.as_str()),
        ("/0", "pattern")
    );
    // Without such a pattern, every violation up to the bound, as before.
    let plain = compile(&json!({"items": {"type": "string", "pattern": "^b"}}));
    let strings: Vec<Value> = (0..40).map(|_| json!("a")).collect();
    assert_eq!(plain.validate(&Value::Array(strings)).len(), 32);
    // A registered document's pattern counts too.
    let compiler = JsonSchemaCompiler::new()
        .with_resources(vec![(
            "https://example.com/word".to_owned(),
            json!({"type": "string", "pattern": r"^(a|a)+\1$"}),
        )])
        .unwrap();
    let schema = compiler
        .compile(&json!({"items": {"$ref": "https://example.com/word"}}))
        .unwrap();
    let strings: Vec<Value> = (0..40).map(|_| json!("b")).collect();
    assert_eq!(schema.validate(&Value::Array(strings)).len(), 1);
}

#[test]
fn matches_that_backtrack_share_one_time_budget_per_instance() {
    // Each string takes tens of thousands of steps to match (the first alternative fails
    // after trying every way to split the `a`s; the second matches): well under one match's
    // limit, and far over the budget once there are thousands of them.
    let slow = "a".repeat(16);
    let many = |n: usize| Value::Array((0..n).map(|_| json!(slow)).collect());
    let schema = compile(&json!({"items": {"type": "string", "pattern": r"^(?:(a|a)+\1x|a+)$"}}));
    assert_eq!(
        schema.validate(&many(3)),
        Vec::new(),
        "a few such strings pass"
    );
    let refused = only(schema.validate(&many(20_000)));
    assert_eq!(refused.keyword, "pattern");
    assert!(
        refused.message.contains("took more than 500 ms"),
        "{}",
        refused.message
    );
    // The next instance has a budget of its own.
    assert_eq!(schema.validate(&many(3)), Vec::new());
    // One string past a match's step limit (a count of steps, the same on every machine).
    let over = only(schema.validate(&json!(["a".repeat(20)])));
    assert_eq!(
        over.message,
        "Error executing regex: a match took more than 1000000 steps of backtracking"
    );

    // A match the budget refused is no answer, even where a failed match would pass: under
    // `not`, each string fails the pattern (slowly) and so is valid, until the budget is spent;
    // the instance is then invalid, not valid.
    let negated = compile(&json!({"items": {"not": {"pattern": r"^(a|a)+\1x$"}}}));
    assert_eq!(negated.validate(&many(3)), Vec::new());
    let refused = only(negated.validate(&many(20_000)));
    assert_eq!(
        (refused.keyword.as_str(), refused.instance_path.as_str()),
        ("pattern", "")
    );
    assert!(refused.message.contains("Error executing regex"));
    assert_eq!(negated.validate(&many(3)), Vec::new());

    // A pattern the crate would not compile is refused here too, and a pattern in a schema
    // without backtracking is the crate's own.
    let compiler = JsonSchemaCompiler::new();
    assert!(compiler
        .compile(&json!({"pattern": "(?=a)(", "items": {}}))
        .is_err());
    let plain = compile(&json!({"items": {"pattern": "^a+$"}}));
    assert_eq!(plain.validate(&many(20_000)), Vec::new());
}

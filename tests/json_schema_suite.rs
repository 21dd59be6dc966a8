//! The official JSON-Schema-Test-Suite, natively: every required test of draft 2020-12 and
//! draft 7 must give the suite's answer, except those listed in
//! `tests/json_schema_known_failures.txt` — and every listed test must still fail, so the
//! list only shrinks.
//!
//! The suite is read from `$JSON_SCHEMA_TEST_SUITE`, or from
//! `../shared/spec/json-schema-test-suite` next to the crate.

use modelcontext_polyfill::schema::suite::{self, DialectReport};
use modelcontext_polyfill::schema::Dialect;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const DIALECTS: [Dialect; 2] = [Dialect::Draft202012, Dialect::Draft7];

fn suite_dir() -> PathBuf {
    match std::env::var_os("JSON_SCHEMA_TEST_SUITE") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/json-schema-test-suite"),
    }
}

/// The suite's files under `root` ([`suite::read_tree`]); a file that cannot be read fails
/// the test.
fn read_tree(root: &Path) -> Vec<(String, Value)> {
    suite::read_tree(root).unwrap_or_else(|error| panic!("{error}"))
}

fn run(dialect: Dialect) -> DialectReport {
    let dir = suite_dir();
    assert!(
        dir.join("tests").is_dir(),
        "the JSON-Schema-Test-Suite is not at {} (set JSON_SCHEMA_TEST_SUITE)",
        dir.display()
    );
    let remotes = read_tree(&dir.join("remotes"));
    let files = read_tree(&dir.join("tests").join(dialect.name()));
    assert!(!files.is_empty(), "no test files for {dialect}");
    suite::run_dialect(dialect, &files, &remotes)
        .unwrap_or_else(|error| panic!("{dialect}: cannot register the remotes: {error}"))
}

/// The ids in the known-failures list.
fn known_failures() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json_schema_known_failures.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (id, reason) = line.split_once(" # ").unwrap_or((line, ""));
            assert!(
                !reason.trim().is_empty(),
                "known failure without a reason: {line}"
            );
            id.trim().to_owned()
        })
        .collect()
}

#[test]
fn required_tests_pass_except_known_failures() {
    let known = known_failures();
    let mut failing = BTreeSet::new();
    let mut details = Vec::new();
    for dialect in DIALECTS {
        let report = run(dialect);
        println!(
            "{dialect}: {} passed, {} failed",
            report.required.passed, report.required.failed
        );
        assert!(report.required.passed > 0, "{dialect}: no tests ran");
        for failure in report.required.failures {
            details.push(format!("{}\n    {}", failure.id, failure.detail));
            failing.insert(failure.id);
        }
    }
    let new: Vec<&String> = failing.difference(&known).collect();
    let fixed: Vec<&String> = known.difference(&failing).collect();
    assert!(
        new.is_empty(),
        "tests fail that are not in tests/json_schema_known_failures.txt:\n{}",
        details
            .iter()
            .filter(|detail| new.iter().any(|id| detail.starts_with(id.as_str())))
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        fixed.is_empty(),
        "listed as known failures but now pass; remove them from \
         tests/json_schema_known_failures.txt:\n{}",
        fixed
            .iter()
            .map(|id| id.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Optional tests are not required, but a new kind of failure among them should be seen.
/// The ones that fail are the internationalized formats (`idn-hostname`, `idn-email`): the
/// `jsonschema` crate checks them only with its `idna` feature, which this crate leaves off
/// to keep the wasm module small, so they are unknown formats and pass as annotations.
#[test]
fn optional_failures_are_only_internationalized_formats() {
    for dialect in DIALECTS {
        let report = run(dialect);
        println!(
            "{dialect} optional: {} passed, {} failed",
            report.optional.passed, report.optional.failed
        );
        let unexpected: Vec<String> = report
            .optional
            .failures
            .iter()
            .filter(|failure| {
                let prefix = format!("{dialect}/optional/format/");
                let rest = failure.id.strip_prefix(&prefix).unwrap_or("");
                !(rest.starts_with("idn-hostname.json/") || rest.starts_with("idn-email.json/"))
            })
            .map(|failure| format!("{}\n    {}", failure.id, failure.detail))
            .collect();
        assert!(
            unexpected.is_empty(),
            "{dialect}: optional tests fail beyond the idn formats:\n{}",
            unexpected.join("\n")
        );
    }
}

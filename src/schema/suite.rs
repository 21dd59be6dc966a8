//! Runs the official JSON-Schema-Test-Suite against [`JsonSchemaCompiler`].
//!
//! Pure computation on parsed files — no file or network access — so the same code runs
//! natively (`examples/schema_suite.rs`, `tests/json_schema_suite.rs`) and in a browser on
//! files a page has fetched. Natively, `read_tree` loads the files from a checkout.
//!
//! The suite's layout: `tests/<dialect>/*.json` are required tests,
//! `tests/<dialect>/optional/**.json` optional ones; every file is an array of cases
//! `{description, schema, tests: [{description, data, valid}]}`. `remotes/` holds documents
//! the tests reference as `http://localhost:1234/<path under remotes/>`.
//!
//! How the runner reads the suite:
//! - schemas without `$schema` are read in the dialect of the folder they come from;
//! - every remote is registered under its `http://localhost:1234/` URI, read in its folder's
//!   dialect when it lacks `$schema`, except remotes of dialects this validator does not
//!   implement (the suite's `draft3/` and `v1/` folders);
//! - files under `optional/format/` run with `format` asserted, since they test the format
//!   checks themselves; everything else runs with the compiler's defaults (`format` as an
//!   annotation).

use super::{Dialect, Document, JsonSchemaCompiler};
use crate::server::{CompiledSchema, SchemaCompiler};
use serde_json::Value;

/// Every `.json` file under `root`, as (path relative to `root` with `/`, parsed), sorted:
/// the suite's `remotes/` or one dialect's folder, read from disk (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_tree(root: &std::path::Path) -> Result<Vec<(String, Value)>, String> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|error| format!("cannot read {}: {error}", dir.display()))?;
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path
                .extension()
                .is_some_and(|extension| extension == "json")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
            let value = serde_json::from_str(&text)
                .map_err(|error| format!("{} is not JSON: {error}", path.display()))?;
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let relative: Vec<String> = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            Ok((relative.join("/"), value))
        })
        .collect()
}

/// Where the suite's tests expect `remotes/` to be served.
pub const REMOTES_BASE_URI: &str = "http://localhost:1234/";

/// The folder of the optional tests that assume `format` is asserted.
const FORMAT_FOLDER: &str = "optional/format/";

/// One test that did not give the suite's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteFailure {
    /// `<dialect>/<file>/<case description>/<test description>`, e.g.
    /// `draft7/ref.json/root pointer ref/match`.
    pub id: String,
    /// What happened instead.
    pub detail: String,
}

/// Pass and fail counts, with the failures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuiteCounts {
    /// Tests that gave the suite's answer.
    pub passed: usize,
    /// Tests that did not.
    pub failed: usize,
    /// One entry per failed test.
    pub failures: Vec<SuiteFailure>,
}

impl SuiteCounts {
    /// Adds `other`'s counts and failures to these.
    pub fn absorb(&mut self, other: SuiteCounts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.failures.extend(other.failures);
    }

    fn fail(&mut self, id: String, detail: String) {
        self.failed += 1;
        self.failures.push(SuiteFailure { id, detail });
    }
}

/// The results of one dialect's folder.
#[derive(Clone, Debug)]
pub struct DialectReport {
    /// The dialect the folder tests.
    pub dialect: Dialect,
    /// Totals over the required tests (files outside `optional/`).
    pub required: SuiteCounts,
    /// Totals over the optional tests (files under `optional/`).
    pub optional: SuiteCounts,
    /// Per file, by path relative to the dialect's folder, in the order given.
    pub files: Vec<(String, SuiteCounts)>,
}

/// Whether a test file (path relative to its dialect's folder) is optional.
#[must_use]
pub fn is_optional(path: &str) -> bool {
    path.starts_with("optional/")
}

/// The remotes as documents for [`JsonSchemaCompiler::with_documents`], each under
/// [`REMOTES_BASE_URI`] plus its path relative to `remotes/` (`/` separators).
///
/// A remote in a dialect's folder (`draft7/name.json`) is read in that dialect when it has
/// no `$schema`; any other (`integer.json`, `nested/string.json`) in the dialect under test.
/// Remotes of dialects this validator does not implement are left out: those in a folder
/// named like a dialect it lacks (`draft3/`, `v1/`), and those whose `$schema` names neither a
/// known dialect nor another remote.
#[must_use]
pub fn remote_documents(remotes: &[(String, Value)]) -> Vec<Document> {
    let uris: Vec<String> = remotes.iter().map(|(path, _)| remote_uri(path)).collect();
    let understood = |contents: &Value| match contents.get("$schema").and_then(Value::as_str) {
        None => true,
        Some(uri) => {
            Dialect::from_schema_uri(uri).is_some()
                || uris.iter().any(|known| known == uri.trim_end_matches('#'))
        }
    };
    let mut documents = Vec::new();
    for ((path, contents), uri) in remotes.iter().zip(&uris) {
        let folder = path
            .trim_start_matches('/')
            .split_once('/')
            .map(|(folder, _)| folder);
        let dialect = folder.and_then(Dialect::from_name);
        let foreign = dialect.is_none() && folder.is_some_and(names_a_dialect);
        if foreign || !understood(contents) {
            continue;
        }
        documents.push(Document {
            uri: uri.clone(),
            contents: contents.clone(),
            dialect,
        });
    }
    documents
}

/// Whether a remotes folder is named the way the suite names dialects (`draft3`, `v1`).
fn names_a_dialect(folder: &str) -> bool {
    let version =
        |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit() || b == b'-');
    folder.strip_prefix("draft").is_some_and(version)
        || folder.strip_prefix('v').is_some_and(version)
}

/// The URI a remote at `path` (relative to `remotes/`) is served at.
#[must_use]
pub fn remote_uri(path: &str) -> String {
    format!("{REMOTES_BASE_URI}{}", path.trim_start_matches('/'))
}

/// Runs one dialect's folder.
///
/// `files` are `(path relative to tests/<dialect>/, parsed contents)`; `remotes` are
/// `(path relative to remotes/, parsed contents)`.
///
/// # Errors
///
/// The remotes cannot be registered (see [`JsonSchemaCompiler::with_documents`]).
pub fn run_dialect(
    dialect: Dialect,
    files: &[(String, Value)],
    remotes: &[(String, Value)],
) -> Result<DialectReport, String> {
    let compiler = JsonSchemaCompiler::new()
        .with_default_dialect(dialect)
        .with_documents(remote_documents(remotes))?;
    let asserting = compiler.clone().with_format_assertion(true);

    let mut report = DialectReport {
        dialect,
        required: SuiteCounts::default(),
        optional: SuiteCounts::default(),
        files: Vec::with_capacity(files.len()),
    };
    for (path, contents) in files {
        let chosen = if path.starts_with(FORMAT_FOLDER) {
            &asserting
        } else {
            &compiler
        };
        let counts = run_file(chosen, &format!("{dialect}/{path}"), contents);
        if is_optional(path) {
            report.optional.absorb(counts.clone());
        } else {
            report.required.absorb(counts.clone());
        }
        report.files.push((path.clone(), counts));
    }
    Ok(report)
}

/// Runs one suite file with `compiler`; failure ids start with `id_prefix`
/// (`<dialect>/<file>`).
#[must_use]
pub fn run_file(compiler: &JsonSchemaCompiler, id_prefix: &str, contents: &Value) -> SuiteCounts {
    let mut counts = SuiteCounts::default();
    let Some(cases) = contents.as_array() else {
        counts.fail(
            id_prefix.to_owned(),
            "the file is not an array of cases".to_owned(),
        );
        return counts;
    };
    for (index, case) in cases.iter().enumerate() {
        let case_name = description(case, index);
        let case_id = format!("{id_prefix}/{case_name}");
        let Some(tests) = case.get("tests").and_then(Value::as_array) else {
            counts.fail(case_id, "the case has no \"tests\" array".to_owned());
            continue;
        };
        let schema = match case.get("schema") {
            Some(schema) => compiler.compile(schema),
            None => Err("the case has no \"schema\"".to_owned()),
        };
        for (index, test) in tests.iter().enumerate() {
            let id = format!("{case_id}/{}", description(test, index));
            match run_test(schema.as_deref(), test) {
                Ok(()) => counts.passed += 1,
                Err(detail) => counts.fail(id, detail),
            }
        }
    }
    counts
}

/// One test: `Ok` when the validator agrees with the suite.
fn run_test(compiled: Result<&dyn CompiledSchema, &String>, test: &Value) -> Result<(), String> {
    let compiled = compiled.map_err(|message| format!("the schema did not compile: {message}"))?;
    let Some(expected) = test.get("valid").and_then(Value::as_bool) else {
        return Err("the test has no boolean \"valid\"".to_owned());
    };
    let data = test.get("data").unwrap_or(&Value::Null);
    let violations = compiled.validate(data);
    match (expected, violations.first()) {
        (true, None) | (false, Some(_)) => Ok(()),
        (true, Some(first)) => Err(format!(
            "expected valid, got {} violation(s), first: {}",
            violations.len(),
            first.describe()
        )),
        (false, None) => Err("expected invalid, got valid".to_owned()),
    }
}

/// A case's or test's description, or its position when it has none.
fn description(item: &Value, index: usize) -> String {
    item.get("description")
        .and_then(Value::as_str)
        .map_or_else(|| format!("#{index}"), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_passes_and_names_failures() {
        let file = json!([
            {
                "description": "integers",
                "schema": {"type": "integer"},
                "tests": [
                    {"description": "one", "data": 1, "valid": true},
                    {"description": "wrong answer", "data": "x", "valid": true}
                ]
            },
            {"description": "broken", "schema": {"type": 5}, "tests": [{"data": 1, "valid": true}]}
        ]);
        let counts = run_file(&JsonSchemaCompiler::new(), "draft2020-12/x.json", &file);
        assert_eq!((counts.passed, counts.failed), (1, 2));
        assert_eq!(
            counts.failures[0].id,
            "draft2020-12/x.json/integers/wrong answer"
        );
        assert!(counts.failures[0].detail.starts_with("expected valid"));
        assert_eq!(counts.failures[1].id, "draft2020-12/x.json/broken/#0");
        assert!(counts.failures[1].detail.contains("did not compile"));
    }

    #[test]
    fn runs_a_dialect_with_remotes_and_optional_files() {
        let remotes = vec![
            ("integer.json".to_owned(), json!({"type": "integer"})),
            (
                "v1/x.json".to_owned(),
                json!({"$schema": "https://json-schema.org/v1"}),
            ),
        ];
        let files = vec![
            (
                "refRemote.json".to_owned(),
                json!([{
                    "description": "remote ref",
                    "schema": {"$ref": "http://localhost:1234/integer.json"},
                    "tests": [{"description": "a", "data": 1, "valid": true},
                              {"description": "b", "data": "1", "valid": false}]
                }]),
            ),
            (
                "optional/format/email.json".to_owned(),
                json!([{
                    "description": "email",
                    "schema": {"format": "email"},
                    "tests": [{"description": "not one", "data": "x", "valid": false}]
                }]),
            ),
        ];
        let report = run_dialect(Dialect::Draft7, &files, &remotes).unwrap();
        assert_eq!((report.required.passed, report.required.failed), (2, 0));
        assert_eq!((report.optional.passed, report.optional.failed), (1, 0));
        assert_eq!(report.files.len(), 2);
        let documents = remote_documents(&remotes);
        assert_eq!(documents.len(), 1);
        assert_eq!(documents[0].uri, "http://localhost:1234/integer.json");
        assert_eq!(documents[0].dialect, None);
    }
}

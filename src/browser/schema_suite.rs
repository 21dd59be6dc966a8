//! The official JSON-Schema-Test-Suite in a browser: the pure runner the native
//! `cargo run --example schema_suite` uses ([`crate::schema::suite`]), exported for pages that
//! fetched the suite's files, so the validator's browser build can be held to the same counts
//! as its native build (`conformance/schema_suite.mjs`).

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::schema::suite::{self, SuiteCounts};
use crate::schema::Dialect;

fn pairs(text: &str, what: &str) -> Result<Vec<(String, Value)>, JsValue> {
    let parsed: Vec<(String, Value)> = serde_json::from_str(text).map_err(|e| {
        JsValue::from(js_sys::TypeError::new(&format!(
            "runSchemaSuite: {what} must be a JSON array of [path, contents] pairs: {e}"
        )))
    })?;
    Ok(parsed)
}

fn counts(c: &SuiteCounts) -> Value {
    json!({
        "passed": c.passed,
        "failed": c.failed,
        "failures": c.failures.iter().map(|f| json!({ "id": f.id, "detail": f.detail })).collect::<Vec<_>>(),
    })
}

/// `runSchemaSuite(dialectName, filesJson, remotesJson)` → JSON text
/// `{ dialect, required: {passed, failed, failures}, optional: {…}, files: [[path, passed, failed]] }`.
///
/// `dialectName` is a folder name of the suite (`draft2020-12`, `draft7`, …); `filesJson` the
/// files of `tests/<dialect>/` and `remotesJson` those of `remotes/`, each a JSON array of
/// `[path relative to that folder, parsed contents]`.
#[wasm_bindgen(js_name = runSchemaSuite)]
pub fn run_schema_suite(
    dialect_name: &str,
    files_json: &str,
    remotes_json: &str,
) -> Result<String, JsValue> {
    let dialect = Dialect::from_name(dialect_name).ok_or_else(|| {
        JsValue::from(js_sys::TypeError::new(&format!(
            "runSchemaSuite: unknown dialect {dialect_name:?}"
        )))
    })?;
    let files = pairs(files_json, "filesJson")?;
    let remotes = pairs(remotes_json, "remotesJson")?;
    let report = suite::run_dialect(dialect, &files, &remotes)
        .map_err(|e| JsValue::from(js_sys::Error::new(&format!("runSchemaSuite: {e}"))))?;
    Ok(json!({
        "dialect": dialect.name(),
        "required": counts(&report.required),
        "optional": counts(&report.optional),
        "files": report.files.iter().map(|(p, c)| json!([p, c.passed, c.failed])).collect::<Vec<_>>(),
    })
    .to_string())
}

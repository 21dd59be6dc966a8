//! The validator as its own wasm module (`dist/modelcontext_validator.wasm`): the
//! [`JsonSchemaCompiler`] behind a tiny C ABI, with no wasm-bindgen, so that the page's core
//! module does not carry it and its loader (`polyfill/src/validator.js`) is a few lines of
//! hand-written JavaScript shared by the ESM and classic builds.
//!
//! Built with `cargo build --target wasm32-unknown-unknown --no-default-features --features
//! validator,validator-module` (scripts/build.mjs). The exports, on wasm32 only:
//!
//! | export | what it does |
//! |---|---|
//! | `alloc(len) -> ptr` | `len` bytes for the caller to write a UTF-8 argument into |
//! | `dealloc(ptr, len)` | frees what `alloc` gave, or a result (`len` = 4 + its length) |
//! | `compile(ptr, len) -> result` | compiles the schema (JSON text): `{"handle":N}` or `{"error":"…"}` |
//! | `validate(handle, ptr, len) -> result` | validates the instance (JSON text): `{"violations":[…]}` or `{"error":"…"}` |
//! | `free_schema(handle)` | forgets a compiled schema |
//! | `run_schema_suite(ptr, len) -> result` | the JSON-Schema-Test-Suite runner on `[dialect, files, remotes]`; kept only in the test build (`target/validator-suite/`), not in `dist/` |
//!
//! A `result` is a pointer to a little-endian `u32` byte length followed by that many bytes
//! of UTF-8 JSON; the caller reads it and frees it with `dealloc(ptr, 4 + length)`. Arguments
//! stay the caller's: it frees them after the call. Each violation is
//! `{"instancePath","keyword","schemaPath","message"}` ([`SchemaViolation::to_json`]).
//!
//! The module has no imports it needs: the only one its dependencies bring (`getrandom`'s
//! `crypto.getRandomValues`, for hash-map seeds) is a wasm-bindgen import the loader stubs.
//! The logic lives in [`ValidatorModule`], which is plain Rust and tested natively.

use super::suite::{self, SuiteCounts};
use super::{Dialect, JsonSchema, JsonSchemaCompiler};
use crate::server::{CompiledSchema, SchemaViolation};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The validator module's state: a compiler and the schemas compiled so far, by handle.
#[derive(Debug, Default)]
pub struct ValidatorModule {
    compiler: JsonSchemaCompiler,
    schemas: HashMap<u32, JsonSchema>,
    next: u32,
}

fn error(message: impl Into<String>) -> String {
    json!({ "error": message.into() }).to_string()
}

impl ValidatorModule {
    /// An empty module: nothing compiled yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `compile`: the schema's JSON text → `{"handle":N}` (N ≥ 1) or `{"error":"…"}`.
    pub fn compile(&mut self, schema_text: &str) -> String {
        let schema: Value = match serde_json::from_str(schema_text) {
            Ok(v) => v,
            Err(e) => return error(format!("the schema is not JSON: {e}")),
        };
        match self.compiler.compile_schema(&schema) {
            Ok(compiled) => {
                self.next = self.next.checked_add(1).unwrap_or(1);
                while self.schemas.contains_key(&self.next) {
                    self.next = self.next.checked_add(1).unwrap_or(1);
                }
                self.schemas.insert(self.next, compiled);
                json!({ "handle": self.next }).to_string()
            }
            Err(message) => error(message),
        }
    }

    /// `validate`: `{"violations":[…]}` (empty when valid) or `{"error":"…"}` for an unknown
    /// handle or an instance that is not JSON.
    pub fn validate(&self, handle: u32, instance_text: &str) -> String {
        let Some(schema) = self.schemas.get(&handle) else {
            return error(format!("no schema has handle {handle}"));
        };
        let instance: Value = match serde_json::from_str(instance_text) {
            Ok(v) => v,
            Err(e) => return error(format!("the instance is not JSON: {e}")),
        };
        let violations: Vec<Value> = schema
            .validate(&instance)
            .iter()
            .map(SchemaViolation::to_json)
            .collect();
        json!({ "violations": violations }).to_string()
    }

    /// `free_schema`: `true` if `handle` was a compiled schema.
    pub fn free(&mut self, handle: u32) -> bool {
        self.schemas.remove(&handle).is_some()
    }

    /// How many schemas are compiled.
    pub fn len(&self) -> usize {
        self.schemas.len()
    }

    /// Whether no schema is compiled.
    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }
}

fn counts_json(c: &SuiteCounts) -> Value {
    json!({
        "passed": c.passed,
        "failed": c.failed,
        "failures": c.failures.iter().map(|f| json!({ "id": f.id, "detail": f.detail })).collect::<Vec<_>>(),
    })
}

/// `run_schema_suite`: `[dialectName, files, remotes]` (each file `[path, contents]`, see
/// [`suite::run_dialect`]) → `{dialect, required: {passed, failed, failures}, optional: {…},
/// files: [[path, passed, failed]]}` or `{"error":"…"}`.
pub fn run_schema_suite(input_text: &str) -> String {
    type Files = Vec<(String, Value)>;
    let (name, files, remotes): (String, Files, Files) = match serde_json::from_str(input_text) {
        Ok(v) => v,
        Err(e) => {
            return error(format!(
                "runSchemaSuite: expected [dialect, [[path, contents]…], [[path, contents]…]]: {e}"
            ))
        }
    };
    let Some(dialect) = Dialect::from_name(&name) else {
        return error(format!("runSchemaSuite: unknown dialect {name:?}"));
    };
    match suite::run_dialect(dialect, &files, &remotes) {
        Ok(report) => json!({
            "dialect": dialect.name(),
            "required": counts_json(&report.required),
            "optional": counts_json(&report.optional),
            "files": report.files.iter().map(|(p, c)| json!([p, c.passed, c.failed])).collect::<Vec<_>>(),
        })
        .to_string(),
        Err(e) => error(format!("runSchemaSuite: {e}")),
    }
}

/// The C ABI over one [`ValidatorModule`] per instance.
#[cfg(all(target_arch = "wasm32", feature = "validator-module"))]
mod exports {
    use super::ValidatorModule;
    use std::alloc::{alloc as allocate, dealloc as deallocate, Layout};
    use std::cell::RefCell;

    thread_local! {
        static MODULE: RefCell<ValidatorModule> = RefCell::new(ValidatorModule::new());
    }

    fn layout(len: usize) -> Layout {
        // Sizes come from the loader, which got them from `alloc` or a result's length.
        Layout::from_size_align(len.max(1), 4).unwrap_or(Layout::new::<u32>())
    }

    /// The argument at `ptr` as text (the loader wrote UTF-8; anything else is replaced).
    ///
    /// # Safety
    /// `ptr..ptr + len` was written by the caller after `alloc(len)`.
    unsafe fn argument(ptr: *const u8, len: usize) -> String {
        if len == 0 {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(ptr, len)).into_owned()
    }

    /// `text` as a result: a `u32` length, then the bytes.
    fn result(text: String) -> *mut u8 {
        let bytes = text.into_bytes();
        let total = bytes.len() + 4;
        // SAFETY: the layout is non-zero; the copy stays inside the allocation.
        unsafe {
            let ptr = allocate(layout(total));
            if ptr.is_null() {
                std::process::abort();
            }
            ptr.cast::<u32>().write_unaligned(bytes.len() as u32);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.add(4), bytes.len());
            ptr
        }
    }

    #[no_mangle]
    pub extern "C" fn alloc(len: usize) -> *mut u8 {
        // SAFETY: the layout is non-zero.
        let ptr = unsafe { allocate(layout(len)) };
        if ptr.is_null() {
            std::process::abort();
        }
        ptr
    }

    /// # Safety
    /// `ptr` came from `alloc(len)` or is a result of `4 + length` bytes.
    #[no_mangle]
    pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
        if !ptr.is_null() {
            deallocate(ptr, layout(len));
        }
    }

    /// # Safety
    /// As for [`argument`].
    #[no_mangle]
    pub unsafe extern "C" fn compile(ptr: *const u8, len: usize) -> *mut u8 {
        let schema = argument(ptr, len);
        result(MODULE.with(|m| m.borrow_mut().compile(&schema)))
    }

    /// # Safety
    /// As for [`argument`].
    #[no_mangle]
    pub unsafe extern "C" fn validate(handle: u32, ptr: *const u8, len: usize) -> *mut u8 {
        let instance = argument(ptr, len);
        result(MODULE.with(|m| m.borrow().validate(handle, &instance)))
    }

    #[no_mangle]
    pub extern "C" fn free_schema(handle: u32) {
        MODULE.with(|m| m.borrow_mut().free(handle));
    }

    /// # Safety
    /// As for [`argument`].
    #[no_mangle]
    pub unsafe extern "C" fn run_schema_suite(ptr: *const u8, len: usize) -> *mut u8 {
        let input = argument(ptr, len);
        result(super::run_schema_suite(&input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn compile_validate_free() {
        let mut m = ValidatorModule::new();
        let r = parse(&m.compile(r#"{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}"#));
        let handle = r["handle"].as_u64().unwrap() as u32;
        assert!(handle >= 1);
        // Exactly this text: the browser's core takes it as "valid" without parsing it
        // (src/browser/validator.rs, VALID).
        assert_eq!(m.validate(handle, r#"{"n":2}"#), r#"{"violations":[]}"#);
        let bad = parse(&m.validate(handle, r#"{"n":0}"#));
        let v = SchemaViolation::from_json(&bad["violations"][0]).unwrap();
        assert_eq!(
            (v.instance_path.as_str(), v.keyword.as_str()),
            ("/n", "minimum")
        );
        assert_eq!(bad["violations"][0]["schemaPath"], "/properties/n/minimum");
        assert!(m.free(handle));
        assert!(!m.free(handle));
        assert!(m.is_empty());
        assert!(parse(&m.validate(handle, "{}"))["error"]
            .as_str()
            .unwrap()
            .contains("handle"));
    }

    #[test]
    fn errors_are_json() {
        let mut m = ValidatorModule::new();
        assert!(parse(&m.compile("{"))["error"]
            .as_str()
            .unwrap()
            .contains("not JSON"));
        assert!(parse(&m.compile(r#"{"type":5}"#))["error"].is_string());
        let h = parse(&m.compile("true"))["handle"].as_u64().unwrap() as u32;
        assert!(parse(&m.validate(h, "nope"))["error"]
            .as_str()
            .unwrap()
            .contains("not JSON"));
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn handles_are_distinct() {
        let mut m = ValidatorModule::new();
        let a = parse(&m.compile("true"))["handle"].clone();
        let b = parse(&m.compile("false"))["handle"].clone();
        assert_ne!(a, b);
    }

    #[test]
    fn schema_suite_input_errors() {
        assert!(parse(&run_schema_suite("[]"))["error"]
            .as_str()
            .unwrap()
            .contains("expected"));
        assert!(parse(&run_schema_suite(r#"["draft1",[],[]]"#))["error"]
            .as_str()
            .unwrap()
            .contains("unknown dialect"));
        let ok = parse(&run_schema_suite(r#"["draft7",[],[]]"#));
        assert_eq!(ok["dialect"], "draft7");
        assert_eq!(ok["required"]["passed"], 0);
    }
}

//! The validator, loaded when first needed: the browser engine's [`SchemaCompiler`], a lazy
//! bridge to the validator module (`dist/modelcontext_validator.wasm`, built from
//! `src/schema/module.rs`) through its loader (`polyfill/src/validator.js`).
//!
//! - **Installing loads nothing.** The first schema compiled (a tool registered with an
//!   `inputSchema` or `outputSchema`, by any door) asks the loader for the module; the loader
//!   starts the fetch when the page is idle (`requestIdleCallback`, else `setTimeout`).
//! - **Deferred, then immediate.** Until the module has loaded, `compile` hands out a deferred
//!   handle, compiled when the module has loaded (or on its first use after). From then on
//!   `compile` is immediate, so an invalid schema is refused at registration again.
//! - **Calls wait.** [`SchemaCompiler::ready`] is `None` once the module is loaded; before,
//!   it asks the loader to hurry and resolves when the module has loaded. The engine awaits it
//!   before checking a call of a tool with a schema (MCP `tools/call`, WebMCP `executeTool`).
//! - **A failed load fails calls, never skips validation.** If the module cannot be loaded,
//!   `ready` resolves to an error naming its URL; calls of tools with a schema then fail with
//!   it (an `isError` result over MCP, an `UnknownError` from `executeTool`) and a console
//!   warning says so once.
//! - **A deferred schema the validator refuses** is treated like a schema refused at
//!   registration: a console warning names the tool and the reason; the tool stays registered
//!   and that schema validates nothing (see [`CompiledSchema::deferred_error`]).
//!
//! The engine's configuration carries the loader as `validator` (`{ url, load(urgent) }`,
//! see `polyfill/src/install.js`). Without one, a build with the `validator` feature compiles
//! with the built-in `JsonSchemaCompiler`; a build without it has no validator at all, and
//! calls of tools with a schema fail saying so.

use js_sys::Promise;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::js;
use crate::protocol::json_text;
use crate::server::plain_schema::PlainSchema;
use crate::server::{CompiledSchema, LocalBoxFuture, SchemaCompiler, SchemaViolation, Server};

/// The keyword of the violation a deferred schema reports when validation is attempted
/// before its validator is ready (the engine awaits readiness first, so this is a last
/// guard: an instance is never accepted unchecked).
pub const NOT_READY_KEYWORD: &str = "$validator";

#[wasm_bindgen]
extern "C" {
    /// `polyfill/src/validator.js`'s loader: `{ url, load(urgent) }`.
    pub type ValidatorLoader;

    /// Starts loading (when the page is idle, or now if `urgent`); the same promise each
    /// time, resolving to the module's instance.
    #[wasm_bindgen(method, catch)]
    fn load(this: &ValidatorLoader, urgent: bool) -> Result<Promise, JsValue>;

    /// The loaded module: its C ABI as calls on JSON text (see `src/schema/module.rs`).
    #[derive(Clone)]
    pub type ValidatorInstance;

    /// `{"handle":N}` or `{"error":"…"}`.
    #[wasm_bindgen(method, catch)]
    fn compile(this: &ValidatorInstance, schema: &str) -> Result<String, JsValue>;

    /// `{"violations":[…]}` or `{"error":"…"}`. The instance is its JSON text's UTF-8 bytes,
    /// handed over as a view of this module's memory (copied once, into the validator's).
    #[wasm_bindgen(method, catch)]
    fn validate(this: &ValidatorInstance, handle: u32, instance: &[u8]) -> Result<String, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn free(this: &ValidatorInstance, handle: u32) -> Result<(), JsValue>;
}

/// The module's answer for a valid instance (`src/schema/module.rs`).
const VALID: &str = r#"{"violations":[]}"#;

enum State {
    /// Nothing asked for the module yet.
    Idle,
    Loading(Promise),
    Loaded(ValidatorInstance),
    /// It could not be loaded; the message names the URL and the reason.
    Failed(String),
}

type Hook = Box<dyn Fn(Result<(), &str>)>;

struct Shared {
    loader: Option<ValidatorLoader>,
    url: String,
    state: RefCell<State>,
    /// Run once, when loading ends.
    on_settled: RefCell<Vec<Hook>>,
}

impl Shared {
    /// Asks the loader for the module (once); `urgent` asks it to start now.
    fn start(self: &Rc<Self>, urgent: bool) {
        let idle = matches!(*self.state.borrow(), State::Idle);
        if !idle {
            if urgent && matches!(*self.state.borrow(), State::Loading(_)) {
                if let Some(loader) = &self.loader {
                    let _ = loader.load(true);
                }
            }
            return;
        }
        let Some(loader) = &self.loader else {
            self.finish(Err("no validator module is configured".to_owned()));
            return;
        };
        match loader.load(urgent) {
            Ok(promise) => {
                *self.state.borrow_mut() = State::Loading(promise.clone());
                let me = self.clone();
                js::spawn(async move {
                    let outcome = JsFuture::from(promise).await;
                    me.settle(outcome);
                });
            }
            Err(e) => self.finish(Err(self.failure(&e))),
        }
    }

    fn failure(&self, e: &JsValue) -> String {
        format!(
            "the validator module {} could not be loaded: {}",
            self.url,
            js::error_message(e)
        )
    }

    /// Records how the load promise settled (every waiter calls this; the first one counts).
    fn settle(&self, outcome: Result<JsValue, JsValue>) {
        if !matches!(*self.state.borrow(), State::Loading(_)) {
            return;
        }
        self.finish(match outcome {
            Ok(instance) => Ok(instance.unchecked_into()),
            Err(e) => Err(self.failure(&e)),
        });
    }

    fn finish(&self, outcome: Result<ValidatorInstance, String>) {
        let state = match outcome {
            Ok(instance) => State::Loaded(instance),
            Err(message) => State::Failed(message),
        };
        *self.state.borrow_mut() = state;
        let hooks = std::mem::take(&mut *self.on_settled.borrow_mut());
        let failed = self.failed();
        for hook in hooks {
            hook(failed.as_deref().map_or(Ok(()), Err));
        }
    }

    fn failed(&self) -> Option<String> {
        match &*self.state.borrow() {
            State::Failed(message) => Some(message.clone()),
            _ => None,
        }
    }

    fn instance(&self) -> Option<ValidatorInstance> {
        match &*self.state.borrow() {
            State::Loaded(instance) => Some(instance.clone()),
            _ => None,
        }
    }
}

/// The browser engine's schema compiler: compiles in the validator module, loading it on
/// first need (see the module docs).
#[derive(Clone)]
pub struct LazyValidator(Rc<Shared>);

impl LazyValidator {
    /// A validator loaded through `loader` (`polyfill/src/validator.js`); `undefined` for none.
    pub fn new(loader: &JsValue) -> LazyValidator {
        let present = loader.is_object();
        let url = if present {
            js::get(loader, "url")
                .ok()
                .and_then(|u| u.as_string())
                .unwrap_or_default()
        } else {
            String::new()
        };
        LazyValidator(Rc::new(Shared {
            loader: present.then(|| loader.clone().unchecked_into()),
            url,
            state: RefCell::new(State::Idle),
            on_settled: RefCell::new(Vec::new()),
        }))
    }

    /// Whether the module is loaded (compilation is immediate).
    pub fn is_loaded(&self) -> bool {
        self.0.instance().is_some()
    }

    /// The module's URL, as the loader reported it.
    pub fn url(&self) -> &str {
        &self.0.url
    }

    /// Runs `hook` once, when loading ends (`Err` with the message if it failed); at once if
    /// it has ended.
    pub fn on_settled(&self, hook: impl Fn(Result<(), &str>) + 'static) {
        match &*self.0.state.borrow() {
            State::Loaded(_) => return hook(Ok(())),
            State::Failed(message) => return hook(Err(message)),
            State::Idle | State::Loading(_) => {}
        }
        self.0.on_settled.borrow_mut().push(Box::new(hook));
    }

    /// Warns on the console, once loading has ended, about what it means for `server`'s
    /// tools: a failed load, or schemas registered before the load that the validator
    /// refuses (named by tool, as a schema refused at registration would be).
    pub fn report_to_console(&self, server: &Server) {
        let server = server.downgrade();
        self.on_settled(move |outcome| {
            let Some(server) = server.upgrade() else {
                return;
            };
            match outcome {
                Err(message) => js::warn(&format!(
                    "modelcontext-polyfill: {message}; calls of tools that have a schema fail \
                     until the page is reloaded."
                )),
                Ok(()) => warn_deferred_errors(&server),
            }
        });
    }
}

/// One console warning per schema that was registered before the validator loaded and that
/// the validator then refused.
fn warn_deferred_errors(server: &Server) {
    for tool in server.tools() {
        for (which, what, schema) in [
            ("inputSchema", "input", &tool.input),
            ("outputSchema", "output", &tool.output),
        ] {
            if let Some(message) = schema.as_ref().and_then(|s| s.deferred_error()) {
                js::warn(&format!(
                    "modelcontext-polyfill: the {which} of tool {:?} cannot validate ({message}); \
                     it was registered before the validator loaded, so the tool stays registered \
                     and its {what} is not validated.",
                    tool.def.name
                ));
            }
        }
    }
}

impl SchemaCompiler for LazyValidator {
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        // A plain schema is checked here, with the module's answers; the module is neither
        // needed nor loaded for it (server::plain_schema), a `pattern` of the engine's subset
        // included (plain_schema::Pattern, which runs in linear time, as the module's engine
        // does). Never with JS `RegExp`: it backtracks, so an agent's string could hold the page
        // for seconds or hours (`a+b` on 100,000 `a`s: 4 s; `^(a+)+$` on 40 characters: hours).
        if let Some(plain) = PlainSchema::compile(schema) {
            return Ok(Rc::new(plain));
        }
        if let Some(instance) = self.0.instance() {
            return RemoteSchema::compile(&instance, schema).map(|s| s as Rc<dyn CompiledSchema>);
        }
        self.0.start(false);
        Ok(Rc::new(DeferredSchema {
            shared: self.0.clone(),
            schema: schema.clone(),
            compiled: RefCell::new(None),
        }))
    }

    fn ready(&self) -> Option<LocalBoxFuture<'static, Result<(), String>>> {
        self.0.start(true);
        let promise = match &*self.0.state.borrow() {
            State::Loaded(_) => return None,
            State::Failed(message) => {
                let message = message.clone();
                return Some(Box::pin(async move { Err(message) }));
            }
            State::Loading(promise) => promise.clone(),
            State::Idle => {
                return Some(Box::pin(async {
                    Err("the validator did not start loading".into())
                }))
            }
        };
        let shared = self.0.clone();
        Some(Box::pin(async move {
            let outcome = JsFuture::from(promise).await;
            shared.settle(outcome);
            match shared.failed() {
                Some(message) => Err(message),
                None => Ok(()),
            }
        }))
    }
}

/// A schema compiled in the validator module; freed there when dropped.
struct RemoteSchema {
    instance: ValidatorInstance,
    handle: u32,
}

fn internal(message: String) -> SchemaViolation {
    SchemaViolation {
        instance_path: String::new(),
        keyword: "$internal".to_owned(),
        schema_path: String::new(),
        message,
    }
}

impl RemoteSchema {
    fn compile(instance: &ValidatorInstance, schema: &Value) -> Result<Rc<RemoteSchema>, String> {
        let answer = instance
            .compile(&json_text::to_string(schema))
            .map_err(|e| format!("the validator failed: {}", js::error_message(&e)))?;
        let answer: Value = crate::protocol::values::parse(&answer)
            .map_err(|e| format!("the validator gave an unreadable answer: {e}"))?;
        match answer.get("handle").and_then(Value::as_u64) {
            Some(handle) => Ok(Rc::new(RemoteSchema {
                instance: instance.clone(),
                handle: u32::try_from(handle).map_err(|_| "bad handle".to_owned())?,
            })),
            None => Err(answer
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("the validator refused the schema")
                .to_owned()),
        }
    }
}

impl CompiledSchema for RemoteSchema {
    /// The text as it is, to the validator module (which reads it as `validate` has it read
    /// an instance's text): a call's arguments kept as text are never made a value here.
    fn accepts_text(&self, text: &str) -> bool {
        matches!(self.instance.validate(self.handle, text.as_bytes()), Ok(t) if t == VALID)
    }

    fn validate(&self, instance: &Value) -> Vec<SchemaViolation> {
        self.violations_of(json_text::to_string(instance).as_bytes())
    }

    fn reads_text_whole(&self) -> bool {
        true
    }
}

impl RemoteSchema {
    /// The validator module's report on the instance JSON text `text` holds.
    fn violations_of(&self, text: &[u8]) -> Vec<SchemaViolation> {
        let answer = match self.instance.validate(self.handle, text) {
            // The answer for a valid instance, the common case, needs no parsing.
            Ok(text) if text == VALID => return Vec::new(),
            Ok(text) => text,
            Err(e) => {
                return vec![internal(format!(
                    "the validator failed: {}",
                    js::error_message(&e)
                ))]
            }
        };
        let answer: Value = match crate::protocol::values::parse(&answer) {
            Ok(v) => v,
            Err(e) => {
                return vec![internal(format!(
                    "the validator gave an unreadable answer: {e}"
                ))]
            }
        };
        match answer.get("violations").and_then(Value::as_array) {
            Some(list) => list
                .iter()
                .map(|v| {
                    SchemaViolation::from_json(v)
                        .unwrap_or_else(|| {
                            internal(format!(
                                "the validator reported {}",
                                json_text::to_string(v)
                            ))
                        })
                })
                .collect(),
            None => vec![internal(
                answer
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("the validator gave no answer")
                    .to_owned(),
            )],
        }
    }
}

impl Drop for RemoteSchema {
    fn drop(&mut self) {
        let _ = self.instance.free(self.handle);
    }
}

/// A schema compiled before the validator loaded: compiles once it has (when the engine looks
/// for refused schemas, or on first use).
struct DeferredSchema {
    shared: Rc<Shared>,
    schema: Value,
    /// The compilation, once the validator has loaded.
    compiled: RefCell<Option<Result<Rc<RemoteSchema>, String>>>,
}

impl DeferredSchema {
    /// The compiled schema, compiling it if the validator is loaded; `None` before.
    fn resolve(&self) -> Option<Result<Rc<RemoteSchema>, String>> {
        if let Some(done) = &*self.compiled.borrow() {
            return Some(done.clone());
        }
        let instance = self.shared.instance()?;
        let done = RemoteSchema::compile(&instance, &self.schema);
        *self.compiled.borrow_mut() = Some(done.clone());
        Some(done)
    }
}

impl CompiledSchema for DeferredSchema {
    fn accepts_text(&self, text: &str) -> bool {
        matches!(self.resolve(), Some(Ok(schema)) if schema.accepts_text(text))
    }

    fn validate(&self, instance: &Value) -> Vec<SchemaViolation> {
        match self.resolve() {
            Some(Ok(schema)) => schema.validate(instance),
            // Refused once loaded: like a schema refused at registration, it validates
            // nothing (a console warning named the tool).
            Some(Err(_)) => Vec::new(),
            None => vec![SchemaViolation {
                instance_path: String::new(),
                keyword: NOT_READY_KEYWORD.to_owned(),
                schema_path: String::new(),
                message: self.shared.failed().unwrap_or_else(|| {
                    format!(
                        "the validator module {} has not loaded yet",
                        self.shared.url
                    )
                }),
            }],
        }
    }

    fn text_violations(&self, text: &str, max_values: usize) -> Vec<SchemaViolation> {
        match self.resolve() {
            Some(Ok(schema)) => schema.text_violations(text, max_values),
            // Refused once loaded, or not loaded yet: what `validate` says of any instance.
            _ => self.validate(&Value::Null),
        }
    }

    fn reads_text_whole(&self) -> bool {
        true
    }

    fn deferred_error(&self) -> Option<String> {
        self.resolve()?.err()
    }

    fn is_deferred(&self) -> bool {
        true
    }
}

/// The compiler for an engine configured with `config`: the lazy validator when `config`
/// carries a loader (`validator`), else the built-in one when this build has it, else a lazy
/// validator that can never load. Also returns the lazy validator, if that is the choice.
pub fn engine_compiler(
    config: &JsValue,
) -> Result<(Rc<dyn SchemaCompiler>, Option<LazyValidator>), JsValue> {
    let loader = js::get(config, "validator")?;
    #[cfg(feature = "validator")]
    if loader.is_undefined() || loader.is_null() {
        return Ok((Rc::new(crate::schema::JsonSchemaCompiler::new()), None));
    }
    let lazy = LazyValidator::new(&loader);
    Ok((Rc::new(lazy.clone()), Some(lazy)))
}

//! `executeTool`: reading the registered tool and its input, running the page's `execute`,
//! serializing its result, and cancelling through the caller's signal.

use js_sys::Promise;
use serde_json::{Map, Value};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::super::engine::EngineInner;
use super::super::js_handler::{call_options, settled};
use super::super::store::{check_document, check_input, Dictionary, Door};
use super::{read_signal, reject_on_error};
use crate::js;
use crate::js::DomError;
use crate::server::{CancellationToken, RequestContext};

/// Serializes an `execute` result the way `executeTool` reports it: strings as they are,
/// other primitives by string conversion (`undefined` → `"undefined"`, `10n` → `"10"`, as
/// Chromium does), objects with `JSON.stringify`; what cannot be serialized (a function,
/// a symbol, a cycle) is an `UnknownError`. The text stays a JS string (it is the page's).
fn serialize_result(name: &str, v: &JsValue) -> Result<JsValue, DomError> {
    if v.is_string() {
        return Ok(v.clone());
    }
    let failed = |why: String| {
        DomError::Unknown(format!(
            "The result of tool {name:?} cannot be serialized: {why}"
        ))
    };
    if !v.is_object() && !v.is_function() {
        return js::to_dom_string(v)
            .map(|s| JsValue::from_str(&s))
            .map_err(|e| failed(js::error_message(&e)));
    }
    match js_sys::JSON::stringify(v) {
        Ok(s) if s.is_string() => Ok(s.into()),
        Ok(_) => Err(failed("JSON.stringify gives undefined".into())),
        Err(e) => Err(failed(js::error_message(&e))),
    }
}

#[wasm_bindgen]
extern "C" {
    /// `__mcpRegisteredTool(tool, global, origin)` (polyfill/src/engine_helpers.js), called
    /// with a typed signature: the tool's name when it is `global`'s and of `origin`, else
    /// `[name, origin, window]`; throws the conversion's `TypeError`.
    type RegisteredToolReader;
    #[wasm_bindgen(method, catch, js_name = call)]
    fn read(
        this: &RegisteredToolReader,
        this_arg: &JsValue,
        tool: &JsValue,
        global: &JsValue,
        origin: &JsValue,
    ) -> Result<JsValue, JsValue>;
}

thread_local! {
    /// The engine's `registeredTool` helper ([`use_registered_tool`]).
    static REGISTERED_TOOL: js::Helper = const { js::Helper::new("registeredTool") };
}

/// Takes `config.registeredTool`, which the engine needs.
pub(crate) fn use_registered_tool(config: &JsValue) -> Result<(), JsValue> {
    REGISTERED_TOOL.with(|h| h.require(config))
}

/// executeTool's tool: its name when the tool is this document's (its window this global, its
/// origin this origin), else its name, origin and window.
enum Which {
    Here(String),
    Elsewhere(String, String, JsValue),
}

/// WebIDL conversion of `RegisteredTool` (its members in lexicographic order, each read once),
/// in one call of `__mcpRegisteredTool` (polyfill/src/engine_helpers.js): it was fifteen calls
/// into JS and three strings copied into wasm memory when made from here.
fn which_tool(inner: &EngineInner, tool: &JsValue) -> Result<Which, JsValue> {
    let read = REGISTERED_TOOL.with(|h| {
        h.call(|f| {
            f.unchecked_ref::<RegisteredToolReader>().read(
                &JsValue::UNDEFINED,
                tool,
                inner.global(),
                inner.origin_js(),
            )
        })
    })?;
    if let Some(name) = read.as_string() {
        return Ok(Which::Here(name));
    }
    let parts: &js_sys::Array = read.unchecked_ref();
    let text = |i| parts.get(i).as_string().unwrap_or_default();
    Ok(Which::Elsewhere(text(0), text(1), parts.get(2)))
}

/// The `TypeError` for an input that is not an object (nor JSON text of one).
fn not_object() -> JsValue {
    js::type_error("Failed to execute 'executeTool' on 'ModelContext': the input is not an object.")
}

/// The `UnknownError` for a tool that does not exist here or is not visible to the caller.
fn unknown(name: &str) -> JsValue {
    DomError::Unknown(format!("No tool named {name:?} is available.")).into_js()
}

/// The `inputObject` argument as JSON: an object (absent means `{}`), handed over as a JSON
/// copy. Chromium ≤ 154 took the input as a JSON string (`executeTool(tool, inputJson)`), and
/// pages written for it still pass one: such a string is parsed (it must hold an object or an
/// array, as an object input may be), with a one-time deprecation warning. With the value, its
/// JSON text as a JS string when there is one (`execute`'s copy is parsed from it).
fn read_input(input: &JsValue) -> Result<(Value, Option<JsValue>), JsValue> {
    // The common case first: an object, taken through JSON.stringify.
    if input.is_object() {
        return match js::object_to_json_text(input)? {
            Some((value, text)) => Ok((value, Some(text))),
            None => Err(js::type_error(
                "Failed to execute 'executeTool' on 'ModelContext': the input cannot be serialized to JSON.",
            )),
        };
    }
    if input.is_undefined() {
        return Ok((Value::Object(Map::new()), None));
    }
    if let Some(text) = input.as_string() {
        js::warn_once(
            "executeTool-json",
            "modelcontext-polyfill: executeTool(tool, inputJsonString) is deprecated (Chromium 154 and earlier); \
             pass the input as an object.",
        );
        return match crate::protocol::values::parse(&text) {
            Ok(v @ (Value::Object(_) | Value::Array(_))) => Ok((v, Some(input.clone()))),
            Ok(_) => Err(not_object()),
            Err(e) => Err(js::type_error(&format!(
                "Failed to execute 'executeTool' on 'ModelContext': the input string is not JSON ({e})."
            ))),
        };
    }
    Err(not_object())
}

/// One `executeTool` call in flight.
struct Execution {
    inner: Rc<EngineInner>,
    name: String,
    done: js::Deferred,
    /// Aborts the signal handed to `execute` (`call_options` ties the two).
    cancel: CancellationToken,
    /// Whether `execute` has been called.
    started: Cell<bool>,
    /// Whether `execute`'s outcome (a result, a throw) has arrived.
    finished: Cell<bool>,
    /// Whether the caller's abort has been processed for the tool (the task [`cancel`]
    /// queues has run): a tool that has not started by then never starts.
    ///
    /// [`cancel`]: Execution::cancel
    abort_processed: Cell<bool>,
}

impl Execution {
    /// The caller's signal aborted. The promise rejects with the reason at once; a task
    /// later, a tool still running sees its signal abort and `toolcancel` fires at the
    /// ModelContext and at the window (WPT `webmcp/imperative/executeTool-abort`, whose
    /// order native Chromium also has). By then a tool called in the same task as the abort
    /// has started (the start is a microtask), so it hears the abort; one still waiting
    /// for the validator module never starts.
    fn cancel(self: &Rc<Self>, reason: &JsValue) {
        if self.done.is_settled() {
            return;
        }
        self.done.settle(false, reason);
        let me = self.clone();
        self.inner.queue(move || {
            me.abort_processed.set(true);
            if me.started.get() && !me.finished.get() {
                me.cancel.cancel("The tool call was cancelled.");
                me.inner.fire_cancel(&me.name);
            }
        });
    }
}

/// `executeTool(tool, inputObject, options)`.
///
/// Spec: <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-executetool> (digest: "executeTool"); the input check
/// against the schema is beyond the spec (digest: "Input validation").
pub(super) fn execute_tool(
    inner: &Rc<EngineInner>,
    tool: &JsValue,
    input: &JsValue,
    options: &JsValue,
) -> Result<Promise, JsValue> {
    // WebIDL conversions: the RegisteredTool, then the options.
    let which = which_tool(inner, tool)?;
    let opts = Dictionary::new(
        options,
        "Failed to execute 'executeTool' on 'ModelContext': parameter 3",
    )?;
    let signal = read_signal(&opts, "executeTool")?;
    // The document checks come before the input is looked at (as in Chromium).
    check_document(inner)?;
    super::super::frames::check_policy(inner)?;
    let (args, text) = read_input(input)?;
    let (name, origin, window) = match which {
        Which::Here(name) => return run(inner, name, args, text, signal),
        Which::Elsewhere(name, origin, window) => (name, origin, window),
    };
    // An unknown tool, or one of another window or origin → UnknownError.
    if window != *inner.global() {
        // The tool's document went away (its frame was detached or navigated away).
        if js::is_closed(&window) {
            return Err(DomError::InvalidState(
                "The tool's document is not fully active (its frame was detached).".into(),
            )
            .into_js());
        }
        // A tool of another same-origin document of the frame tree runs there, through that
        // document's own executeTool (its checks, its toolactivated).
        if let Some(peer) = super::super::frames::peer_for(inner, &window) {
            let outcome = js::call(&peer, "executeTool", &[tool, input, options])?;
            return Ok(settle_unless_gone(&window, outcome)?.promise().clone());
        }
        // A tool of another origin's document runs there, over the frame wire, if that
        // document listed it for this one.
        if let Some(sig) = &signal {
            if sig.aborted() {
                return Err(sig.reason());
            }
        }
        return super::super::frames::calls::call(inner, &window, &origin, &name, &args, signal)
            .map_err(DomError::into_js);
    }
    // This window's tool of another origin (`which_tool` said Here for this origin's).
    Err(unknown(&name))
}

/// `executeTool(name, inputJson)` of `modelContextTesting`: the same checks and run as
/// [`execute_tool`] for a tool of this document, without a `RegisteredTool` to read (the
/// input, JSON text, is parsed once, into the value the tool is called with).
pub(crate) fn execute_by_name(
    inner: &Rc<EngineInner>,
    name: String,
    input: Value,
) -> Result<Promise, JsValue> {
    check_document(inner)?;
    super::super::frames::check_policy(inner)?;
    if !input.is_object() && !input.is_array() {
        return Err(not_object());
    }
    run(inner, name, input, None, None)
}

/// Runs this document's tool `name` once the caller's checks are done: validates `args`,
/// fires `toolactivated`, calls `execute` and settles the returned promise with its result.
/// `text`, when given, is `args`' JSON text as a JS string, which `execute`'s copy of the
/// input is parsed from.
fn run(
    inner: &Rc<EngineInner>,
    name: String,
    args: Value,
    text: Option<JsValue>,
    signal: Option<web_sys::AbortSignal>,
) -> Result<Promise, JsValue> {
    let Some((registered, data)) = inner.tool_data(&name) else {
        return Err(unknown(&name));
    };
    // A form's controls take text: input is coerced as native Chromium fills them (the
    // text then no longer says what the input is).
    let (args, text) = if data.door == Door::Form {
        let schema = registered.def.input_schema.as_ref().and_then(|s| s.value().ok());
        (super::super::forms::coerce(schema.as_ref(), args), None)
    } else {
        (args, text)
    };
    // An already-aborted signal rejects with its reason.
    if let Some(sig) = &signal {
        if sig.aborted() {
            return Err(sig.reason());
        }
    }
    // Beyond the spec: the input must satisfy the tool's input schema (DataError). While the
    // validator module is loading (super::validator) the check waits for it, in the task
    // below; if it cannot be loaded, the call rejects with an UnknownError naming its URL.
    let validator = registered
        .input
        .as_ref()
        .and_then(|_| inner.server().validator_ready_for(&registered));
    if validator.is_none() {
        check_input(&registered, &name, &args)?;
    }
    let run = Rc::new(Execution {
        inner: inner.clone(),
        name,
        done: js::Deferred::new(),
        cancel: CancellationToken::new(),
        started: Cell::new(false),
        finished: Cell::new(false),
        abort_processed: Cell::new(false),
    });
    // options.signal aborted later → reject; then, a task later, the execute signal aborts
    // and toolcancel fires (Execution::cancel).
    if let Some(sig) = signal {
        let r = run.clone();
        let s = sig.clone();
        js::on_abort(&sig, move || r.cancel(&s.reason()));
    }
    // In a later microtask: call `execute(inputObject, { signal })`, then fire
    // `toolactivated` at the ModelContext and at the window (WPT
    // `webmcp/imperative/executeTool-abort`: the tool has started when the event is heard;
    // native Chromium has the same order).
    let r = run.clone();
    let promise = run.done.promise().clone();
    js::spawn(async move {
        if let Some(ready) = validator {
            let checked = match ready.await {
                Ok(()) => check_input(&registered, &r.name, &args),
                Err(e) => Err(DomError::Unknown(e.to_string())),
            };
            if let Err(e) = checked {
                r.done.settle(false, &e.into_js());
                return;
            }
        }
        // The caller's abort was processed before the tool could start: it never starts.
        // (An abort not yet processed still lets it start, and it hears the abort; the
        // promise, already rejected by it, is the only way `done` is settled by now.)
        if r.abort_processed.get() {
            return;
        }
        r.started.set(true);
        let me = &r.inner;
        let ctx = RequestContext::detached(r.cancel.clone());
        let call_opts = call_options(&ctx, None);
        let input = match &text {
            Some(text) => js::parse_text(text).unwrap_or_else(|_| js::from_json(&args)),
            None => js::from_json(&args),
        };
        // A form's `execute` fills its controls first, so they hold the input when the
        // event is heard (as the WPT's declarative tests ask).
        let called = data.execute().call2(&JsValue::UNDEFINED, &input, &call_opts);
        me.fire_activated(&r.name);
        let outcome = settled(called).await;
        r.finished.set(true);
        // Result: a string as is, anything else serialized; a throw or rejection →
        // UnknownError keeping the message.
        match outcome {
            // A form whose submission went ahead (it navigates): null, as in Chromium.
            Ok(v) if data.door == Door::Form && super::super::forms::is_navigated(&v) => {
                r.done.settle(true, &JsValue::NULL)
            }
            Ok(v) => match serialize_result(&r.name, &v) {
                Ok(text) => r.done.settle(true, &text),
                Err(e) => r.done.settle(false, &e.into_js()),
            },
            // A form's own failure (reset, preventDefault without respondWith, an invalid
            // form, a newer call) is already the exception to report.
            Err(e) if data.door == Door::Form && super::super::forms::is_own_failure(&e) => {
                r.done.settle(false, &e)
            }
            // Beyond the spec: the tool's Standard Schema refused the input (store.rs), as the
            // JSON Schema check above would have.
            Err(e) if super::super::store::refused_input(&e) => r.done.settle(false, &e),
            Err(e) => r.done.settle(
                false,
                &DomError::Unknown(format!(
                    "Tool {:?} failed: {}",
                    r.name,
                    js::error_message(&e)
                ))
                .into_js(),
            ),
        }
    });
    Ok(promise)
}

/// A promise settled as `outcome` (another document's promise: adopted, not cast, its
/// `DOMException`s made again in this realm), or rejected with `UnknownError` if that document
/// (`window`'s) goes away first.
fn settle_unless_gone(window: &JsValue, outcome: JsValue) -> Result<js::Deferred, JsValue> {
    let done = js::Deferred::new();
    let d = done.clone();
    let gone = js::Listener::dom(window, "pagehide", move |_, _| {
        let e = DomError::Unknown("The tool's document went away before it answered.".into());
        d.settle(false, &e.into_js());
    })?;
    let d = done.clone();
    js::spawn(async move {
        let r = wasm_bindgen_futures::JsFuture::from(Promise::resolve(&outcome)).await;
        drop(gone);
        match r {
            Ok(v) => d.settle(true, &v),
            Err(e) => d.settle(false, &js::in_this_realm(e)),
        }
    });
    Ok(done)
}


/// `executeTool` as this document runs it for another origin's document (the frame wire's
/// executor, `frames::calls`).
pub(crate) fn execute(
    inner: &Rc<EngineInner>,
    tool: &JsValue,
    input: &JsValue,
    options: &JsValue,
) -> Promise {
    reject_on_error(execute_tool(inner, tool, input, options))
}


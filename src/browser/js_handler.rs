//! Page functions as engine handlers.
//!
//! Every page callback — a W3C `execute`, a session-API `handler`, a resource reader, a
//! prompt renderer, a completer — is called as `fn(input, options)` where `options`
//! carries `signal` (an `AbortSignal` that aborts when the call is cancelled) plus, for MCP
//! calls, `requestId`, `reportProgress`, `log`, `sendRequest`, `sendNotification` (the MCP
//! TypeScript SDK v1's, for progress and log messages), `mcpReq` (v2's context) and `_meta`;
//! and, for pages written against early drafts, `requestUserInteraction(cb)`.

use crate::collections::{Numbered, VecMap};
use js_sys::{Function, Promise};
use serde_json::Value;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use crate::js;
use crate::js::DomError;
use crate::protocol::json_text;
use crate::server::{
    Completer, HandlerError, HandlerResult, HeldArguments, HeldPlace, HeldText, LocalBoxFuture, LogLevel,
    PathStep, PromptHandler, RequestContext, ResourceHandler, ToolHandler,
};

/// Calls `f(input, options)` and awaits its result (thenables included). `Err` carries
/// the thrown or rejected value.
pub async fn invoke(f: &Function, input: &JsValue, options: &JsValue) -> Result<JsValue, JsValue> {
    settled(f.call2(&JsValue::UNDEFINED, input, options)).await
}

/// What `f(…)` returned (or threw), awaited when it is a thenable.
pub async fn settled(called: Result<JsValue, JsValue>) -> Result<JsValue, JsValue> {
    let r = called?;
    if js::is_thenable(&r) {
        js::wait::settled(&r).await
    } else {
        Ok(r)
    }
}

#[wasm_bindgen]
extern "C" {
    /// The maker `polyfill/src/call_options.js`'s factory returns, called with a typed
    /// signature: one call into JS per options object, no argument array. `signal`: the
    /// call's own, or `None` for one made when the page first reads it.
    type OptionsMaker;
    #[wasm_bindgen(method, catch, js_name = call)]
    #[allow(clippy::too_many_arguments)]
    fn make(
        this: &OptionsMaker,
        this_arg: &JsValue,
        signal: Option<&web_sys::AbortSignal>,
        call: u32,
        in_task: bool,
        request_id: &JsValue,
        meta: &JsValue,
        input_responses: &JsValue,
        request_state: Option<&str>,
    ) -> Result<JsValue, JsValue>;
}

thread_local! {
    /// `polyfill/src/call_options.js`'s maker and its `abort`, set by [`use_call_options`].
    static MAKE_OPTIONS: RefCell<Option<Maker>> = const { RefCell::new(None) };
    /// The running calls' contexts, by the number their options object carries.
    static CALLS: RefCell<Calls> = const { RefCell::new(Numbered::new()) };
}

/// `polyfill/src/call_options.js`'s two functions.
struct Maker {
    make: OptionsMaker,
    /// `abort(options, reason)`: aborts the signal of options made without one, now or
    /// when the page first reads it.
    abort: Function,
}

/// The contexts of the calls whose options objects are live ([`CallOptions`]): the one
/// shared dispatcher finds a call's context here by number. A table instead of a closure per
/// call: every wasm-bindgen closure handed to JS is registered with a `FinalizationRegistry`,
/// and a weak cell per call was a measurable share of each major garbage collection.
type Calls = Numbered<RequestContext>;

/// A call's options object (it derefs to it), valid while this lives: dropped when the call
/// has settled, its functions then do nothing (`reportProgress`, `log` and `setStatus` return
/// `false`, `sendRequest` rejects, `getTaskId` returns `undefined`).
pub struct CallOptions {
    value: JsValue,
    id: Option<u32>,
}

impl std::ops::Deref for CallOptions {
    type Target = JsValue;
    fn deref(&self) -> &JsValue {
        &self.value
    }
}

impl Drop for CallOptions {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            CALLS.with(|c| c.borrow_mut().remove(id));
        }
    }
}

/// Takes the options maker from the engine's `config.callOptions` (the core's
/// `__mcpCallOptions`), giving it the one `requestUserInteraction` every call shares and the
/// one dispatcher every call's functions call with its number.
pub fn use_call_options(config: &JsValue) -> Result<(), JsValue> {
    let factory = js::get(config, "callOptions")?
        .dyn_into::<Function>()
        .map_err(|_| js::needed("callOptions"))?;
    let request_user_interaction =
        Closure::<dyn Fn(JsValue) -> JsValue>::new(|cb: JsValue| -> JsValue {
            js::warn_once(
                "requestUserInteraction",
                "modelcontext-polyfill: execute(input, client) and client.requestUserInteraction() \
                 are deprecated (earlier WebMCP drafts); execute now receives (input, { signal }).",
            );
            match cb.dyn_ref::<Function>() {
                Some(f) => match f.call0(&JsValue::UNDEFINED) {
                    Ok(v) => Promise::resolve(&v).into(),
                    Err(e) => Promise::reject(&e).into(),
                },
                None => Promise::reject(&js::type_error("requestUserInteraction needs a callback"))
                    .into(),
            }
        })
        .into_js_value();
    let dispatcher = Closure::<dyn Fn(u32, u32, JsValue, JsValue, JsValue) -> JsValue>::new(
        |id: u32, kind: u32, a: JsValue, b: JsValue, d: JsValue| -> JsValue {
            let ctx = CALLS.with(|c| c.borrow().get(id).cloned());
            match ctx {
                Some(ctx) => dispatch(&ctx, kind, a, b, d),
                None => ended(kind),
            }
        },
    )
    .into_js_value();
    let made = factory.call2(&JsValue::UNDEFINED, &request_user_interaction, &dispatcher)?;
    let function = |name: &'static str| {
        js::get(&made, name)?
            .dyn_into::<Function>()
            .map_err(|_| js::type_error("callOptions did not return { make, abort }"))
    };
    let maker = Maker {
        make: function("make")?.unchecked_into(),
        abort: function("abort")?,
    };
    MAKE_OPTIONS.with(|m| *m.borrow_mut() = Some(maker));
    Ok(())
}

/// What a call's dispatcher is asked for (`polyfill/src/call_options.js`).
const PROGRESS: u32 = 0;
const LOG: u32 = 1;
const REQUEST: u32 = 2;
const STATUS: u32 = 3;
const TASK_ID: u32 = 4;

/// The `options` object handed to a page callback, wired to `ctx`: `signal` is its one
/// enumerable member (the IDL's `ToolExecuteCallbackOptions`); the extras — MCP's
/// `requestId`, `_meta`, `reportProgress`, `log`, `sendRequest`, `sendNotification`, `mcpReq`,
/// and early drafts' `requestUserInteraction` — are non-enumerable properties, reachable by
/// name.
/// The functions are made in JS when first read, all calling the one dispatcher with this
/// call's number, which finds `ctx` while the returned [`CallOptions`] lives.
///
/// `signal`: the call's own (a native tool's), or `None` for one that aborts when
/// `ctx.cancel` fires with an `AbortError` carrying its reason; the maker makes that one when
/// the page first reads it.
pub fn call_options(ctx: &RequestContext, signal: Option<&web_sys::AbortSignal>) -> CallOptions {
    // The IDL's dictionary alone: without a maker (handlers used without an engine), or if it
    // failed.
    let bare = || {
        let o: JsValue = js::object().into();
        match signal {
            Some(s) => js::set(&o, "signal", s),
            None => js::set(&o, "signal", &controller_for(ctx).signal()),
        }
        o
    };
    if MAKE_OPTIONS.with(|m| m.borrow().is_none()) {
        return CallOptions {
            value: bare(),
            id: None,
        };
    }
    let id = CALLS.with(|c| c.borrow_mut().insert(ctx.clone()));
    let undefined_or = |v: Option<JsValue>| v.unwrap_or(JsValue::UNDEFINED);
    let request_id = undefined_or(
        ctx.request_id
            .as_ref()
            .map(|id| js::from_json(&id.to_value())),
    );
    let meta = undefined_or((!ctx.meta().is_null()).then(|| js::from_json(ctx.meta())));
    // 2026-07-28 retries after an input-required result (server::input_required).
    let input_responses = undefined_or(
        ctx.input_responses()
            .map(|r| js::from_json(&Value::Object(r.clone()))),
    );
    let made = MAKE_OPTIONS.with(|m| {
        let maker = m.borrow();
        let maker = maker.as_ref()?;
        let o = maker
            .make
            .make(
                &JsValue::UNDEFINED,
                signal,
                id,
                ctx.in_task(),
                &request_id,
                &meta,
                &input_responses,
                ctx.request_state(),
            )
            .ok()?;
        if signal.is_none() {
            let (abort, options) = (maker.abort.clone(), o.clone());
            ctx.cancel.on_cancel(move |reason| {
                let reason = DomError::Abort(reason.to_string()).into_js();
                let _ = abort.call2(&JsValue::UNDEFINED, &options, &reason);
            });
        }
        Some(o)
    });
    let value = made.unwrap_or_else(bare);
    CallOptions {
        value,
        id: Some(id),
    }
}

/// What an option function of a call that has settled returns.
fn ended(kind: u32) -> JsValue {
    match kind {
        REQUEST => Promise::reject(&js_sys::Error::new(
            "modelcontext-polyfill: this call has ended; its sendRequest no longer reaches the client",
        ))
        .into(),
        TASK_ID => JsValue::UNDEFINED,
        _ => JsValue::FALSE,
    }
}

/// One of a call's option functions, called by the page.
fn dispatch(c: &RequestContext, kind: u32, a: JsValue, b: JsValue, d: JsValue) -> JsValue {
    match kind {
        PROGRESS => {
            let Some(p) = a.as_f64() else {
                return JsValue::FALSE;
            };
            c.report_progress(p, b.as_f64(), d.as_string().as_deref())
                .into()
        }
        LOG => {
            let level = a
                .as_string()
                .and_then(|l| LogLevel::parse(&l))
                .unwrap_or(LogLevel::Info);
            let data = js::to_json(&b).ok().flatten().unwrap_or(Value::Null);
            c.log(level, d.as_string().as_deref(), data).into()
        }
        REQUEST => {
            let Some(method) = a.as_string() else {
                return Promise::reject(&js::type_error(
                    "sendRequest(method, params): method must be a string, such as \
                     'elicitation/create' (or pass the request, { method, params })",
                ))
                .into();
            };
            let params = js::to_json(&b).ok().flatten();
            let fut = c.request(&method, params);
            wasm_bindgen_futures::future_to_promise(async move {
                match fut.await {
                    Ok(v) => Ok(js::from_json(&v)),
                    Err(e) => {
                        let err = js_sys::Error::new(&e.message);
                        js::set(&err, "code", &JsValue::from_f64(e.code as f64));
                        Err(err.into())
                    }
                }
            })
            .into()
        }
        // The Tasks extension (SEP-2663): a call that may run as a task can set the task's
        // status message and read its id once it is one.
        STATUS => match a.as_string() {
            Some(m) => c.set_task_status(&m).into(),
            None => JsValue::FALSE,
        },
        TASK_ID => match c.task_id() {
            Some(id) => JsValue::from_str(&id),
            None => JsValue::UNDEFINED,
        },
        _ => JsValue::UNDEFINED,
    }
}

/// An `AbortController` that aborts when `ctx.cancel` fires.
fn controller_for(ctx: &RequestContext) -> web_sys::AbortController {
    let controller = web_sys::AbortController::new().expect("AbortController exists");
    let c = controller.clone();
    ctx.cancel.on_cancel(move |reason| {
        c.abort_with_reason(&DomError::Abort(reason.to_string()).into_js());
    });
    controller
}

impl HeldText for js::HeldString {
    fn text(&self) -> String {
        self.0.as_string().unwrap_or_default()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl HeldText for js::HeldJson {
    fn text(&self) -> String {
        self.text.as_string().unwrap_or_default()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Converts a page callback's result to JSON: strings stay strings, `undefined` is `null`.
fn result_to_json(v: &JsValue, what: &dyn fmt::Display) -> HandlerResult {
    if v.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::String(s));
    }
    json_result(js::to_json(v), what)
}

/// What a page callback's result read as JSON is (see [`result_to_json`]).
fn json_result(read: Result<Option<Value>, JsValue>, what: &dyn fmt::Display) -> HandlerResult {
    match read {
        Ok(Some(j)) => Ok(j),
        Ok(None) => Err(HandlerError::new(format!(
            "{what} returned a value JSON cannot represent"
        ))),
        Err(e) => Err(HandlerError::new(format!(
            "{what} returned a value that cannot be serialized: {}",
            js::error_message(&e)
        ))),
    }
}

/// A long string that a `tools/call` answered directly or a `resources/read` answers with,
/// kept a JS string (`server::held`): the result carries its marker.
fn held(v: &JsValue, ctx: &RequestContext) -> Option<HandlerResult> {
    let holder = ctx.holder()?;
    let marker = holder.hold(Box::new(js::HeldString::of_long(v)?)).ok()?;
    Some(Ok(Value::String(marker)))
}

/// Where an object result's long strings may be held from (`server::held`).
#[derive(Clone, Copy, PartialEq)]
enum Holds {
    /// A tool's `CallToolResult`: the `text` of its `content`'s text blocks, and of its
    /// embedded resources (`resource` blocks).
    Blocks,
    /// A resource's contents (`{contents}`, an array of contents, or one): their `text`.
    Contents,
    /// A prompt's messages (`{messages}`, or an array of messages): each one's `content`,
    /// when it is a string, or its text block's or embedded resource's `text`.
    Messages,
}

/// Where an item's long text is.
#[derive(Clone, Copy)]
enum Place {
    /// Its own `text` (a text block's, a text contents').
    Text,
    /// Its embedded resource's `text`.
    Resource,
    /// A prompt message's `content`, a string.
    Content,
    /// A prompt message's text block's `text`.
    ContentText,
    /// A prompt message's embedded resource's `text`.
    ContentResource,
}


/// A page's object result with its long `text` strings held (`server::held`), read from a
/// copy of it with their markers in their places; the page's object is left as it is.
/// `None` when it holds none: the caller reads it whole.
///
/// The copy is the object's JSON as `JSON.stringify` writes it: only an item (a block, a
/// contents, a message, or an embedded resource or a message's block inside one) whose long
/// string is its own enumerable property, and only an object, list, item, block or resource
/// with no `toJSON`, is copied (`Object.assign` copies the own enumerable properties
/// `JSON.stringify` writes, in its order). A text block must say `"type": "text"`, and a
/// block with an embedded resource `"type": "resource"` (a tool's other blocks become JSON
/// text, a prompt's are refused); an object with a `resultType` (an input-required result,
/// not an answer) holds nothing.
fn held_texts(v: &JsValue, ctx: &RequestContext, holds: Holds) -> Option<HandlerResult> {
    let holder = ctx.holder().filter(|_| v.is_object())?;
    let key = match holds {
        Holds::Blocks => "content",
        Holds::Contents => "contents",
        Holds::Messages => "messages",
    };
    // Every read of the page's value catches what a getter or a proxy throws.
    let list = js::get(v, key).ok().filter(|l| is_array(l).unwrap_or(false));
    let (items, whole) = match list {
        Some(list) => (list, Some(key)),
        None if holds != Holds::Blocks && is_array(v).ok()? => (v.clone(), None),
        None if holds == Holds::Contents => (js_sys::Array::of1(v).into(), None),
        None => return None,
    };
    let count = js::get(&items, "length").ok()?.as_f64()? as u32;
    let item = |i: u32| js_sys::Reflect::get_u32(&items, i);
    let mut long = Vec::new();
    for i in 0..count {
        let it = item(i).ok()?;
        let place = match holds {
            Holds::Blocks => block_text(&it),
            // One read of `text` for the common short contents.
            Holds::Contents => js::get(&it, "text")
                .ok()
                .filter(JsValue::is_string)
                .and_then(|text| own_long(&it, &text))
                .map(|t| (Place::Text, t)),
            Holds::Messages => message_text(&it),
        };
        if let Some((at, text)) = place {
            long.push((i, at, text));
        }
    }
    let whole_copied = match whole {
        Some(key) => own(v, key) && js::get(v, "resultType").is_ok_and(|r| r.is_undefined()),
        None => true,
    };
    if !whole_copied || !no_to_json(v) || !no_to_json(&items) {
        return None;
    }
    let structured = match holds {
        Holds::Blocks => structured_part(v, answers_structured(ctx), holder.allows_objects()),
        Holds::Contents | Holds::Messages => None,
    };
    if long.is_empty() && structured.is_none() {
        return None;
    }
    // The copy has an empty object for the structured content; where an output schema reads
    // it, the schema checks the held copy's own text (one text: what is checked is what is
    // answered, whatever a getter of the page's object gives a second time).
    let placeholder = structured.is_some();
    let structured = structured.map(|s| Box::new(s) as Box<dyn HeldText>);
    let mut at = Vec::with_capacity(long.len());
    let mut texts: Vec<Box<dyn HeldText>> = Vec::with_capacity(long.len());
    for (i, place, text) in long {
        at.push((i, place));
        texts.push(Box::new(text));
    }
    let value = holder.hold_within(texts, structured, |markers| {
        let copy = js_sys::Array::new();
        for i in 0..count {
            copy.push(&item(i).ok()?);
        }
        for (&(i, place), m) in at.iter().zip(markers) {
            copy.set(i, with_marker(&copy.get(i), place, &JsValue::from_str(m))?);
        }
        let copy: JsValue = match whole {
            Some(key) => {
                let o = assign(&js::object(), v).ok()?;
                js::set(&o, key, &copy);
                if placeholder {
                    js::set(&o, "structuredContent", &js::object());
                }
                o
            }
            None if is_array(v).ok()? => copy.into(),
            None => copy.get(0),
        };
        let value = js::object_to_json(&copy).ok().flatten()?;
        // Each block with a marker is still a block as the answer keeps it: one that is not
        // (a getter gave another `type` the second time, a resource without a string `uri`)
        // is answered as its JSON text by a tool (`results::call_tool_result`), and refused
        // with its JSON text in the error by a prompt (`results::prompt_result`), marker and
        // all: read whole. (A message's string content becomes a text block.)
        let items = match holds {
            Holds::Blocks => value.get("content")?.as_array()?,
            Holds::Messages => value.get("messages").unwrap_or(&value).as_array()?,
            Holds::Contents => return Some(value),
        };
        let kept = |&(i, place): &(u32, Place)| {
            let it = items.get(i as usize);
            match place {
                Place::Content => true,
                Place::ContentText | Place::ContentResource => it
                    .and_then(|m| m.get("content"))
                    .is_some_and(crate::server::results::is_valid_block),
                Place::Text | Place::Resource => {
                    it.is_some_and(crate::server::results::is_valid_block)
                }
            }
        };
        at.iter().all(kept).then_some(value)
    })?;
    Some(Ok(value))
}

/// A copy of `o` (its own enumerable properties, `Object.assign`'s) with the string at `place`
/// replaced by `marker`, each object on the way there copied the same way.
fn with_marker(o: &JsValue, place: Place, marker: &JsValue) -> Option<JsValue> {
    let (key, inner) = match place {
        Place::Text => ("text", None),
        Place::Resource => ("resource", Some(Place::Text)),
        Place::Content => ("content", None),
        Place::ContentText => ("content", Some(Place::Text)),
        Place::ContentResource => ("content", Some(Place::Resource)),
    };
    let copy = assign(&js::object(), o).ok()?;
    let value = match inner {
        None => marker.clone(),
        Some(place) => with_marker(&js::get(&copy, key).ok()?, place, marker)?,
    };
    js::set(&copy, key, &value);
    Some(copy)
}

/// A content block's long text, and where it is: a text block's own `text`, or its embedded
/// resource's (a `resource` block's). One read of `text` for the common short text block.
fn block_text(block: &JsValue) -> Option<(Place, js::HeldString)> {
    let kind = || js::get(block, "type").ok().and_then(|t| t.as_string());
    match js::get(block, "text") {
        Ok(text) if text.is_string() => own_long(block, &text)
            .filter(|_| kind().as_deref() == Some("text"))
            .map(|t| (Place::Text, t)),
        _ if own(block, "resource")
            && no_to_json(block)
            && kind().as_deref() == Some("resource") =>
        {
            let resource = js::get(block, "resource").ok()?;
            let text = js::get(&resource, "text").ok()?;
            own_long(&resource, &text).map(|t| (Place::Resource, t))
        }
        _ => None,
    }
}

/// A prompt message's long text, and where it is: its `content` when that is a string, or
/// its content block's ([`block_text`]); when `content` is the message's own enumerable
/// property and the message has no `toJSON`. (Apart from [`held_texts`], which a page's tool
/// calls run: a prompt's, its code goes with the core's deferred module.)
#[inline(never)]
fn message_text(message: &JsValue) -> Option<(Place, js::HeldString)> {
    let content = js::get(message, "content").ok()?;
    let place = if content.is_string() {
        (Place::Content, js::HeldString::of_long(&content)?)
    } else if content.is_object() {
        match block_text(&content)? {
            (Place::Text, t) => (Place::ContentText, t),
            (_, t) => (Place::ContentResource, t),
        }
    } else {
        return None;
    };
    (own(message, "content") && no_to_json(message)).then_some(place)
}

/// `text`, read from `o`'s `text`, when it is long, `o`'s own enumerable property, and `o` has
/// no `toJSON`: what [`held_texts`] may hold and copy.
fn own_long(o: &JsValue, text: &JsValue) -> Option<js::HeldString> {
    let text = js::HeldString::of_long(text)?;
    (own(o, "text") && no_to_json(o)).then_some(text)
}

/// Whether the answer to `ctx`'s request carries a `structuredContent` (2025-06-18 and later):
/// only then is a held one's value (its `JSON.parse` copy, or the page's object) given.
/// Before, the result's JSON text (its text block, and an output schema's check) is all the
/// answer and the engine read.
fn answers_structured(ctx: &RequestContext) -> bool {
    ctx.version
        .is_none_or(crate::protocol::ProtocolVersion::has_structured_content)
}

/// A `CallToolResult`'s `structuredContent` to hold whole (`server::held`): when it is the
/// result's own enumerable property, an object (not an array) with no `toJSON`, and its JSON
/// is long: when `copy` asks for a value, the object itself where no output schema checks it
/// (`unchecked`) and a clone of it is its JSON data ([`clones_as_json`]), else `JSON.parse` of
/// that JSON (a fresh copy, made in JS); with the JSON. Where an output schema reads it, the
/// engine reads that JSON, and the copy of it is answered: what is checked is what is answered,
/// whatever a getter gives when the object is read again.
fn structured_part(v: &JsValue, copy: bool, unchecked: bool) -> Option<js::HeldJson> {
    if !own(v, "structuredContent") {
        return None;
    }
    let sc = js::get(v, "structuredContent").ok()?;
    if !sc.is_object() || is_array(&sc).ok()? || !no_to_json(&sc) {
        return None;
    }
    let text: JsValue = js_sys::JSON::stringify(&sc).ok()?.into();
    js::HeldString::of_long(&text)?;
    if copy && unchecked && clones_as_json(&sc) {
        return Some(js::HeldJson {
            text,
            value: Some(sc),
            own: true,
        });
    }
    let value = match copy {
        true => Some(js::parse_text(&text).ok()?),
        false => None,
    };
    Some(js::HeldJson {
        text,
        value,
        own: false,
    })
}

/// A tool's object result, when it may be held whole (`server::held`): an object that is not
/// a `CallToolResult`, whose `JSON.stringify` text is long, has that text as its answer's text
/// block and, as its `structuredContent`, the object itself where no output schema checks it
/// and a clone of it is its JSON data ([`clones_as_json`]: a wire that copies what it posts
/// carries it), else `JSON.parse` of the text (a fresh copy, made in JS); the engine reads
/// neither where the tool has no output schema to check, and reads the same text for the
/// check where it has one. Before 2025-06-18, whose answers have no
/// `structuredContent`, the text alone is answered, and an object whose own members show it
/// plain ([`plain_object`]) is held without the copy. Any other object is read from the same
/// text. `None` when `v` is not an object or the request may not hold strings: the caller
/// reads it.
///
/// The text block is then `JSON.stringify`'s text of the value, where a result read by the
/// engine has `serde_json`'s: the same JSON, written alike but for a number's form (`1e+21`
/// and `1e21`) and a lone surrogate (escaped, where the engine reads it as U+FFFD).
fn held_object(
    v: &JsValue,
    ctx: &RequestContext,
    what: &dyn fmt::Display,
) -> Option<HandlerResult> {
    let holder = ctx.holder().filter(|_| v.is_object())?;
    // A CallToolResult (its text blocks were looked at already) or an array is not one: no
    // need to parse its text to know.
    let not_one = is_array(v).unwrap_or(true)
        || js::get(v, "content").is_ok_and(|c| is_array(&c).unwrap_or(false));
    let text: JsValue = match js_sys::JSON::stringify(v) {
        Ok(t) => t.into(),
        Err(e) => return Some(json_result(Err(e), what)),
    };
    let read = |text: JsValue| js::json_text_read(text).map(|r| r.map(|(v, _)| v));
    let unchecked = holder.allows_objects();
    let whole = || match answers_structured(ctx) {
        true => whole_object(v, &text, unchecked),
        false => text_alone(v, &text),
    };
    let Some(object) = (!not_one && js::HeldString::of_long(&text).is_some())
        .then(whole)
        .flatten()
    else {
        return Some(json_result(read(text), what));
    };
    let block = Box::new(js::HeldString(object.text.clone()));
    let held = holder.hold_object(block, Box::new(object));
    // Not held (a string of the page's reads as a marker): read again, as any result.
    Some(held.map_or_else(|| json_result(read(text), what), Ok))
}

/// [`held_object`]'s hold for a version whose answers have no `structuredContent`: `text`,
/// `JSON.stringify` of `v`, answered with no copy, where `v`'s own members show it plain
/// ([`plain_object`]); else [`whole_object`]'s. (Apart from [`held_object`]: the 2024-11-05
/// and 2025-03-26 versions' code goes with the core's deferred module.)
#[inline(never)]
fn text_alone(v: &JsValue, text: &JsValue) -> Option<js::HeldJson> {
    if !plain_object(v) {
        return whole_object(v, text, false);
    }
    // (A boxed string is written as a string.)
    let first: JsValue = text.unchecked_ref::<js_sys::JsString>().slice(0, 1).into();
    (first == JsValue::from_str("{")).then(|| js::HeldJson {
        text: text.clone(),
        value: None,
        own: false,
    })
}

/// Whether `JSON.stringify` of `v` has no member that says how it is answered (`content`,
/// `structuredContent`, `resultType`), known without parsing it: `v` has none of them as its
/// own enumerable properties and no `toJSON` (`JSON.stringify` writes those and only those).
/// When its text is an object's, it is answered as that text and itself, as [`whole_object`]
/// would find after parsing it.
fn plain_object(v: &JsValue) -> bool {
    no_to_json(v) && !own(v, "content") && !own(v, STRUCTURED) && !own(v, "resultType")
}

/// [`held_object`]'s value of a result `v` whose JSON is `text`, with its text: `v` itself
/// where no output schema checks it (`unchecked`) and a clone of it is its JSON data
/// ([`clones_as_json`]), else `JSON.parse` of `text` (a fresh copy, which is what a schema
/// checked); for `{structuredContent: x}` alone, x's (which `results::call_tool_result`
/// answers as x alone: x's JSON text and x), when x is an object. `None` when it is a
/// `CallToolResult`, an input-required result or `{structuredContent: x}` with x anything else
/// (read from the copy: plain data), which are not answered as their JSON text and their copy.
fn whole_object(v: &JsValue, text: &JsValue, unchecked: bool) -> Option<js::HeldJson> {
    let own = unchecked && clones_as_json(v);
    let held = |text: JsValue, value: JsValue| {
        Some(js::HeldJson {
            text,
            value: Some(value),
            own,
        })
    };
    // (What `v`'s own members show needs no more look: its text is answered with it.)
    if own && plain_object(v) {
        return held(text.clone(), v.clone());
    }
    let value = match own {
        true => v.clone(),
        false => js::parse_text(text).ok()?,
    };
    if !value.is_object() || is_array(&value).ok()? {
        return None;
    }
    let keys = js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>());
    if keys.length() == 1 && keys.get(0).as_string().as_deref() == Some(STRUCTURED) {
        let inner = js::get(&value, STRUCTURED).ok()?;
        if !inner.is_object() || is_array(&inner).ok()? {
            return None;
        }
        // JSON.stringify wrote `{"structuredContent":` x's text `}`, the one member alone.
        let text = text.unchecked_ref::<js_sys::JsString>();
        let start = STRUCTURED.len() as u32 + 4;
        let inner_text = text.slice(start, text.length().checked_sub(1)?);
        return held(inner_text.into(), inner);
    }
    let content = js::get(&value, "content").ok()?;
    let input_required = !js::get(&value, "resultType").ok()?.is_undefined();
    if input_required || is_array(&content).ok()? {
        return None;
    }
    held(text.clone(), value)
}

/// Whether a structured clone of `v` is its JSON data, what `JSON.parse` of its text would give
/// (`polyfill/src/json_clone.js`, the engine's `config.clonesAsJson`): then an answer a wire
/// copies may carry `v` itself, where it would otherwise carry such a copy, made at once, and
/// then the post's. `false` without the helper.
fn clones_as_json(v: &JsValue) -> bool {
    CLONES_AS_JSON.with(|h| {
        h.with(|f| {
            f.unchecked_ref::<ClonesAsJson>()
                .test(&JsValue::UNDEFINED, v)
                .unwrap_or(false)
        })
    })
    .unwrap_or(false)
}

thread_local! {
    /// `config.clonesAsJson` ([`use_clones_as_json`]).
    static CLONES_AS_JSON: js::Helper = const { js::Helper::new("clonesAsJson") };
}

/// Takes `config.clonesAsJson` (absent: a long object result is answered with a `JSON.parse`
/// copy of its text).
pub fn use_clones_as_json(config: &JsValue) {
    CLONES_AS_JSON.with(|h| h.take(config));
}

/// The member of a result that holds its structured content.
const STRUCTURED: &str = "structuredContent";

#[wasm_bindgen]
extern "C" {
    /// `polyfill/src/json_clone.js`'s `__mcpClonesAsJson`, called with a typed signature.
    type ClonesAsJson;
    #[wasm_bindgen(method, catch, js_name = call)]
    fn test(this: &ClonesAsJson, this_arg: &JsValue, v: &JsValue) -> Result<bool, JsValue>;
    /// `Object.assign(target, source)`, what a getter or a proxy throws as `Err`.
    #[wasm_bindgen(js_namespace = Object, js_name = assign, catch)]
    fn assign(target: &JsValue, source: &JsValue) -> Result<JsValue, JsValue>;
    /// `Array.isArray(v)`; `Err` for a revoked proxy.
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn is_array(v: &JsValue) -> Result<bool, JsValue>;
}

/// Whether `key` is an own enumerable property of `o` (one `JSON.stringify` writes).
fn own(o: &JsValue, key: &'static str) -> bool {
    if !o.is_object() {
        return false;
    }
    js_sys::Reflect::get_own_property_descriptor(o.unchecked_ref::<js_sys::Object>(), &js::name(key))
        .is_ok_and(|d| js::get(&d, "enumerable").is_ok_and(|e| e.is_truthy()))
}

/// Whether `JSON.stringify` writes `o` as its properties (it has no `toJSON` to call).
fn no_to_json(o: &JsValue) -> bool {
    js::get(o, "toJSON").is_ok_and(|f| !f.is_function())
}

/// What a page function's error messages call it ("Tool add"), written only when one is: a
/// call that succeeds formats nothing.
struct Label(&'static str, Rc<str>);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, self.1)
    }
}

async fn call_json(
    f: Function,
    input: JsValue,
    ctx: RequestContext,
    what: Label,
    holds: Holds,
) -> HandlerResult {
    let options = call_options(&ctx, None);
    match invoke(&f, &input, &options).await {
        Ok(v) => held(&v, &ctx)
            .or_else(|| held_texts(&v, &ctx, holds))
            // (Only a tool's object result is answered as its JSON text and the object.)
            .or_else(|| match holds {
                Holds::Blocks => held_object(&v, &ctx, &what),
                Holds::Contents | Holds::Messages => None,
            })
            .unwrap_or_else(|| result_to_json(&v, &what)),
        Err(e) => Err(thrown(&e)),
    }
}

/// What a page function threw. An error carrying a negative integer `code` (a JSON-RPC
/// error code, as the MCP SDKs' `ProtocolError` has; DOMException codes are positive) is a
/// protocol error: a task then ends `failed` with it (SEP-2663), its `data` included.
fn thrown(e: &JsValue) -> HandlerError {
    let mut h = HandlerError::new(js::error_message(e));
    let code = js::get(e, "code").ok().and_then(|c| c.as_f64());
    if let Some(c) = code.filter(|c| c.fract() == 0.0 && *c < 0.0 && *c >= -9_007_199_254_740_991.0)
    {
        h.code = Some(c as i64);
        h.data = js::get(e, "data")
            .ok()
            .filter(|d| !d.is_undefined())
            .and_then(|d| js::to_json(&d).ok().flatten());
    }
    h
}

/// A page function as a tool handler.
pub struct JsTool {
    /// The tool's name (its error messages name it).
    pub name: Rc<str>,
    /// `execute(input, options)`.
    pub f: Function,
}

impl JsTool {
    /// The page function called with `input`, its JS copy of the arguments.
    fn call_js(&self, input: JsValue, ctx: RequestContext) -> LocalBoxFuture<'static, HandlerResult> {
        Box::pin(call_json(
            self.f.clone(),
            input,
            ctx,
            Label("Tool", self.name.clone()),
            Holds::Blocks,
        ))
    }
}

impl ToolHandler for JsTool {
    fn call(&self, args: Value, ctx: RequestContext) -> LocalBoxFuture<'static, HandlerResult> {
        self.call_js(js::from_json(&args), ctx)
    }
    fn call_shared(
        &self,
        args: Rc<Value>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        self.call_js(js::from_json(&args), ctx)
    }
    /// The page's function gets the strings the transport held (`server::held::HeldArguments`)
    /// as they came, in place of their markers: the text is never copied in or out.
    fn call_holding(
        &self,
        args: Rc<Value>,
        held: Rc<HeldArguments>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        let markers: Vec<&str> = held.markers().collect();
        let string = |m: &str| {
            let t = held.get(m)?.as_any().downcast_ref::<js::HeldString>()?;
            Some(t.0.clone())
        };
        let args = js::from_json_holding(&args, &markers, &|_| true, &string);
        self.call_js(args, ctx)
    }
    fn takes_text(&self) -> bool {
        true
    }
    /// The page's function gets `JSON.parse`'s copy of the text, with the strings the
    /// transport held, as they came, in their places.
    fn call_text_holding(
        &self,
        args: Rc<str>,
        places: Rc<[HeldPlace]>,
        held: Rc<HeldArguments>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        let parsed = js_sys::JSON::parse(&args).unwrap_or(JsValue::NULL);
        for place in places.iter() {
            let Some(t) = held.get(&place.marker) else {
                continue;
            };
            let Some(string) = t.as_any().downcast_ref::<js::HeldString>() else {
                continue;
            };
            let path: Vec<json_text::Step> = place.path.iter().map(PathStep::step).collect();
            js::set_at(&parsed, &path, &string.0);
        }
        self.call_js(parsed, ctx)
    }
    /// The page's function gets `JSON.parse`'s copy of the agent's text.
    fn call_text(
        &self,
        args: Rc<str>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        let args = js_sys::JSON::parse(&args).unwrap_or(JsValue::NULL);
        self.call_js(args, ctx)
    }
}

fn string_map_to_js(m: &VecMap<String, String>) -> JsValue {
    let o: JsValue = js::object().into();
    for (k, v) in m {
        js::set_any(&o, k, &JsValue::from_str(v));
    }
    o
}

/// A page function as a resource reader: `handler(uri, variables, options)`; the URI is a
/// `URL` object when the browser can parse it, else a string.
pub struct JsResource {
    /// `handler(uri, variables, options)`.
    pub f: Function,
}

impl ResourceHandler for JsResource {
    fn read(
        &self,
        uri: String,
        vars: VecMap<String, String>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        let f = self.f.clone();
        Box::pin(async move {
            let options = call_options(&ctx, None);
            let uri_js: JsValue = web_sys::Url::new(&uri)
                .map(JsValue::from)
                .unwrap_or_else(|_| JsValue::from_str(&uri));
            let r = f.call3(
                &JsValue::UNDEFINED,
                &uri_js,
                &string_map_to_js(&vars),
                &options,
            );
            let r = match r {
                Ok(v)
                    if v.is_object()
                        && js::get(&v, "then")
                            .map(|t| t.is_function())
                            .unwrap_or(false) =>
                {
                    js::wait::settled(&v).await
                }
                other => other,
            };
            match r {
                Ok(v) => held(&v, &ctx)
                    .or_else(|| held_texts(&v, &ctx, Holds::Contents))
                    .unwrap_or_else(|| result_to_json(&v, &format_args!("Resource {uri}"))),
                Err(e) => Err(HandlerError::new(js::error_message(&e))),
            }
        })
    }
}

/// A page function as a prompt renderer: `handler(args, options)`.
pub struct JsPrompt {
    /// The prompt's name (its error messages name it).
    pub name: String,
    /// `handler(args, options)`.
    pub f: Function,
}

impl PromptHandler for JsPrompt {
    fn get(
        &self,
        args: VecMap<String, String>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        Box::pin(call_json(
            self.f.clone(),
            string_map_to_js(&args),
            ctx,
            Label("Prompt", self.name.as_str().into()),
            Holds::Messages,
        ))
    }
}

/// A page function as a completer: `complete(value, { argument, context })`.
pub struct JsCompleter {
    /// `complete(value, { argument, context })`.
    pub f: Rc<Function>,
}

impl Completer for JsCompleter {
    fn complete(
        &self,
        argument: String,
        value: String,
        context: VecMap<String, String>,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        let f = self.f.clone();
        Box::pin(async move {
            let o: JsValue = js::object().into();
            js::set(&o, "argument", &JsValue::from_str(&argument));
            js::set(&o, "context", &string_map_to_js(&context));
            match invoke(&f, &JsValue::from_str(&value), &o).await {
                Ok(v) => result_to_json(&v, &"Completion"),
                Err(e) => Err(HandlerError::new(js::error_message(&e))),
            }
        })
    }
}

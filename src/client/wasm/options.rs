//! Reading `McpClient`'s JS options (the constructor's, each call's) into the core's types,
//! and the core's server details back into JS.

use js_sys::Function;
use serde_json::{json, Value};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::CTX;
use crate::client::core::{ClientOptions, RequestOptions, ServerDetails};
use crate::client::reconnect::ReconnectOptions;
use crate::client::transport::base::opt_ms;
use crate::js;
use crate::js::Listener;
use crate::server::CancellationToken;

fn number(o: &JsValue, key: &'static str, ctx: &str) -> Result<Option<f64>, JsValue> {
    let v = js::get(o, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_f64().filter(|n| !n.is_nan()).map(Some).ok_or_else(|| {
        js::type_error(&format!(
            "{ctx}.{key} must be a number, got {}",
            js::to_dom_string(&v).unwrap_or_default()
        ))
    })
}

fn json_object(o: &JsValue, key: &'static str, ctx: &str) -> Result<Option<Value>, JsValue> {
    let v = js::get(o, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match js::to_json(&v)? {
        Some(j @ Value::Object(_)) => Ok(Some(j)),
        _ => Err(js::type_error(&format!("{ctx}.{key} must be an object"))),
    }
}

/// Reads `reconnect`: `undefined`/`false` (off), `true` (defaults) or
/// `{ initialDelayMs, maxDelayMs, factor, maxRetries, jitter, scheduler }`.
fn reconnect_options(v: &JsValue) -> Result<(Option<ReconnectOptions>, Option<Function>), JsValue> {
    let ctx = &format!("{CTX}.reconnect");
    if v.is_undefined() || v.is_null() || *v == JsValue::FALSE {
        return Ok((None, None));
    }
    if *v == JsValue::TRUE {
        return Ok((Some(ReconnectOptions::default()), None));
    }
    if !v.is_object() {
        return Err(js::type_error(&format!(
            "{ctx} must be true, false or an object"
        )));
    }
    let d = ReconnectOptions::default();
    let max_retries = match number(v, "maxRetries", ctx)? {
        None => d.max_retries,
        Some(n) if n == f64::INFINITY => u32::MAX,
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => n as u32,
        Some(n) => {
            return Err(js::type_error(&format!(
                "{ctx}.maxRetries must be a non-negative integer, got {n}"
            )))
        }
    };
    let jitter_v = js::get(v, "jitter")?;
    let jitter = if jitter_v == JsValue::TRUE {
        0.5
    } else if jitter_v == JsValue::FALSE {
        0.0
    } else {
        number(v, "jitter", ctx)?.unwrap_or(d.jitter)
    };
    let o = ReconnectOptions {
        initial_delay_ms: opt_ms(v, "initialDelayMs", ctx)?.unwrap_or(d.initial_delay_ms),
        max_delay_ms: opt_ms(v, "maxDelayMs", ctx)?.unwrap_or(d.max_delay_ms),
        factor: number(v, "factor", ctx)?.unwrap_or(d.factor),
        max_retries,
        jitter,
    };
    o.validate()
        .map_err(|m| js::type_error(&format!("{CTX}.{m}")))?;
    let scheduler = js::get(v, "scheduler")?;
    let scheduler = if scheduler.is_undefined() || scheduler.is_null() {
        None
    } else {
        Some(scheduler.dyn_into::<Function>().map_err(|_| {
            js::type_error(&format!(
                "{ctx}.scheduler must be a function (reconnect, delay, attemptCount) => cancel | void"
            ))
        })?)
    };
    Ok((Some(o), scheduler))
}

pub(super) fn client_options(v: &JsValue) -> Result<(ClientOptions, Option<Function>), JsValue> {
    let o = if v.is_undefined() || v.is_null() {
        js::object().into()
    } else if v.is_object() {
        v.clone()
    } else {
        return Err(js::type_error(&format!("{CTX} must be an object")));
    };
    let d = ClientOptions::default();
    let (reconnect, scheduler) = reconnect_options(&js::get(&o, "reconnect")?)?;
    let heartbeat = opt_ms(&o, "heartbeatMs", CTX)?.filter(|ms| *ms > 0);
    let client_info = match json_object(&o, "clientInfo", CTX)? {
        None => d.client_info,
        Some(mut info) => {
            for (k, v) in d.client_info.as_object().into_iter().flatten() {
                info.as_object_mut()
                    .expect("checked object")
                    .entry(k.clone())
                    .or_insert_with(|| v.clone());
            }
            info
        }
    };
    Ok((
        ClientOptions {
            client_info,
            capabilities: json_object(&o, "capabilities", CTX)?.unwrap_or_else(|| json!({})),
            timeout_ms: opt_ms(&o, "timeoutMs", CTX)?.unwrap_or(d.timeout_ms),
            heartbeat_ms: heartbeat,
            heartbeat_timeout_ms: opt_ms(&o, "heartbeatTimeoutMs", CTX)?,
            reconnect,
        },
        scheduler,
    ))
}

/// `{ protocolVersion, serverInfo, capabilities, instructions }`.
pub(super) fn details_to_js(d: &ServerDetails) -> JsValue {
    let o: JsValue = js::object().into();
    js::set(
        &o,
        "protocolVersion",
        &JsValue::from_str(d.protocol_version.as_str()),
    );
    js::set(&o, "serverInfo", &js::from_json(&d.server_info));
    js::set(&o, "capabilities", &js::from_json(&d.capabilities));
    if let Some(i) = &d.instructions {
        js::set(&o, "instructions", &JsValue::from_str(i));
    }
    o
}

/// Per-call options: `{ timeoutMs, signal, onprogress }`.
pub(super) struct CallOptions {
    pub(super) core: RequestOptions,
    pub(super) signal: Option<JsValue>,
    pub(super) abort_listener: Option<Listener>,
}

pub(super) fn call_options(v: &JsValue, ctx: &str) -> Result<CallOptions, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(CallOptions {
            core: RequestOptions::default(),
            signal: None,
            abort_listener: None,
        });
    }
    if !v.is_object() {
        return Err(js::type_error(&format!("{ctx} must be an object")));
    }
    let mut core = RequestOptions {
        timeout_ms: opt_ms(v, "timeoutMs", ctx)?,
        ..RequestOptions::default()
    };
    let progress = js::get(v, "onprogress")?;
    if !progress.is_undefined() && !progress.is_null() {
        let f = progress
            .dyn_into::<Function>()
            .map_err(|_| js::type_error(&format!("{ctx}.onprogress must be a function")))?;
        core.on_progress = Some(Rc::new(move |p: Value| {
            if let Err(e) = f.call1(&JsValue::UNDEFINED, &js::from_json(&p)) {
                js::report(&e);
            }
        }));
    }
    let signal = js::get(v, "signal")?;
    let mut abort_listener = None;
    let signal = if signal.is_undefined() || signal.is_null() {
        None
    } else {
        if !js::instance_of(&signal, "AbortSignal") {
            return Err(js::type_error(&format!(
                "{ctx}.signal must be an AbortSignal"
            )));
        }
        let token = CancellationToken::new();
        let reason_of = |s: &JsValue| {
            js::get(s, "reason")
                .ok()
                .filter(|r| !r.is_undefined())
                .map(|r| js::error_message(&r))
                .unwrap_or_else(|| "The operation was aborted".into())
        };
        if js::get(&signal, "aborted")?.is_truthy() {
            token.cancel(reason_of(&signal));
        } else {
            let (t, s) = (token.clone(), signal.clone());
            abort_listener = Some(Listener::dom(&signal, "abort", move |_, _| {
                t.cancel(reason_of(&s));
            })?);
        }
        core.cancel = Some(token);
        Some(signal)
    };
    Ok(CallOptions {
        core,
        signal,
        abort_listener,
    })
}

pub(super) fn params_value(v: &JsValue, ctx: &str) -> Result<Option<Value>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match js::to_json(v)? {
        Some(j @ Value::Object(_)) => Ok(Some(j)),
        _ => Err(js::type_error(&format!(
            "{ctx} must be an object (MCP uses named parameters)"
        ))),
    }
}

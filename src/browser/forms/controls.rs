//! A form's controls: reading them (kinds, names, constraints), the input schema they
//! synthesize, coercing an agent's input to what controls take, filling them, and what makes
//! a submission invalid.

use crate::protocol::json_text;
use crate::js;
use js_sys::Reflect;
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The attributes whose changes can change a form tool.
pub(super) const WATCHED_ATTRIBUTES: [&str; 19] = [
    "toolname",
    "tooltitle",
    "tooldescription",
    "toolautosubmit",
    "toolparamdescription",
    "name",
    "type",
    "required",
    "min",
    "max",
    "step",
    "minlength",
    "maxlength",
    "pattern",
    "multiple",
    "value",
    "form",
    "id",
    "for",
];

/// What an MCP client's call results in when the submission went ahead (the page navigates)
/// without `respondWith`; `executeTool` resolves with `null` then, as in Chromium.
pub(super) const SUBMITTED: &str = "The form was submitted.";

pub(super) fn attr(el: &JsValue, name: &str) -> Option<String> {
    js::call(el, "getAttribute", &[&JsValue::from_str(name)])
        .ok()
        .and_then(|v| v.as_string())
}

pub(super) fn has_attr(el: &JsValue, name: &str) -> bool {
    js::call(el, "hasAttribute", &[&JsValue::from_str(name)])
        .map(|v| v.is_truthy())
        .unwrap_or(false)
}

pub(super) fn prop_string(el: &JsValue, name: &'static str) -> String {
    js::get_string(el, name).unwrap_or_default()
}

/// A number attribute (`min`, `max`, `step`, `value`) when it is a valid floating-point number
/// (HTML's grammar, as Chromium reads these attributes: `"5px"`, `" 2"`, `"+2"`, `"7."` are not).
fn float_attr(el: &JsValue, name: &str) -> Option<f64> {
    valid_float(&attr(el, name)?)
}

/// HTML's valid floating-point number: an optional `-`, digits with an optional fraction (or a
/// fraction alone), an optional exponent; finite. The grammar is checked here, the value is
/// JS `Number()`'s: the browser's own parser, so the core carries none.
///
/// Spec: <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-floating-point-number>
fn valid_float(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let digits = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i > start)
    };
    let mut i = usize::from(b.first() == Some(&b'-'));
    let (after_int, int) = digits(i);
    i = after_int;
    let mut fraction = false;
    if b.get(i) == Some(&b'.') {
        (i, fraction) = digits(i + 1);
        if !fraction {
            return None; // "7." and "-." are not numbers
        }
    }
    if !int && !fraction {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let (end, exponent) = digits(i);
        if !exponent {
            return None;
        }
        i = end;
    }
    if i != b.len() {
        return None;
    }
    let Ok(number) = text.parse::<js_sys::Number>();
    Some(number.value_of()).filter(|x| x.is_finite())
}

/// A `minlength` / `maxlength` attribute by HTML's rules for parsing non-negative integers
/// (leading whitespace and `+` skipped, the digits up to the first other character).
///
/// Spec: <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#rules-for-parsing-non-negative-integers>
fn length_attr(el: &JsValue, name: &str) -> Option<Value> {
    let text = attr(el, name)?;
    let t = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let t = t.strip_prefix('+').unwrap_or(t);
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    t[..end].parse::<u64>().ok().map(Value::from)
}

/// A finite number as JSON, integers without a fraction.
fn json_number(x: f64) -> Option<Value> {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Some(Value::from(x as i64))
    } else {
        serde_json::Number::from_f64(x).map(Value::Number)
    }
}

/// An agent's text for a number property as a number, when it is one valid floating-point
/// number once trimmed (`"0x10"` and `"Infinity"` stay text, and fail the schema).
fn decimal_number(text: &str) -> Option<Value> {
    valid_float(text.trim()).and_then(json_number)
}

/// A control's kind, for the schema and for filling it in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Not a control an agent fills (buttons, files, hidden inputs, fieldsets…).
    Skip,
    Text,
    Number,
    Checkbox,
    Radio,
    Select,
    SelectMultiple,
}

/// The control's kind and its `type`.
pub(super) fn kind_of(el: &JsValue) -> (Kind, String) {
    let tag = prop_string(el, "tagName").to_ascii_lowercase();
    let ty = prop_string(el, "type").to_ascii_lowercase();
    let kind = match tag.as_str() {
        "textarea" => Kind::Text,
        "select" if ty == "select-multiple" => Kind::SelectMultiple,
        "select" => Kind::Select,
        "input" => match ty.as_str() {
            "submit" | "button" | "reset" | "image" | "file" | "hidden" => Kind::Skip,
            "number" | "range" => Kind::Number,
            "checkbox" => Kind::Checkbox,
            "radio" => Kind::Radio,
            _ => Kind::Text,
        },
        _ => Kind::Skip,
    };
    (kind, ty)
}

/// The named, fillable controls of `form`, in tree order. As in native Chromium, not a
/// disabled control (or one in a disabled fieldset: neither is submitted) nor a read-only text
/// or number control (the user cannot edit it either).
pub(super) fn controls(form: &JsValue) -> Vec<(String, Kind, String, JsValue)> {
    let elements = js::get(form, "elements").unwrap_or(JsValue::UNDEFINED);
    js::items(&elements)
        .into_iter()
        .filter_map(|el| {
            let name = prop_string(&el, "name");
            let (kind, ty) = kind_of(&el);
            (!name.is_empty() && kind != Kind::Skip && !unavailable(&el, kind))
                .then_some((name, kind, ty, el))
        })
        .collect()
}

/// Whether control `el` is out of an agent's reach: disabled (or in a disabled fieldset), or a
/// read-only text or number control.
fn unavailable(el: &JsValue, kind: Kind) -> bool {
    js::call(el, "matches", &[&JsValue::from_str(":disabled")]).is_ok_and(|d| d.is_truthy())
        || (matches!(kind, Kind::Text | Kind::Number)
            && js::get(el, "readOnly").is_ok_and(|r| r.is_truthy()))
}

/// One property of the synthesized schema, gathered over the controls of that name.
pub(super) struct Field {
    name: String,
    kind: Kind,
    schema: Map<String, Value>,
    /// Radio and checkbox values, with their labels.
    values: Vec<(String, Option<String>)>,
    /// How many controls make the field.
    controls: usize,
    /// Other controls share its name without making one group with it: not a parameter.
    ambiguous: bool,
    required: bool,
    description: Option<String>,
    /// The label of its first control.
    label: Option<String>,
}

/// The options of a `<select>`: each distinct value with the option's text as its title.
pub(super) fn option_choices(select: &JsValue) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for o in js::items(&js::get(select, "options").unwrap_or(JsValue::UNDEFINED)) {
        let v = prop_string(&o, "value");
        if !out.iter().any(|(x, _)| *x == v) {
            out.push((v, Some(prop_string(&o, "text"))));
        }
    }
    out
}

/// The text of the first `<label>` of control `el`, without the text of the controls inside
/// it (a label wrapping a `<select>` does not include its options), trimmed; `None` when it
/// has no label or the text is empty.
pub(super) fn label_text(el: &JsValue) -> Option<String> {
    let label = Reflect::get_u32(&js::get(el, "labels").ok()?, 0).ok()?;
    if !label.is_object() {
        return None;
    }
    let copy = js::call(&label, "cloneNode", &[&JsValue::TRUE]).ok()?;
    let inner = js::call(
        &copy,
        "querySelectorAll",
        &[&JsValue::from_str("input, select, textarea, button")],
    )
    .ok()?;
    for c in js::items(&inner) {
        let _ = js::call(&c, "remove", &[]);
    }
    let text = prop_string(&copy, "textContent").trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// `{ type: 'string', anyOf: [{ type, const, title? }…], enum }`: the choices of a select or
/// a radio or checkbox group, as native Chromium describes them (titles from the options'
/// text or the controls' labels).
fn choice_schema(choices: &[(String, Option<String>)]) -> Value {
    let any_of: Vec<Value> = choices
        .iter()
        .map(|(v, title)| {
            let mut c = json!({ "type": "string", "const": v });
            if let Some(t) = title {
                c["title"] = json!(t);
            }
            c
        })
        .collect();
    let values: Vec<&String> = choices.iter().map(|(v, _)| v).collect();
    json!({ "type": "string", "anyOf": any_of, "enum": values })
}

/// An array of distinct choices.
fn choices_array(choices: &[(String, Option<String>)]) -> Map<String, Value> {
    let mut s = Map::new();
    s.insert("type".into(), json!("array"));
    s.insert("items".into(), choice_schema(choices));
    s.insert("uniqueItems".into(), json!(true));
    s
}

/// A number or range control's `step` as `multipleOf`: the step (1 when `step` is absent or
/// not a positive number), none for `step="any"`, and none when the step base (`min`, else
/// `value`, else 0) is not a multiple of the step: the allowed values are then base + k × step,
/// which `multipleOf` cannot say (`min="0.5"` with the default step allows 1.5, not 1), so
/// Chromium leaves it out too.
///
/// Spec: <https://html.spec.whatwg.org/multipage/input.html#concept-input-min-zero>
fn step_of(el: &JsValue) -> Option<Value> {
    let step = match attr(el, "step") {
        Some(s) if s.trim().eq_ignore_ascii_case("any") => return None,
        Some(s) => valid_float(&s).filter(|x| *x > 0.0).unwrap_or(1.0),
        None => 1.0,
    };
    let base = float_attr(el, "min")
        .or_else(|| float_attr(el, "value"))
        .unwrap_or(0.0);
    let k = base / step;
    if (k - k.round()).abs() > 1e-9 * k.abs().max(1.0) {
        return None;
    }
    json_number(step)
}

/// The JSON Schema of one control (radios and checkboxes are finished in [`synthesize`]).
pub(super) fn control_schema(kind: Kind, ty: &str, el: &JsValue) -> Map<String, Value> {
    let mut s = Map::new();
    match kind {
        Kind::Text => {
            s.insert("type".into(), json!("string"));
            match ty {
                "email" => {
                    s.insert("format".into(), json!("email"));
                }
                "url" => {
                    s.insert("format".into(), json!("uri"));
                }
                "date" => {
                    s.insert("format".into(), json!("date"));
                    // Chromium's words, replaced by the control's own description if any.
                    s.insert(
                        "description".into(),
                        json!("Dates MUST be provided in 'YYYY-MM-DD' format."),
                    );
                }
                "color" => {
                    s.insert("pattern".into(), json!("^#[0-9a-fA-F]{6}$"));
                }
                _ => {}
            }
            if let Some(n) = length_attr(el, "minlength") {
                s.insert("minLength".into(), n);
            }
            if let Some(n) = length_attr(el, "maxlength") {
                s.insert("maxLength".into(), n);
            }
            if let Some(p) = attr(el, "pattern").filter(|p| !p.is_empty()) {
                s.insert("pattern".into(), json!(format!("^(?:{p})$")));
            }
        }
        Kind::Number => {
            s.insert("type".into(), json!("number"));
            if let Some(n) = float_attr(el, "min").and_then(json_number) {
                s.insert("minimum".into(), n);
            }
            if let Some(n) = float_attr(el, "max").and_then(json_number) {
                s.insert("maximum".into(), n);
            }
            if let Some(n) = step_of(el) {
                s.insert("multipleOf".into(), n);
            }
        }
        Kind::Select => {
            if let Value::Object(m) = choice_schema(&option_choices(el)) {
                s = m;
            }
        }
        Kind::SelectMultiple => s = choices_array(&option_choices(el)),
        Kind::Checkbox | Kind::Radio | Kind::Skip => {}
    }
    s
}

/// The input schema of `form`: `{ type: 'object', properties, required }`.
pub fn synthesize(form: &JsValue) -> Value {
    let mut fields: Vec<Field> = Vec::new();
    for (name, kind, ty, el) in controls(form) {
        let description = attr(&el, "toolparamdescription").filter(|d| !d.is_empty());
        let required = has_attr(&el, "required");
        // The label is needed for a radio's or checkbox's title, or as the description of a
        // control without toolparamdescription.
        let label = (matches!(kind, Kind::Radio | Kind::Checkbox) || description.is_none())
            .then(|| label_text(&el))
            .flatten();
        let value = (prop_string(&el, "value"), label.clone());
        if let Some(f) = fields.iter_mut().find(|f| f.name == name) {
            if f.kind == kind && matches!(kind, Kind::Radio | Kind::Checkbox) {
                if !f.values.iter().any(|(v, _)| *v == value.0) {
                    f.values.push(value);
                }
                f.controls += 1;
                f.required |= required;
                if f.description.is_none() {
                    f.description = description;
                }
            } else {
                // Two controls of one name that are not one group: no parameter can say
                // which to fill, and native Chromium describes neither.
                f.ambiguous = true;
            }
            continue;
        }
        // A field of one control is described by toolparamdescription, else by its label.
        fields.push(Field {
            schema: control_schema(kind, &ty, &el),
            name,
            kind,
            values: vec![value],
            controls: 1,
            ambiguous: false,
            required,
            description,
            label,
        });
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in fields.into_iter().filter(|f| !f.ambiguous) {
        let mut s = f.schema;
        match f.kind {
            Kind::Radio => {
                if let Value::Object(m) = choice_schema(&f.values) {
                    s.extend(m);
                }
            }
            Kind::Checkbox if f.values.len() > 1 => s.extend(choices_array(&f.values)),
            Kind::Checkbox => {
                s.insert("type".into(), json!("boolean"));
            }
            _ => {}
        }
        let description = f
            .description
            .or_else(|| f.label.filter(|_| f.controls == 1));
        if let Some(d) = description {
            s.insert("description".into(), Value::String(d));
        }
        if f.required {
            required.push(Value::String(f.name.clone()));
        }
        properties.insert(f.name, Value::Object(s));
    }
    json!({ "type": "object", "properties": properties, "required": required })
}

/// An agent's input for a form tool, coerced as native Chromium fills the controls: a number
/// or boolean for a text-like (string) control becomes its text (`123` → `"123"`), and a
/// numeric string for a number control becomes the number (`"456"` → `456`). Anything else
/// is left for the schema to judge.
pub fn coerce(schema: Option<&Value>, args: Value) -> Value {
    let (Some(props), Value::Object(mut map)) = (
        schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object),
        args.clone(),
    ) else {
        return args;
    };
    for (key, v) in map.iter_mut() {
        let ty = props
            .get(key)
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str);
        let coerced = match (ty, &*v) {
            (Some("string"), Value::Number(_) | Value::Bool(_)) => {
                Some(Value::String(value_text(v)))
            }
            (Some("number"), Value::String(t)) => decimal_number(t),
            _ => None,
        };
        if let Some(c) = coerced {
            *v = c;
        }
    }
    Value::Object(map)
}

/// A JSON value as the text a control takes.
pub(super) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => json_text::to_string(other),
    }
}

pub(super) fn fire(el: &JsValue, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    if let (Ok(ev), Some(t)) = (
        web_sys::Event::new_with_event_init_dict(kind, &init),
        el.dyn_ref::<web_sys::EventTarget>(),
    ) {
        let _ = t.dispatch_event(&ev);
    }
}

/// The failure of a call whose input has a member the form's tool has no parameter for, in
/// native Chromium's words (the digest is silent; the polyfill copies native): controls of
/// that name that cannot be filled (an `<output>`, a custom control, two text inputs), or none
/// within reach (disabled or read-only ones count as none).
pub(super) fn unknown_parameter(form: &JsValue, args: &Map<String, Value>) -> Option<String> {
    let schema = synthesize(form);
    let known = schema.get("properties").and_then(Value::as_object);
    let (name, value) = args
        .iter()
        .find(|(k, _)| !known.is_some_and(|p| p.contains_key(*k)))?;
    let control = js::get(form, "elements")
        .and_then(|els| js::call(&els, "namedItem", &[&JsValue::from_str(name)]))
        .is_ok_and(|c| c.is_object() && !unavailable(&c, kind_of(&c).0));
    Some(if control {
        format!("Invalid value {value} for parameter {name}", value = json_text::to_string(value))
    } else {
        format!("Input contains a parameter \"{name}\" but there is no such parameter for the tool")
    })
}

/// Fills `form`'s controls with `args` (each member names a parameter: [`unknown_parameter`]
/// turned the others away), firing `input` and `change` at each control whose state changed.
pub(super) fn fill(form: &JsValue, args: &Map<String, Value>) {
    let all = controls(form);
    for (name, kind, _, el) in &all {
        let Some(v) = args.get(name) else { continue };
        let before = state_of(*kind, el);
        let contains = |x: &str| match v {
            Value::Array(a) => a.iter().any(|i| value_text(i) == x),
            other => value_text(other) == x,
        };
        match kind {
            Kind::Checkbox => {
                let group = all
                    .iter()
                    .filter(|(n, k, _, _)| n == name && *k == Kind::Checkbox)
                    .count();
                let checked = if group > 1 || v.is_array() {
                    contains(&prop_string(el, "value"))
                } else {
                    match v {
                        Value::Bool(b) => *b,
                        Value::String(s) => !s.is_empty() && s != "false",
                        Value::Number(n) => n.as_f64() != Some(0.0),
                        Value::Null => false,
                        _ => true,
                    }
                };
                js::set(el, "checked", &JsValue::from_bool(checked));
            }
            Kind::Radio => {
                let checked = value_text(v) == prop_string(el, "value");
                js::set(el, "checked", &JsValue::from_bool(checked));
            }
            Kind::SelectMultiple => {
                for o in js::items(&js::get(el, "options").unwrap_or(JsValue::UNDEFINED)) {
                    let on = contains(&prop_string(&o, "value"));
                    js::set(&o, "selected", &JsValue::from_bool(on));
                }
            }
            Kind::Text | Kind::Number | Kind::Select => {
                js::set(el, "value", &JsValue::from_str(&value_text(v)));
            }
            Kind::Skip => continue,
        }
        // Only a control whose state changed hears `input` and `change` (filling a control
        // with what it holds fires nothing, as in Chromium).
        if state_of(*kind, el) != before {
            fire(el, "input");
            fire(el, "change");
        }
    }
}

/// What filling can change in a control: its value, whether it is checked, or which of its
/// options are selected.
fn state_of(kind: Kind, el: &JsValue) -> String {
    match kind {
        Kind::Checkbox | Kind::Radio => js::get(el, "checked")
            .map(|c| c.is_truthy().to_string())
            .unwrap_or_default(),
        Kind::SelectMultiple => js::items(&js::get(el, "options").unwrap_or(JsValue::UNDEFINED))
            .iter()
            .map(|o| {
                if js::to_bool(&js::get(o, "selected").unwrap_or(JsValue::FALSE)) {
                    '1'
                } else {
                    '0'
                }
            })
            .collect(),
        _ => prop_string(el, "value"),
    }
}

/// `name: validationMessage` of each invalid control.
pub(super) fn invalid_controls(form: &JsValue) -> String {
    let elements = js::get(form, "elements").unwrap_or(JsValue::UNDEFINED);
    let msgs: Vec<String> = js::items(&elements)
        .into_iter()
        .filter(|el| {
            js::get(el, "validity")
                .and_then(|v| js::get(&v, "valid"))
                .map(|v| v.is_falsy())
                .unwrap_or(false)
        })
        .map(|el| {
            format!(
                "{}: {}",
                prop_string(&el, "name"),
                prop_string(&el, "validationMessage")
            )
        })
        .collect();
    if msgs.is_empty() {
        "the submission did not happen".into()
    } else {
        format!("invalid input ({})", msgs.join("; "))
    }
}

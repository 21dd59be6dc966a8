//! Which batches of DOM changes the declarative API must look at: a page changes its DOM all
//! the time, and a scan of the whole document per batch costs in proportion to the document.

use wasm_bindgen::prelude::*;

use crate::js;

/// Whether an element `node` (anything else: `false`) is or holds a match of `selector`.
fn is_or_holds(node: &JsValue, selector: &JsValue) -> bool {
    // Elements only (text and comments hold nothing).
    if !js::has_method(node, "querySelector") {
        return false;
    }
    js::call(node, "matches", &[selector]).is_ok_and(|m| m.is_truthy())
        || js::call(node, "querySelector", &[selector]).is_ok_and(|f| !f.is_null())
}

/// The nodes of a `childList` record's `key` list (`addedNodes`, `removedNodes`).
fn nodes(record: &JsValue, key: &'static str) -> Vec<JsValue> {
    js::items(&js::get(record, key).unwrap_or(JsValue::UNDEFINED))
}

/// Whether a batch of mutation records may have brought a `<form toolname>` into the
/// document: an element added that is or holds one, or a `toolname` attribute set. With no
/// tool form in the document before the batch, nothing else in it can concern the
/// declarative API.
pub(super) fn may_add_tool_form(records: &JsValue) -> bool {
    let tool_form = JsValue::from_str("form[toolname]");
    js::items(records).iter().any(|r| {
        match js::get_string(r, "type").as_deref() {
            Some("attributes") => js::get_string(r, "attributeName").as_deref() == Some("toolname"),
            Some("childList") => nodes(r, "addedNodes")
                .iter()
                .any(|n| is_or_holds(n, &tool_form)),
            // Anything else: scanned, as before.
            _ => true,
        }
    })
}

/// What a tool form's description reads besides the form: its controls (also ones outside it,
/// through their `form` attribute), their labels (anywhere, through `for`) and options.
const DESCRIBED: &str =
    "form, label, input, select, textarea, button, option, optgroup, datalist, output, fieldset, object";

/// Whether a batch of mutation records may have changed what the document's tool forms
/// describe: a watched attribute changed (any element: it may be a control of one), children
/// changed inside a form, a label, a select or a list of options, or an element added or
/// removed that is or holds a form, a control, a label or an option.
pub(super) fn may_touch_forms(records: &JsValue) -> bool {
    let inside = JsValue::from_str("form, label, select, datalist, optgroup, option");
    let described = JsValue::from_str(DESCRIBED);
    js::items(records).iter().any(|r| {
        match js::get_string(r, "type").as_deref() {
            Some("childList") => {
                let target = js::get(r, "target").unwrap_or(JsValue::UNDEFINED);
                let within = js::has_method(&target, "closest")
                    && js::call(&target, "closest", &[&inside]).is_ok_and(|c| !c.is_null());
                within
                    || ["addedNodes", "removedNodes"]
                        .into_iter()
                        .any(|key| nodes(r, key).iter().any(|n| is_or_holds(n, &described)))
            }
            // A watched attribute (the observer's filter), or anything else: scanned.
            _ => true,
        }
    })
}

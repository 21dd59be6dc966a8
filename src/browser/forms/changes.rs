//! Which batches of DOM changes the declarative API must look at: a page changes its DOM all
//! the time, and a scan of the whole document per batch costs in proportion to the document.

use wasm_bindgen::prelude::*;

use crate::js;

/// Whether an element `node` (anything else: `false`) is or holds a match of `selector`.
fn is_or_holds(node: &JsValue, selector: &str) -> bool {
    // Elements only (text and comments hold nothing).
    if !js::has_method(node, "querySelector") {
        return false;
    }
    let sel = JsValue::from_str(selector);
    js::call(node, "matches", &[&sel]).is_ok_and(|m| m.is_truthy())
        || js::call(node, "querySelector", &[&sel]).is_ok_and(|f| !f.is_null())
}

/// The nodes a `childList` record added and removed.
fn changed_nodes(record: &JsValue) -> Vec<JsValue> {
    let mut nodes = Vec::new();
    for key in ["addedNodes", "removedNodes"] {
        nodes.extend(js::items(
            &js::get(record, key).unwrap_or(JsValue::UNDEFINED),
        ));
    }
    nodes
}

/// Whether a batch of mutation records may have brought a `<form toolname>` into the
/// document: an element added that is or holds one, or a `toolname` attribute set. With no
/// tool form in the document before the batch, nothing else in it can concern the
/// declarative API.
pub(super) fn may_add_tool_form(records: &JsValue) -> bool {
    js::items(records).iter().any(|r| {
        match js::get_string(r, "type").as_deref() {
            Some("attributes") => js::get_string(r, "attributeName").as_deref() == Some("toolname"),
            Some("childList") => {
                let added = js::get(r, "addedNodes").unwrap_or(JsValue::UNDEFINED);
                js::items(&added)
                    .iter()
                    .any(|n| is_or_holds(n, "form[toolname]"))
            }
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
    js::items(records).iter().any(|r| {
        match js::get_string(r, "type").as_deref() {
            Some("childList") => {
                let target = js::get(r, "target").unwrap_or(JsValue::UNDEFINED);
                let within = js::has_method(&target, "closest")
                    && js::call(&target, "closest", &[&inside]).is_ok_and(|c| !c.is_null());
                within || changed_nodes(r).iter().any(|n| is_or_holds(n, DESCRIBED))
            }
            // A watched attribute (the observer's filter), or anything else: scanned.
            _ => true,
        }
    })
}

//! Which batches of DOM changes the declarative API must look at: a page changes its DOM all
//! the time, and a scan of the whole document per batch costs in proportion to the document.
//! The records are read by `polyfill/src/form_changes.js`'s `__mcpFormChanges`, in one call
//! per batch.

use wasm_bindgen::prelude::*;

use crate::js;

thread_local! {
    /// `__mcpFormChanges`, from the engine's `config.formChanges` ([`use_form_changes`]).
    static FORM_CHANGES: js::Helper = const { js::Helper::new("formChanges") };
}

/// Takes the batch filter from the engine's `config.formChanges`. Without it every batch is
/// scanned: the same tools, at the cost of a scan per batch.
pub fn use_form_changes(config: &JsValue) {
    FORM_CHANGES.with(|f| f.take(config));
}

/// Whether a batch of mutation records may concern the declarative API: with no tool form
/// known (`forms_known` false), whether it may have brought one into the document; with one,
/// whether it may have changed what a tool form describes. When the filter cannot answer
/// (absent, or it threw), the batch is scanned.
pub(super) fn relevant(records: &JsValue, forms_known: bool) -> bool {
    let called = FORM_CHANGES.with(|filter| {
        filter.with(|f| f.call2(&JsValue::UNDEFINED, records, &JsValue::from_bool(forms_known)))
    });
    match called {
        Some(Ok(answer)) => answer.is_truthy(),
        _ => true,
    }
}

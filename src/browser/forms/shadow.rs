//! Tool forms in shadow trees, as Chromium has them: the roots are found and held (weakly) by
//! `polyfill/src/form_roots.js`'s `__mcpShadowRoots`, which says which forms they hold and has
//! the engine's observer observe each root as it observes the document; a root's capture
//! listeners see its forms' submit events, which do not leave the tree (not composed).

use wasm_bindgen::prelude::*;

use crate::js;

thread_local! {
    /// `__mcpShadowRoots`, from the engine's `config.shadowRoots` ([`use_shadow_roots`]).
    static SHADOW_ROOTS: js::Helper = const { js::Helper::new("shadowRoots") };
}

/// Takes the shadow root finder from the engine's `config.shadowRoots`. Without it only the
/// document's own forms are tools.
pub fn use_shadow_roots(config: &JsValue) {
    SHADOW_ROOTS.with(|h| h.take(config));
}

/// The document's shadow roots, while the declarative API runs: their listeners come off and
/// `attachShadow` is restored on drop.
pub(super) struct ShadowRoots {
    finder: JsValue,
}

impl ShadowRoots {
    /// Finds the roots of `document` now and from now on, each observed by `observer` with
    /// `init`; a root that holds tool forms gets `submit` / `reset` (the window's listener
    /// functions) for its forms' events (capture). `None` without the finder.
    pub(super) fn start(
        document: &JsValue,
        observer: &JsValue,
        init: &JsValue,
        submit: &JsValue,
        reset: &JsValue,
    ) -> Result<Option<ShadowRoots>, JsValue> {
        let Some(finder) = SHADOW_ROOTS.with(|h| h.with(js_sys::Function::clone)) else {
            return Ok(None);
        };
        let args: js_sys::Array = [document, observer, init, submit, reset].into_iter().collect();
        let finder = finder.apply(&JsValue::UNDEFINED, &args)?;
        Ok(Some(ShadowRoots { finder }))
    }

    /// The tool forms in the connected roots.
    pub(super) fn forms(&self) -> Vec<JsValue> {
        js::call(&self.finder, "forms", &[])
            .map(|l| js::items(&l))
            .unwrap_or_default()
    }

    /// Whether a batch of mutation records, the document's and the roots', may concern the
    /// declarative API (see `changes::relevant`); `None` when the finder could not answer.
    pub(super) fn relevant(&self, records: &JsValue, forms_known: bool) -> Option<bool> {
        js::call(
            &self.finder,
            "relevant",
            &[records, &JsValue::from_bool(forms_known)],
        )
        .ok()
        .map(|r| r.is_truthy())
    }

    /// Whether a root that held tool forms was connected or disconnected since [`Self::forms`].
    pub(super) fn moved(&self) -> bool {
        js::call(&self.finder, "moved", &[]).is_ok_and(|m| m.is_truthy())
    }
}

impl Drop for ShadowRoots {
    fn drop(&mut self) {
        let _ = js::call(&self.finder, "stop", &[]);
    }
}

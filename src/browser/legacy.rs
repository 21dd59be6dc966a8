//! Earlier drafts' methods, deprecated but kept working: `provideContext`,
//! `clearContext`, `unregisterTool`, and Chromium's `navigator.modelContextTesting` (digest:
//! `shared/spec/WEBMCP.md`, "Earlier drafts still used in the wild").

use crate::collections::VecSet;
use js_sys::{Array, Function, Promise};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::engine::Engine;
use super::store::{
    read_tool_dict, register_web_tool, stored_schema, Door, JsToolData,
};
use crate::js;
use crate::js::DomError;
use crate::server::registry::Tool;

const DEPRECATED: &str = "modelcontext-polyfill:";

#[wasm_bindgen]
impl Engine {
    /// `provideContext({ tools })`: replaces the WebMCP API's tool set (see
    /// `clear_own_tools`). Every tool is checked before anything changes, so a bad entry
    /// leaves the registry as it was.
    #[wasm_bindgen(js_name = provideContext)]
    pub fn provide_context(&self, context: JsValue) -> Result<(), JsValue> {
        js::warn_once(
            "provideContext",
            &format!("{DEPRECATED} provideContext() is deprecated; use registerTool() with an AbortSignal."),
        );
        let tools = js::get(&context, "tools")?;
        let list = if tools.is_undefined() || tools.is_null() {
            Array::new()
        } else if Array::is_array(&tools) {
            Array::from(&tools)
        } else {
            return Err(js::type_error("provideContext: \"tools\" must be an array"));
        };
        let mut dicts = Vec::new();
        let mut names = VecSet::new();
        for t in list.iter() {
            let d = read_tool_dict(&t)?;
            if !names.insert(d.name.clone()) {
                return Err(DomError::InvalidState(format!(
                    "provideContext: the tool name \"{}\" appears twice.",
                    d.name
                ))
                .into_js());
            }
            dicts.push(d);
        }
        // As registerTool(tool): a document without the `tools` feature provides nothing. This
        // method answers at once, so while a cross-origin frame still waits for its embedder's
        // answer the tools are provided, and withdrawn (with a warning) if the answer is no.
        super::frames::check_policy(&self.inner)?;
        let previous = self.clear_own_tools();
        for d in dicts {
            if let Err(e) = register_web_tool(&self.inner, d, Door::Provided) {
                // Put the old set back: the call fails as a whole.
                self.clear_own_tools();
                for t in &previous {
                    let _ = self.inner.server().register_tool(t.def.clone());
                }
                return Err(e);
            }
        }
        super::frames::with_policy(&self.inner, |inner, allowed| {
            if !allowed {
                Engine {
                    inner: inner.clone(),
                }
                .clear_own_tools();
                js::warn(
                    "modelcontext-polyfill: the tools of provideContext() were withdrawn: this \
                     document does not have the tools feature (Permissions Policy)",
                );
            }
        });
        Ok(())
    }

    /// Removes every tool of the WebMCP API (`registerTool(tool)` and `provideContext`), the
    /// set the early drafts' `provideContext`/`clearContext` replaced; returns them. Tools of
    /// the session API belong to their session (its `disconnect` removes them), and proxies
    /// of a native `document.modelContext`'s tools are the browser's: both stay.
    fn clear_own_tools(&self) -> Vec<Rc<Tool>> {
        let all = self.inner.server().tools();
        let web = |t: &Tool| {
            t.def
                .attachment
                .clone()
                .and_then(|a| a.downcast::<JsToolData>().ok())
                .is_some_and(|d| matches!(d.door, Door::WebMcp | Door::Provided))
        };
        let (own, other): (Vec<_>, Vec<_>) = all.into_iter().partition(|t| web(t));
        if other.is_empty() {
            self.inner.server().clear_tools();
        } else {
            for t in &own {
                self.inner.server().unregister_tool(&t.def.name);
            }
        }
        own
    }

    /// `clearContext()`: removes the WebMCP API's tools (see `clear_own_tools`).
    #[wasm_bindgen(js_name = clearContext)]
    pub fn clear_context(&self) {
        js::warn_once(
            "clearContext",
            &format!(
                "{DEPRECATED} clearContext() is deprecated; abort each tool's AbortSignal instead."
            ),
        );
        self.clear_own_tools();
    }

    /// `unregisterTool(name)`: removes one tool; unknown names are ignored.
    #[wasm_bindgen(js_name = unregisterTool)]
    pub fn unregister_tool(&self, name: JsValue) -> Result<(), JsValue> {
        js::warn_once(
            "unregisterTool",
            &format!("{DEPRECATED} unregisterTool() is deprecated; abort the tool's AbortSignal instead."),
        );
        let name = js::to_dom_string(&name)?;
        self.inner.server().unregister_tool(&name);
        Ok(())
    }

    fn warn_testing(&self) {
        js::warn_once(
            "modelContextTesting",
            &format!("{DEPRECATED} navigator.modelContextTesting is deprecated; use document.modelContext.getTools()/executeTool()."),
        );
    }

    /// `modelContextTesting.listTools()`: `[{ name, description, inputSchema }]` with the
    /// schema as a JSON string.
    #[wasm_bindgen(js_name = testingListTools)]
    pub fn testing_list_tools(&self) -> Array {
        self.warn_testing();
        let out = Array::new();
        for t in self.inner.server().tools() {
            let o: JsValue = js::object().into();
            js::set(&o, "name", &JsValue::from_str(&t.def.name));
            js::set(&o, "description", &JsValue::from_str(&t.def.description));
            if let Some(s) = stored_schema(&t) {
                js::set(&o, "inputSchema", &JsValue::from_str(&s));
            }
            out.push(&o);
        }
        out
    }

    /// `modelContextTesting.executeTool(name, inputArgsJson)` → the result string.
    #[wasm_bindgen(js_name = testingExecuteTool)]
    pub fn testing_execute_tool(&self, name: JsValue, input_json: JsValue) -> Promise {
        self.warn_testing();
        let r = (|| -> Result<Promise, JsValue> {
            let name = js::to_dom_string(&name)?;
            let text = js::to_dom_string(&input_json)?;
            let input = crate::protocol::values::parse(&text).map_err(|_| {
                js::type_error(&format!(
                    "modelContextTesting.executeTool: input is not valid JSON: {text}"
                ))
            })?;
            // An unknown tool is executeTool's UnknownError (the one lookup is the run's).
            Ok(super::webmcp::execute_named(&self.inner, name, input))
        })();
        r.unwrap_or_else(|e| Promise::reject(&e))
    }

    /// `modelContextTesting.registerToolsChangedCallback(cb)`.
    #[wasm_bindgen(js_name = testingRegisterToolsChangedCallback)]
    pub fn testing_register_tools_changed_callback(&self, cb: JsValue) -> Result<(), JsValue> {
        self.warn_testing();
        let f: Function = cb
            .dyn_into_function()
            .ok_or_else(|| js::type_error("registerToolsChangedCallback needs a function"))?;
        self.inner.on_tools_changed(f);
        Ok(())
    }
}

trait DynIntoFunction {
    fn dyn_into_function(self) -> Option<Function>;
}

impl DynIntoFunction for JsValue {
    fn dyn_into_function(self) -> Option<Function> {
        use wasm_bindgen::JsCast;
        self.dyn_into::<Function>().ok()
    }
}

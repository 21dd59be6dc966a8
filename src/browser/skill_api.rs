//! `registerSkill(name, definition)`: a page's Agent Skill served through the MCP Skills
//! extension (SEP-2640, [`crate::server::skills`]). This file reads the definition the WebIDL
//! way (a `TypeError` naming the member for a wrong type); the engine checks the rest.

use js_sys::{Array, Function, Object};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::engine::EngineInner;
use super::scope::{begin_registration, scoped_unregister, Scope};
use super::store::registry_error_to_js;
use crate::collections::VecMap;
use crate::js;
use crate::server::skills::base64_decode;
use crate::server::{SkillContent, SkillDef, SkillFile};

/// Skill URI → the registration that holds it (this feature's state in the engine).
#[derive(Default)]
struct Registrations(RefCell<VecMap<String, u64>>);

fn string_member(def: &JsValue, key: &'static str, what: &str) -> Result<Option<String>, JsValue> {
    let v = js::get(def, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| js::type_error(&format!("{what}: {key} must be a string")))
}

/// One file: a string (text), or `{ text | blob, mimeType? }` (`blob`: standard base64).
fn file(path: String, v: &JsValue, what: &str) -> Result<SkillFile, JsValue> {
    if let Some(text) = v.as_string() {
        return Ok(SkillFile {
            path,
            mime_type: None,
            content: SkillContent::Text(text),
        });
    }
    let w = format!("{what}: files[{path:?}]");
    if !v.is_object() {
        return Err(js::type_error(&format!(
            "{w} must be a string or {{ text | blob, mimeType }}"
        )));
    }
    let mime_type = string_member(v, "mimeType", &w)?;
    let content = match (string_member(v, "text", &w)?, string_member(v, "blob", &w)?) {
        (Some(t), None) => SkillContent::Text(t),
        (None, Some(b)) => SkillContent::Binary(
            base64_decode(&b)
                .ok_or_else(|| js::type_error(&format!("{w}: blob is not standard base64")))?,
        ),
        _ => {
            return Err(js::type_error(&format!(
                "{w} needs exactly one of text and blob"
            )))
        }
    };
    Ok(SkillFile {
        path,
        mime_type,
        content,
    })
}

/// `registerSkill(name, { description, instructions, frontmatter, files, prefix })` →
/// unregister function.
pub fn register_skill(
    inner: &Rc<EngineInner>,
    scope: &Rc<Scope>,
    name: &JsValue,
    def: &JsValue,
) -> Result<Function, JsValue> {
    let (name, what) = begin_registration(scope, "registerSkill", "name", name, def)?;
    let description = string_member(def, "description", &what)?
        .ok_or_else(|| js::type_error(&format!("{what}: description is required")))?;
    let instructions = string_member(def, "instructions", &what)?.unwrap_or_default();
    let frontmatter = match js::to_json(&js::get(def, "frontmatter")?)? {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(o)) => o,
        Some(_) => {
            return Err(js::type_error(&format!(
                "{what}: frontmatter must be an object"
            )))
        }
    };
    let prefix = {
        let p = js::get(def, "prefix")?;
        if p.is_undefined() || p.is_null() {
            Vec::new()
        } else if Array::is_array(&p) {
            Array::from(&p)
                .iter()
                .map(|s| {
                    s.as_string().ok_or_else(|| {
                        js::type_error(&format!("{what}: prefix must be an array of strings"))
                    })
                })
                .collect::<Result<_, _>>()?
        } else {
            return Err(js::type_error(&format!(
                "{what}: prefix must be an array of strings"
            )));
        }
    };
    let mut files = Vec::new();
    let f = js::get(def, "files")?;
    if !(f.is_undefined() || f.is_null()) {
        let obj: &Object = f
            .dyn_ref()
            .ok_or_else(|| js::type_error(&format!("{what}: files must be an object")))?;
        for entry in Object::entries(obj).iter() {
            let pair = Array::from(&entry);
            let path = pair.get(0).as_string().unwrap_or_default();
            files.push(file(path, &pair.get(1), &what)?);
        }
    }
    let uri = inner
        .server()
        .register_skill(SkillDef {
            name,
            description,
            prefix,
            frontmatter,
            instructions,
            files,
        })
        .map_err(|e| registry_error_to_js(&e))?;
    let registration = inner.next_registration();
    inner
        .state::<Registrations>()
        .0
        .borrow_mut()
        .insert(uri.clone(), registration);
    Ok(scoped_unregister(
        inner,
        scope,
        |s| &s.skills,
        uri,
        registration,
        unregister_skill_if_current,
    ))
}

/// Unregisters the skill at `uri` if it is still registration `registration`.
pub fn unregister_skill_if_current(inner: &EngineInner, uri: &str, registration: u64) {
    let registrations = inner.state::<Registrations>();
    let current = registrations.0.borrow().get(uri) == Some(&registration);
    if current {
        registrations.0.borrow_mut().remove(uri);
        inner.server().unregister_skill(uri);
    }
}

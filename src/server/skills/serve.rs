//! Serving skills: registering and removing them on a [`Server`], and the extension's requests
//! (`skills/list`, `skills/get`, `resources/directory/read`).

use crate::collections::VecMap;
use crate::server::limits::quote;
use crate::server::limits::shorten;
use serde_json::{json, Map, Value};
use std::rc::Rc;

use crate::protocol::ProtocolVersion;
use crate::server::call::{Call, Reply};
use crate::server::engine::Server;
use crate::server::error::ServerError;
use crate::server::pagination;
use crate::server::registry::RegistryError;
use crate::server::shape;

use super::{build, SkillDef, DIRECTORY_MIME_TYPE};

impl Server {
    /// Registers a skill (SEP-2640): its files become resources; `skills/list` lists it.
    /// Returns the URI of its `SKILL.md`. Refused, with nothing registered, when a check
    /// fails or a file's URI is taken.
    pub fn register_skill(&self, def: SkillDef) -> Result<String, RegistryError> {
        let (skill, resources) = build(def)?;
        let uri = skill.uri();
        if self.skill_registry().borrow().skills.contains_key(&uri) {
            return Err(RegistryError::Duplicate {
                kind: "skill",
                key: uri,
            });
        }
        let mut added: Vec<String> = Vec::new();
        for r in resources {
            let u = r.uri.clone();
            if let Err(e) = self.register_resource(r) {
                for a in &added {
                    self.unregister_resource(a);
                }
                return Err(e);
            }
            added.push(u);
        }
        self.skill_registry()
            .borrow_mut()
            .skills
            .insert(uri.clone(), Rc::new(skill));
        Ok(uri)
    }

    /// Removes the skill whose `SKILL.md` is at `uri`, and its resources; `false` when none.
    pub fn unregister_skill(&self, uri: &str) -> bool {
        let removed = self.skill_registry().borrow_mut().skills.remove(uri);
        match removed {
            Some(skill) => {
                for u in &skill.uris {
                    self.unregister_resource(u);
                }
                true
            }
            None => false,
        }
    }

    /// The skill entries, by URI.
    pub fn skills(&self) -> Vec<Value> {
        let reg = self.skill_registry().borrow();
        reg.skills.values().map(|s| s.entry.clone()).collect()
    }
}

/// `skills/list`, `skills/get`, `resources/directory/read`.
pub(crate) fn method(call: &Call, v: ProtocolVersion) -> Reply {
    Reply::Now(match call.method.as_str() {
        "skills/list" => list(call),
        "skills/get" => get(call),
        _ => directory_read(call, v),
    })
}

fn uri_param(call: &Call) -> Result<&str, ServerError> {
    match call.params.get("uri") {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ServerError::invalid_params(format!(
            "{}: \"uri\" must be a string, got {other}",
            call.method,
            other = quote(other)
        ))),
        None => Err(ServerError::invalid_params(format!(
            "{}: missing required parameter \"uri\"",
            call.method
        ))),
    }
}

fn list(call: &Call) -> Result<Value, ServerError> {
    let server = &call.session.server();
    let after = pagination::read_cursor(&call.params)?;
    let reg = server.skill_registry().borrow();
    let (page, next) = pagination::page(
        reg.skills.iter().map(|(k, s)| (k.clone(), s.entry.clone())),
        after.as_deref(),
        server.config().page_size,
    );
    let mut r = Map::new();
    r.insert("skills".into(), Value::Array(page));
    if let Some(n) = next {
        r.insert("nextCursor".into(), json!(n));
    }
    Ok(Value::Object(r))
}

fn get(call: &Call) -> Result<Value, ServerError> {
    let uri = uri_param(call)?;
    let reg = call.session.server().skill_registry().borrow();
    match reg.skills.get(uri) {
        Some(s) => Ok(json!({ "skill": s.entry })),
        None => Err(ServerError::InvalidParams {
            message: format!(
                "Unknown skill: {} (skills/list names the skills served)",
                shorten(uri.to_owned())
            ),
            data: Some(json!({ "uri": uri })),
        }),
    }
}

/// `resources/directory/read`: the direct children of a directory within the skill
/// namespace (a skill directory, one of its subdirectories, or a prefix directory above
/// skills), files with their resource metadata and subdirectories as `inode/directory`.
fn directory_read(call: &Call, v: ProtocolVersion) -> Result<Value, ServerError> {
    let uri = uri_param(call)?.trim_end_matches('/').to_string();
    let server = &call.session.server();
    let after = pagination::read_cursor(&call.params)?;
    let files: Vec<String> = {
        let reg = server.skill_registry().borrow();
        reg.skills
            .values()
            .flat_map(|s| s.uris.iter().cloned())
            .collect()
    };
    let prefix = format!("{uri}/");
    let mut children: VecMap<String, Value> = VecMap::new();
    let resources = server.resources();
    for f in files.iter().filter(|f| f.starts_with(&prefix)) {
        let rest = &f[prefix.len()..];
        match rest.split_once('/') {
            None => {
                if let Some(r) = resources.iter().find(|r| &r.def.uri == f) {
                    children.insert(f.clone(), shape::resource(r, v));
                }
            }
            Some((dir, _)) => {
                let d = format!("{prefix}{dir}");
                children.get_or_insert_with(
                    d.clone(),
                    || json!({ "uri": d, "name": dir, "mimeType": DIRECTORY_MIME_TYPE }),
                );
            }
        }
    }
    if children.is_empty() || !uri.starts_with("skill://") {
        let what = if files.contains(&uri) {
            "is a file, not a directory"
        } else {
            "is not a directory this server serves"
        };
        return Err(ServerError::InvalidParams {
            message: format!(
                "resources/directory/read: {} {what}",
                shorten(uri.to_owned())
            ),
            data: Some(json!({ "uri": uri })),
        });
    }
    let (page, next) = pagination::page(
        children.into_iter(),
        after.as_deref(),
        server.config().page_size,
    );
    let mut r = Map::new();
    r.insert("resources".into(), Value::Array(page));
    if let Some(n) = next {
        r.insert("nextCursor".into(), json!(n));
    }
    Ok(Value::Object(r))
}

//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640,
//! <https://modelcontextprotocol.io/seps/2640-skills-extension>): Agent Skills served over MCP.
//!
//! A skill is a directory: a `SKILL.md` (YAML frontmatter with at least `name` and
//! `description`, then instructions) and any other files. The page gives the name, the
//! description, further frontmatter fields, the instructions and the files ([`SkillDef`]); the
//! engine writes `SKILL.md`, and then:
//!
//! - every file is a resource `skill://<skill-path>/<file-path>` (the final `<skill-path>`
//!   segment is the name), read with `resources/read` and listed by `resources/list`; the
//!   `SKILL.md` resource has `mimeType: text/markdown` and the skill's name and description;
//! - `skills/list` (paginated) and `skills/get` answer skill entries: `uri` (of `SKILL.md`),
//!   `frontmatter` (exactly the file's), and `resources`, every file once with its SHA-256
//!   `digest` and `size` in bytes;
//! - `resources/directory/read` lists a directory's direct children, subdirectories as
//!   `inode/directory` resources (the capability declares `directoryRead: true`).
//!
//! Registration refuses what the SEP forbids or advises against: names breaking the Agent
//! Skills naming rules, paths escaping the skill directory, a `SKILL.md` in a descendant
//! directory, more than [`MAX_FILES`] entries or [`MAX_TOTAL_BYTES`] bytes.

use crate::collections::{VecMap, VecSet};
use crate::protocol::json_text;
use serde_json::{json, Map, Value};
use std::rc::Rc;

use super::crypto::{base64_decode_with, base64_encode_with, hex, sha256, B64_STANDARD};
use super::handler::HandlerError;
use super::registry::{RegistryError, ResourceDef};

mod serve;

pub(crate) use serve::method;

/// The extension's identifier.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of a directory resource.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// Most entries (files, `SKILL.md` included) a skill may have (SEP-2640 limits).
pub const MAX_FILES: usize = 512;

/// Most bytes a skill's files may add up to (16 MiB, SEP-2640 limits).
pub const MAX_TOTAL_BYTES: usize = 16 * 1024 * 1024;

/// A file's bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum SkillContent {
    /// Text (UTF-8).
    Text(String),
    /// Bytes, served Base64-encoded as a blob.
    Binary(Vec<u8>),
}

impl SkillContent {
    fn bytes(&self) -> &[u8] {
        match self {
            SkillContent::Text(t) => t.as_bytes(),
            SkillContent::Binary(b) => b,
        }
    }
}

/// A file of a skill, at `path` relative to the skill directory (`references/guide.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct SkillFile {
    /// The path inside the skill directory (`references/forms.md`).
    pub path: String,
    /// Its MIME type; guessed from the extension when `None`.
    pub mime_type: Option<String>,
    /// Its bytes.
    pub content: SkillContent,
}

/// A skill as the page registers it.
#[derive(Clone, Debug, PartialEq)]
pub struct SkillDef {
    /// The skill's name: 1–64 of `a-z 0-9 -`, no leading, trailing or doubled hyphen.
    pub name: String,
    /// What the skill does and when to use it (the frontmatter's `description`).
    pub description: String,
    /// Segments before the name in the skill path (`skill://<prefix…>/<name>/`); often none.
    pub prefix: Vec<String>,
    /// Further frontmatter fields (`license`, `compatibility`, `metadata`, `allowed-tools`…).
    pub frontmatter: Map<String, Value>,
    /// The instructions: `SKILL.md` after its frontmatter.
    pub instructions: String,
    /// The skill's other files.
    pub files: Vec<SkillFile>,
}

/// A registered skill.
pub(crate) struct Skill {
    /// `skill://<skill-path>` (the directory).
    dir: String,
    /// The skill entry of `skills/list` / `skills/get`.
    entry: Value,
    /// Every file's URI.
    uris: Vec<String>,
}

impl Skill {
    fn uri(&self) -> String {
        format!("{}/SKILL.md", self.dir)
    }
}

/// The registered skills, by the URI of their `SKILL.md`.
#[derive(Default)]
pub(crate) struct SkillRegistry {
    skills: VecMap<String, Rc<Skill>>,
}

fn invalid(field: &'static str, reason: String) -> RegistryError {
    RegistryError::InvalidField { field, reason }
}

/// The Agent Skills naming rule.
fn check_name(name: &str) -> Result<(), RegistryError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if ok {
        Ok(())
    } else {
        Err(invalid(
            "skill name",
            format!(
                "{name:?} breaks the Agent Skills naming rules (1-64 characters of a-z, 0-9 and \
                 '-', no leading, trailing or consecutive hyphens)"
            ),
        ))
    }
}

/// A path segment: non-empty, not `.`/`..`, URI-safe (RFC 3986 unreserved and sub-delims).
fn check_segment(seg: &str, what: &'static str, whole: &str) -> Result<(), RegistryError> {
    let bad = seg.is_empty()
        || seg == "."
        || seg == ".."
        || !seg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=@".contains(&b));
    if bad {
        return Err(invalid(
            what,
            format!(
                "{whole:?}: segment {seg:?} is not allowed (use letters, digits and -._~!$&'()*+,;=@; \
                 no empty, \".\" or \"..\" segments)"
            ),
        ));
    }
    Ok(())
}

/// A MIME type for `path` when the page gave none.
fn guess_mime(path: &str, content: &SkillContent) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("md") | Some("markdown") => "text/markdown",
        Some("json") => "application/json",
        Some("txt") => "text/plain",
        Some("html") | Some("htm") => "text/html",
        Some("css") => "text/css",
        Some("js") | Some("mjs") => "text/javascript",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("csv") => "text/csv",
        Some("yaml") | Some("yml") => "application/yaml",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg") | Some("jpeg") => "image/jpeg",
        Some("pdf") => "application/pdf",
        _ => match content {
            SkillContent::Text(_) => "text/plain",
            SkillContent::Binary(_) => "application/octet-stream",
        },
    }
}

/// A frontmatter key as YAML: plain when it is a simple word, JSON-quoted otherwise.
fn yaml_key(k: &str) -> String {
    let plain = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        k.to_string()
    } else {
        json_text::to_string(&Value::from(k))
    }
}

/// `SKILL.md`: the frontmatter as YAML (each value written as JSON, which YAML 1.2 reads
/// as the same value), then the instructions.
pub fn skill_md(frontmatter: &Map<String, Value>, instructions: &str) -> String {
    let mut s = String::from("---\n");
    for (k, v) in frontmatter {
        s.push_str(&yaml_key(k));
        s.push_str(": ");
        json_text::write_value(&mut s, v);
        s.push('\n');
    }
    s.push_str("---\n");
    s.push_str(instructions);
    if !instructions.is_empty() && !instructions.ends_with('\n') {
        s.push('\n');
    }
    s
}

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&sha256(bytes)))
}

/// Standard Base64 with padding (resource `blob`s).
pub fn base64_encode(data: &[u8]) -> String {
    base64_encode_with(data, B64_STANDARD, true)
}

/// Decodes standard Base64 (padding optional); `None` for anything else.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    base64_decode_with(s.trim_end_matches('='), B64_STANDARD)
}

/// Checks `def` and builds the skill and the resources serving its files.
fn build(def: SkillDef) -> Result<(Skill, Vec<ResourceDef>), RegistryError> {
    check_name(&def.name)?;
    if def.description.trim().is_empty() {
        return Err(invalid(
            "skill description",
            format!("skill {:?} needs a non-empty description", def.name),
        ));
    }
    for seg in &def.prefix {
        check_segment(seg, "skill path prefix", &def.prefix.join("/"))?;
    }
    for reserved in ["name", "description"] {
        if def.frontmatter.contains_key(reserved) {
            return Err(invalid(
                "skill frontmatter",
                format!("{reserved:?} is given as the skill's own {reserved}, not in frontmatter"),
            ));
        }
    }
    if let Some(Value::Object(meta)) = def.frontmatter.get("metadata") {
        if let Some(k) = meta
            .keys()
            .find(|k| k.starts_with("io.modelcontextprotocol/"))
        {
            return Err(invalid(
                "skill frontmatter",
                format!("metadata key {k:?} uses the prefix reserved for MCP extensions"),
            ));
        }
    }
    let mut dirs_of_files: VecSet<String> = VecSet::new();
    let mut paths: VecSet<&str> = VecSet::new();
    for f in &def.files {
        for seg in f.path.split('/') {
            check_segment(seg, "skill file path", &f.path)?;
        }
        if f.path.split('/').next_back() == Some("SKILL.md") {
            return Err(invalid(
                "skill file path",
                format!(
                    "{:?}: SKILL.md is written from the skill's name, description and \
                     instructions, and no other directory of a skill may hold one (skills do \
                     not nest)",
                    f.path
                ),
            ));
        }
        if !paths.insert(&f.path) {
            return Err(invalid(
                "skill file path",
                format!("{:?} is given twice", f.path),
            ));
        }
        let segs: Vec<&str> = f.path.split('/').collect();
        for i in 1..segs.len() {
            dirs_of_files.insert(segs[..i].join("/"));
        }
    }
    if let Some(clash) = paths.iter().find(|p| dirs_of_files.contains(**p)) {
        return Err(invalid(
            "skill file path",
            format!("{clash:?} is both a file and a directory"),
        ));
    }
    if def.files.len() + 1 > MAX_FILES {
        return Err(invalid(
            "skill files",
            format!(
                "skill {:?} has {} entries with SKILL.md; the limit is {MAX_FILES}",
                def.name,
                def.files.len() + 1
            ),
        ));
    }
    let mut frontmatter = Map::new();
    frontmatter.insert("name".into(), json!(def.name));
    frontmatter.insert("description".into(), json!(def.description));
    for (k, v) in &def.frontmatter {
        frontmatter.insert(k.clone(), v.clone());
    }
    let md = skill_md(&frontmatter, &def.instructions);
    let total: usize = md.len()
        + def
            .files
            .iter()
            .map(|f| f.content.bytes().len())
            .sum::<usize>();
    if total > MAX_TOTAL_BYTES {
        return Err(invalid(
            "skill files",
            format!(
                "skill {:?} is {total} bytes; the limit is {MAX_TOTAL_BYTES}",
                def.name
            ),
        ));
    }
    let mut path: Vec<&str> = def.prefix.iter().map(String::as_str).collect();
    path.push(&def.name);
    let dir = format!("skill://{}", path.join("/"));
    let md_uri = format!("{dir}/SKILL.md");
    let mut resources = vec![file_resource(
        &md_uri,
        &def.name,
        Some(def.description.clone()),
        "text/markdown",
        SkillContent::Text(md.clone()),
    )];
    let mut listed =
        vec![json!({ "uri": md_uri, "digest": digest(md.as_bytes()), "size": md.len() })];
    let mut files = def.files;
    crate::collections::sort_by(&mut files, |a, b| a.path.cmp(&b.path));
    for f in files {
        let uri = format!("{dir}/{}", f.path);
        let mime = f
            .mime_type
            .clone()
            .unwrap_or_else(|| guess_mime(&f.path, &f.content).to_string());
        let bytes = f.content.bytes();
        listed.push(json!({ "uri": uri, "digest": digest(bytes), "size": bytes.len() }));
        resources.push(file_resource(&uri, &f.path, None, &mime, f.content));
    }
    let entry = json!({
        "uri": md_uri,
        "frontmatter": frontmatter,
        "resources": listed,
    });
    let uris = resources.iter().map(|r| r.uri.clone()).collect();
    Ok((Skill { dir, entry, uris }, resources))
}

/// The resource serving one file.
fn file_resource(
    uri: &str,
    name: &str,
    description: Option<String>,
    mime: &str,
    content: SkillContent,
) -> ResourceDef {
    let size = content.bytes().len() as u64;
    let body = match &content {
        SkillContent::Text(t) => json!({ "uri": uri, "mimeType": mime, "text": t }),
        SkillContent::Binary(b) => {
            json!({ "uri": uri, "mimeType": mime, "blob": base64_encode(b) })
        }
    };
    let contents = json!({ "contents": [body] });
    let mut r = ResourceDef::new(
        uri,
        name,
        move |_uri: String, _vars: VecMap<String, String>, _ctx| {
            let contents = contents.clone();
            async move { Ok::<Value, HandlerError>(contents) }
        },
    )
    .mime_type(mime);
    r.description = description;
    r.size = Some(size);
    r
}

/// The capability settings: `directoryRead` (the one optional feature) is supported.
pub fn capability() -> Value {
    json!({ "directoryRead": true })
}

#[cfg(test)]
mod tests;

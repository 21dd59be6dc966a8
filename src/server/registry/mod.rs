//! The one registry: tools, resources (static and templated) and prompts.
//!
//! Every door — the W3C API, the session API, earlier drafts, MCP — reads and writes this
//! registry. Schemas are compiled once, at registration; an invalid one is refused there.

use crate::collections::{VecMap, VecSet};
use crate::protocol::json_text::{self, quoted};
use serde_json::Value;
use std::fmt;
use std::rc::{Rc, Weak};

use super::uri_template::UriTemplate;
use super::validator::{CompiledSchema, SchemaCompiler};

mod defs;

pub use defs::{PromptArgument, PromptDef, Resource, ResourceDef, SchemaText, Tool, ToolDef};

/// The longest tool name the WebMCP rule allows.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// Which list a change touched.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list` and `resources/templates/list`.
    Resources,
    /// `prompts/list`.
    Prompts,
}

impl ListKind {
    /// Every kind, in the order notifications for them go out.
    pub const ALL: [ListKind; 3] = [ListKind::Tools, ListKind::Resources, ListKind::Prompts];

    /// The `notifications/<kind>/list_changed` method.
    pub fn list_changed_method(self) -> &'static str {
        match self {
            ListKind::Tools => "notifications/tools/list_changed",
            ListKind::Resources => "notifications/resources/list_changed",
            ListKind::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// Why a registration was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum RegistryError {
    /// A tool/prompt name or resource URI/template already registered.
    Duplicate {
        /// `"tool"`, `"resource"`, `"prompt"` or `"skill"`.
        kind: &'static str,
        /// The name or URI taken.
        key: String,
    },
    /// A tool name breaking the WebMCP rule (1–128 of `A-Z a-z 0-9 _ - .`).
    InvalidName {
        /// The name refused.
        name: String,
        /// Which part of the rule it breaks.
        reason: String,
    },
    /// A schema the validator refused.
    InvalidSchema {
        /// `"inputSchema"` or `"outputSchema"`.
        which: &'static str,
        /// The validator's reason.
        message: String,
    },
    /// A malformed resource URI or URI template.
    InvalidUri {
        /// The URI or template refused.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Any other malformed field.
    InvalidField {
        /// The field's name, as the definition spells it.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Duplicate { kind, key } => {
                write!(f, "A {kind} named {key:?} is already registered")
            }
            RegistryError::InvalidName { name, reason } => {
                write!(f, "Invalid tool name {}: {reason}", quoted(name))
            }
            RegistryError::InvalidSchema { which, message } => {
                write!(f, "Invalid {which}: {message}")
            }
            RegistryError::InvalidUri { uri, reason } => {
                write!(f, "Invalid resource URI {uri:?}: {reason}")
            }
            RegistryError::InvalidField { field, reason } => write!(f, "Invalid {field}: {reason}"),
        }
    }
}

impl std::error::Error for RegistryError {}

/// Checks a tool name against the WebMCP rule.
pub fn check_tool_name(name: &str) -> Result<(), RegistryError> {
    let fail = |reason: String| {
        Err(RegistryError::InvalidName {
            name: name.to_string(),
            reason,
        })
    };
    if name.is_empty() {
        return fail("the name is empty".into());
    }
    let len = name.chars().count();
    if len > MAX_TOOL_NAME_LEN {
        return fail(format!(
            "it is {len} characters long; the limit is {MAX_TOOL_NAME_LEN}"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return fail(format!(
            "character {} is not allowed (use A-Z, a-z, 0-9, '_', '-', '.')",
            quoted(c.encode_utf8(&mut [0; 4]))
        ));
    }
    Ok(())
}

/// The tools, sorted by name: a map keyed by each tool's own name, so a page of thousands
/// of tools does not hold every name twice.
#[derive(Default)]
struct Tools(Vec<Rc<Tool>>);

impl Tools {
    /// `Ok(index)` of tool `name`, or `Err(index)` where it would be inserted.
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|t| t.def.name.as_str().cmp(name))
    }

    /// Tool `name`.
    fn get(&self, name: &str) -> Option<&Rc<Tool>> {
        self.find(name).ok().map(|i| &self.0[i])
    }

    /// Adds `tool` in its place, replacing a tool of the same name.
    fn insert(&mut self, tool: Rc<Tool>) {
        match self.find(&tool.def.name) {
            Ok(i) => self.0[i] = tool,
            Err(i) => self.0.insert(i, tool),
        }
    }

    /// Removes tool `name`; what it was.
    fn remove(&mut self, name: &str) -> Option<Rc<Tool>> {
        self.find(name).ok().map(|i| self.0.remove(i))
    }
}

/// The registry proper. Maps are keyed so that iteration is the listing order
/// (tools and prompts by name, resources by URI).
#[derive(Default)]
pub struct Registry {
    tools: Tools,
    resources: VecMap<String, Rc<Resource>>,
    templates: VecMap<String, Rc<Resource>>,
    prompts: VecMap<String, Rc<PromptDef>>,
    /// Compiled schemas by their JSON text, while some tool uses them: tools with the same
    /// schema (an argument-less `{"type":"object"}` is common) share one compilation and
    /// one copy of the text (the key is the first such tool's [`SchemaText`], not a copy).
    compiled: VecMap<Rc<str>, Weak<dyn CompiledSchema>>,
}

impl Registry {
    /// Compiles `schema` (`which` names it in errors), or reuses the compilation of an
    /// identical schema still in use; with the text the tool is to keep (that of the
    /// schema compiled, so a page of tools with one schema holds its text once). A compiled
    /// schema depends on nothing but its text and the compiler, which is the registry's for
    /// its whole life. `parsed` is the schema's value, read from its text once by the caller.
    fn compile(
        &mut self,
        compiler: &dyn SchemaCompiler,
        which: &'static str,
        schema: SchemaText,
        parsed: &Value,
    ) -> Result<(Rc<dyn CompiledSchema>, SchemaText), RegistryError> {
        if !(parsed.is_object() || parsed.is_boolean()) {
            return Err(RegistryError::InvalidSchema {
                which,
                message: format!(
                    "a schema must be an object or a boolean, got {parsed}",
                    parsed = json_text::to_string(parsed)
                ),
            });
        }
        let text = schema.as_str();
        // (A deferred compilation that the validator refused is not reused: compiled now,
        // the schema is refused at registration.)
        let reused = self
            .compiled
            .get_key_value(text)
            .and_then(|(text, compiled)| {
                let compiled = compiled
                    .upgrade()
                    .filter(|c| c.deferred_error().is_none())?;
                Some((compiled, SchemaText::from_shared(text.clone())))
            });
        if let Some(reused) = reused {
            return Ok(reused);
        }
        let compiled = compiler
            .compile(parsed)
            .map_err(|message| RegistryError::InvalidSchema { which, message })?;
        // Forget the schemas no tool uses any more, now and then, so the map stays in
        // proportion to what is registered.
        if self.compiled.len() >= 64 && self.compiled.len().is_power_of_two() {
            self.compiled.retain(|_, w| w.strong_count() > 0);
        }
        // (An entry whose schema no tool uses any more, or which the validator refused, is
        // replaced key and all: the key is the text the tools share.)
        self.compiled.remove(text);
        self.compiled
            .insert(schema.shared(), Rc::downgrade(&compiled));
        Ok((compiled, schema))
    }
}

/// `schema`'s value, read back from its text; a text the parser cannot read (nested past its
/// 128 levels) is refused here, so every registered schema can be read later.
fn parsed(which: &'static str, schema: &SchemaText) -> Result<Value, RegistryError> {
    schema.value().map_err(|e| RegistryError::InvalidSchema {
        which,
        message: format!("its JSON cannot be read back: {e}"),
    })
}

impl Registry {
    /// Adds a tool: duplicate check, then the name rule, then schema compilation. The tool
    /// keeps its schemas as text ([`SchemaText`]), shared with the tools that have the same
    /// schema; each is parsed once here to be compiled.
    pub fn add_tool(
        &mut self,
        mut def: ToolDef,
        compiler: &dyn SchemaCompiler,
    ) -> Result<(), RegistryError> {
        if self.tools.get(&def.name).is_some() {
            return Err(RegistryError::Duplicate {
                kind: "tool",
                key: def.name,
            });
        }
        check_tool_name(&def.name)?;
        let input = match def.input_schema.take() {
            None => None,
            Some(schema) => {
                let value = parsed("inputSchema", &schema)?;
                let (compiled, text) = self.compile(compiler, "inputSchema", schema, &value)?;
                def.input_schema = Some(text);
                // Tool arguments are always objects (WebMCP `inputObject`, MCP `arguments`).
                if let Some(t) = value.get("type").filter(|t| !admits_object(t)) {
                    return Err(RegistryError::InvalidSchema {
                        which: "inputSchema",
                        message: format!(
                            "tool arguments are always an object, but the schema's \"type\" is {t}",
                            t = json_text::to_string(t)
                        ),
                    });
                }
                Some(compiled)
            }
        };
        let output = match def.output_schema.take() {
            None => None,
            Some(schema) => {
                let value = parsed("outputSchema", &schema)?;
                let (compiled, text) = self.compile(compiler, "outputSchema", schema, &value)?;
                def.output_schema = Some(text);
                Some(compiled)
            }
        };
        self.tools.insert(Rc::new(Tool { def, input, output }));
        Ok(())
    }

    /// Removes tool `name`; what it was.
    pub fn remove_tool(&mut self, name: &str) -> Option<Rc<Tool>> {
        self.tools.remove(name)
    }

    /// Tool `name`.
    pub fn tool(&self, name: &str) -> Option<Rc<Tool>> {
        self.tools.get(name).cloned()
    }

    /// Tools sorted by name.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &Rc<Tool>> {
        self.tools.0.iter()
    }

    /// Removes every tool; how many there were.
    pub fn clear_tools(&mut self) -> usize {
        let n = self.tools.0.len();
        self.tools.0.clear();
        n
    }

    /// Adds a resource or (when `uri` has expressions) a resource template.
    pub fn add_resource(&mut self, def: ResourceDef) -> Result<(), RegistryError> {
        let template =
            UriTemplate::parse(&def.uri).map_err(|reason| RegistryError::InvalidUri {
                uri: def.uri.clone(),
                reason,
            })?;
        if def.uri.is_empty() {
            return Err(RegistryError::InvalidUri {
                uri: def.uri,
                reason: "the URI is empty".into(),
            });
        }
        if !def.uri.contains(':') {
            return Err(RegistryError::InvalidUri {
                uri: def.uri.clone(),
                reason: "a URI needs a scheme (e.g. \"app://\")".into(),
            });
        }
        if def.name.is_empty() {
            return Err(RegistryError::InvalidField {
                field: "resource name",
                reason: "the name is empty".into(),
            });
        }
        let map = if template.has_variables() {
            &mut self.templates
        } else {
            &mut self.resources
        };
        if map.contains_key(&def.uri) {
            return Err(RegistryError::Duplicate {
                kind: if template.has_variables() {
                    "resource template"
                } else {
                    "resource"
                },
                key: def.uri,
            });
        }
        let template = template.has_variables().then_some(template);
        map.insert(def.uri.clone(), Rc::new(Resource { def, template }));
        Ok(())
    }

    /// Removes the resource or template `uri`; what it was.
    pub fn remove_resource(&mut self, uri: &str) -> Option<Rc<Resource>> {
        self.resources
            .remove(uri)
            .or_else(|| self.templates.remove(uri))
    }

    /// Static resources sorted by URI.
    pub fn resources(&self) -> impl Iterator<Item = &Rc<Resource>> {
        self.resources.values()
    }

    /// Resource templates sorted by template text.
    pub fn templates(&self) -> impl Iterator<Item = &Rc<Resource>> {
        self.templates.values()
    }

    /// The template registered as `uri_template`.
    pub fn template(&self, uri_template: &str) -> Option<Rc<Resource>> {
        self.templates.get(uri_template).cloned()
    }

    /// Finds what serves `uri`: the static resource, else the first matching template.
    pub fn resolve(&self, uri: &str) -> Option<(Rc<Resource>, VecMap<String, String>)> {
        if let Some(r) = self.resources.get(uri) {
            return Some((r.clone(), VecMap::new()));
        }
        self.templates.values().find_map(|r| {
            r.template
                .as_ref()
                .and_then(|t| t.matches(uri))
                .map(|vars| (r.clone(), vars))
        })
    }

    /// Adds a prompt (a duplicate name is refused).
    pub fn add_prompt(&mut self, def: PromptDef) -> Result<(), RegistryError> {
        if self.prompts.contains_key(&def.name) {
            return Err(RegistryError::Duplicate {
                kind: "prompt",
                key: def.name,
            });
        }
        if def.name.is_empty() {
            return Err(RegistryError::InvalidField {
                field: "prompt name",
                reason: "the name is empty".into(),
            });
        }
        let mut seen = VecSet::new();
        for a in &def.arguments {
            if a.name.is_empty() || !seen.insert(a.name.as_str()) {
                return Err(RegistryError::InvalidField {
                    field: "prompt arguments",
                    reason: format!(
                        "argument names must be non-empty and unique, got {:?}",
                        a.name
                    ),
                });
            }
        }
        self.prompts.insert(def.name.clone(), Rc::new(def));
        Ok(())
    }

    /// Removes prompt `name`; what it was.
    pub fn remove_prompt(&mut self, name: &str) -> Option<Rc<PromptDef>> {
        self.prompts.remove(name)
    }

    /// Prompt `name`.
    pub fn prompt(&self, name: &str) -> Option<Rc<PromptDef>> {
        self.prompts.get(name).cloned()
    }

    /// Prompts sorted by name.
    pub fn prompts(&self) -> impl Iterator<Item = &Rc<PromptDef>> {
        self.prompts.values()
    }
}

/// Whether a schema's `type` admits objects.
pub(crate) fn admits_object(t: &Value) -> bool {
    match t {
        Value::String(s) => s == "object",
        Value::Array(a) => a.iter().any(|x| x == "object"),
        _ => false,
    }
}

#[cfg(test)]
mod tests;

//! What a registration gives: the definitions of tools, resources (and templates) and
//! prompts with their builders, and the registered forms the registry keeps ([`Tool`] with
//! its compiled schemas, [`Resource`] with its parsed template).

use crate::collections::VecMap;
use crate::protocol::json_text;
use serde_json::{Map, Value};
use std::any::Any;
use std::rc::Rc;

use crate::server::handler::{Completer, PromptHandler, ResourceHandler, ToolHandler};
use crate::server::tasks::TaskSupport;
use crate::server::uri_template::UriTemplate;
use crate::server::validator::CompiledSchema;

/// A tool as registered.
#[derive(Clone)]
pub struct ToolDef {
    /// The unique name clients call the tool by.
    pub name: String,
    /// A human-readable title (2025-06-18 on).
    pub title: Option<String>,
    /// What the tool does, for the model.
    pub description: String,
    /// The input JSON Schema (`None`: any object).
    pub input_schema: Option<SchemaText>,
    /// The output JSON Schema: `structuredContent` must satisfy it (`None`: no structured output).
    pub output_schema: Option<SchemaText>,
    /// Every annotation given: WebMCP's `readOnlyHint`, `untrustedContentHint`,
    /// `consequentialHint`, `debugging`; MCP's `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`, `title`; and any other. `None`: none given. Boxed: an empty map
    /// is 44 bytes in wasm32 (its hash table and hasher keys), a box 4, and a page may
    /// register thousands of tools.
    pub annotations: Option<Box<Map<String, Value>>>,
    /// `icons` (2025-11-25 on).
    pub icons: Vec<Value>,
    /// `execution` (2025-11-25 on; e.g. `taskSupport` as earlier versions spelled it).
    /// Boxed, as `meta` is: few tools have either, and a page may register thousands (a
    /// `Value` is 48 bytes in wasm32; a box, 4).
    pub execution: Option<Box<Value>>,
    /// `_meta`, passed through as given.
    pub meta: Option<Box<Value>>,
    /// Whether a call may run as a task (the Tasks extension, SEP-2663; see
    /// [`crate::server::tasks`]). Forbidden unless the registering door says otherwise.
    pub task_support: TaskSupport,
    /// Runs a call.
    pub handler: Rc<dyn ToolHandler>,
    /// Data the registering door keeps with the tool (the browser layer's per-tool state).
    pub attachment: Option<Rc<dyn Any>>,
}

impl ToolDef {
    /// A tool with no schema, annotations or icons; the builder methods add them.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: impl ToolHandler + 'static,
    ) -> Self {
        ToolDef::with_handler(name, description, Rc::new(handler))
    }

    /// As [`ToolDef::new`], with a handler already shared (one that is also, say, the
    /// tool's [`ToolDef::attachment`]).
    pub fn with_handler(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: Rc<dyn ToolHandler>,
    ) -> Self {
        ToolDef {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema: None,
            output_schema: None,
            annotations: None,
            icons: Vec::new(),
            execution: None,
            meta: None,
            task_support: TaskSupport::Forbidden,
            handler,
            attachment: None,
        }
    }

    /// Sets the input JSON Schema.
    pub fn input_schema(mut self, schema: impl Into<SchemaText>) -> Self {
        self.input_schema = Some(schema.into());
        self
    }

    /// Sets the output JSON Schema.
    pub fn output_schema(mut self, schema: impl Into<SchemaText>) -> Self {
        self.output_schema = Some(schema.into());
        self
    }

    /// Sets the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Adds one annotation.
    pub fn annotation(mut self, key: &str, value: Value) -> Self {
        self.annotations
            .get_or_insert_with(Box::default)
            .insert(key.to_string(), value);
        self
    }

    /// Sets whether a call may run as a task.
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }
}

/// A JSON Schema as a tool keeps it: its JSON text, shared by clones.
///
/// A registered tool validates with its schemas' compilation and otherwise only advertises
/// them, so it keeps their text and parses it when a reader needs the value: a parsed
/// [`Value`] costs several times its text (each object is a map with its own hash table;
/// about 550 bytes against 60 for a one-property object schema).
///
/// The text is JSON when made with [`SchemaText::parse`]; one made from a [`Value`] is that
/// value's serialization. The registry refuses a schema whose text it cannot read back (one
/// nested deeper than the JSON parser's 128 levels), so a registered tool's
/// [`SchemaText::value`] always succeeds.
///
/// ```
/// use modelcontext_polyfill::server::SchemaText;
/// use serde_json::json;
///
/// let schema = SchemaText::parse(r#"{"type":"object","properties":{"a":{"type":"number"}}}"#).unwrap();
/// assert_eq!(schema.value().unwrap()["properties"]["a"]["type"], "number");
/// assert_eq!(SchemaText::from(json!({ "type": "object" })).as_str(), r#"{"type":"object"}"#);
/// assert!(SchemaText::parse("{ not json").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaText(Rc<str>);

impl SchemaText {
    /// `text` as a schema, checked to be JSON (kept as it is, not re-serialized).
    pub fn parse(text: &str) -> Result<SchemaText, serde_json::Error> {
        serde_json::from_str::<serde::de::IgnoredAny>(text)?;
        Ok(SchemaText(text.into()))
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The JSON text, shared (not copied).
    pub fn shared(&self) -> Rc<str> {
        self.0.clone()
    }

    /// What identifies this text among the registry's: schemas of equal text registered
    /// while one of them is registered share one text, so tools with the same identity have
    /// equal schemas (never 0).
    pub fn identity(&self) -> usize {
        Rc::as_ptr(&self.0) as *const u8 as usize
    }

    /// A text already checked to be JSON (one a [`SchemaText`] held), shared.
    pub(super) fn from_shared(text: Rc<str>) -> SchemaText {
        SchemaText(text)
    }

    /// The schema, parsed.
    pub fn value(&self) -> Result<Value, serde_json::Error> {
        crate::protocol::values::parse(&self.0)
    }
}

impl From<Value> for SchemaText {
    fn from(value: Value) -> Self {
        SchemaText(json_text::to_string(&value).into())
    }
}

impl From<&Value> for SchemaText {
    fn from(value: &Value) -> Self {
        SchemaText(json_text::to_string(value).into())
    }
}

/// A registered tool with its compiled schemas.
pub struct Tool {
    /// The definition as registered.
    pub def: ToolDef,
    /// The input schema, compiled (`None`: any object).
    pub input: Option<Rc<dyn CompiledSchema>>,
    /// The output schema, compiled.
    pub output: Option<Rc<dyn CompiledSchema>>,
}

/// A resource with a fixed URI, or a family of resources under a URI template.
#[derive(Clone)]
pub struct ResourceDef {
    /// A URI, or an RFC 6570 template when it has expressions.
    pub uri: String,
    /// A short name (`Resource.name`).
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What the resource holds.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    pub size: Option<u64>,
    /// `annotations` (`audience`, `priority`, `lastModified`).
    pub annotations: Option<Value>,
    /// `icons` (2025-11-25 on).
    pub icons: Vec<Value>,
    /// `_meta`, passed through as given (boxed, as a tool's is).
    pub meta: Option<Box<Value>>,
    /// Reads the resource (for a template, with its variables).
    pub handler: Rc<dyn ResourceHandler>,
    /// Completion per template variable.
    pub completers: VecMap<String, Rc<dyn Completer>>,
    /// Data the registering door keeps with the resource.
    pub attachment: Option<Rc<dyn Any>>,
}

impl ResourceDef {
    /// A resource (or template) with only its URI, name and handler; the builder methods add the rest.
    pub fn new(
        uri: impl Into<String>,
        name: impl Into<String>,
        handler: impl ResourceHandler + 'static,
    ) -> Self {
        ResourceDef {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: Vec::new(),
            meta: None,
            handler: Rc::new(handler),
            completers: VecMap::new(),
            attachment: None,
        }
    }

    /// Sets the MIME type.
    pub fn mime_type(mut self, m: impl Into<String>) -> Self {
        self.mime_type = Some(m.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }

    /// Completes template variable `variable` (`completion/complete`).
    pub fn completer(mut self, variable: &str, c: impl Completer + 'static) -> Self {
        self.completers.insert(variable.to_string(), Rc::new(c));
        self
    }
}

/// A registered resource.
pub struct Resource {
    /// The definition as registered.
    pub def: ResourceDef,
    /// `Some` for templates.
    pub template: Option<UriTemplate>,
}

/// One argument of a prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptArgument {
    /// Its name, the key of `prompts/get`'s `arguments`.
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Whether `prompts/get` needs it.
    pub required: bool,
}

/// A prompt.
#[derive(Clone)]
pub struct PromptDef {
    /// The unique name clients get the prompt by.
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgument>,
    /// `icons` (2025-11-25 on).
    pub icons: Vec<Value>,
    /// `_meta`, passed through as given (boxed, as a tool's is).
    pub meta: Option<Box<Value>>,
    /// Renders the prompt's messages from its arguments.
    pub handler: Rc<dyn PromptHandler>,
    /// Completion per argument (`completion/complete`).
    pub completers: VecMap<String, Rc<dyn Completer>>,
    /// Data the registering door keeps with the prompt.
    pub attachment: Option<Rc<dyn Any>>,
}

impl PromptDef {
    /// A prompt with no arguments; the builder methods add them.
    pub fn new(name: impl Into<String>, handler: impl PromptHandler + 'static) -> Self {
        PromptDef {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: Vec::new(),
            meta: None,
            handler: Rc::new(handler),
            completers: VecMap::new(),
            attachment: None,
        }
    }

    /// Sets the description.
    pub fn description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }

    /// Adds an argument.
    pub fn argument(mut self, name: &str, description: &str, required: bool) -> Self {
        self.arguments.push(PromptArgument {
            name: name.into(),
            title: None,
            description: Some(description.into()).filter(|d: &String| !d.is_empty()),
            required,
        });
        self
    }

    /// Completes argument `argument` (`completion/complete`).
    pub fn completer(mut self, argument: &str, c: impl Completer + 'static) -> Self {
        self.completers.insert(argument.to_string(), Rc::new(c));
        self
    }
}

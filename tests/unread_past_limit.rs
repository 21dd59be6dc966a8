//! Text that holds more JSON values than `maxMessageValues` is read into none: a message
//! (a call's arguments aside) is refused, and a call's arguments past it are refused from
//! their text, where a reading of them would not settle more (text that is not an object's, a
//! schema that reads no text or that refuses them) or the schema would read the text whole
//! (the validator module's, in the browser: [`CompiledSchema::reads_text_whole`]), which is not
//! given it. What each costs is the text's copies: the memory is this thread's allocations,
//! counted by the test binary's allocator (one test in the binary: the harness runs each call
//! on the test's own thread).
mod support;

use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::validator::{CompiledSchema, SchemaCompiler, SchemaViolation};
use modelcontext_polyfill::server::{HandlerError, Limits, ServerConfig, ToolDef};
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use support::*;

/// The system allocator, counting this thread's live bytes and their peak.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn counted(delta: isize) {
    // (`try_with`: a thread's allocations after its locals are gone are not counted.)
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        counted(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        counted(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many bytes more than before this thread held at its peak while `f` ran.
fn peak_while<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let out = f();
    (out, (PEAK.with(Cell::get) - start) as usize)
}

/// What the engine asked of a [`Whole`] schema.
#[derive(Default)]
struct Asked {
    /// The lengths of the texts `accepts_text` was given.
    texts: RefCell<Vec<usize>>,
    /// How many values were validated.
    values: Cell<usize>,
}

/// A schema that reads an instance's text whole, as the validator module's does: checked by
/// the `jsonschema` crate's, each text and value recorded.
struct Whole {
    inner: Rc<dyn CompiledSchema>,
    asked: Rc<Asked>,
}

impl CompiledSchema for Whole {
    fn validate(&self, instance: &Value) -> Vec<SchemaViolation> {
        self.asked.values.set(self.asked.values.get() + 1);
        self.inner.validate(instance)
    }
    fn accepts_text(&self, text: &str) -> bool {
        self.asked.texts.borrow_mut().push(text.len());
        let value: Value = serde_json::from_str(text).unwrap();
        self.inner.validate(&value).is_empty()
    }
    fn reads_text_whole(&self) -> bool {
        true
    }
}

struct WholeCompiler {
    inner: JsonSchemaCompiler,
    asked: Rc<Asked>,
}

/// A schema whose `$comment` is [`WHOLE`] is compiled to a [`Whole`]; any other is the crate's,
/// which reads no text ([`CompiledSchema::accepts_text`] says "not shown").
impl SchemaCompiler for WholeCompiler {
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        let inner = self.inner.compile(schema)?;
        if schema["$comment"] != WHOLE {
            return Ok(inner);
        }
        let asked = self.asked.clone();
        Ok(Rc::new(Whole { inner, asked }))
    }
}

const WHOLE: &str = "read whole";

fn request(id: u32, name: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
    )
}

fn answer(h: &Harness, id: u32) -> Value {
    let out = h.take();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], json!(id), "{out:?}");
    out.into_iter().next().unwrap()
}

fn call(h: &Harness, id: u32, name: &str, arguments: &str) -> Value {
    h.send_text(&request(id, name, arguments));
    answer(h, id)
}

/// [`call`], and the peak of this thread's memory while the server received and answered it
/// (the harness's own reading of the request, which makes its value, left out).
fn call_measured(h: &Harness, id: u32, name: &str, arguments: &str) -> (Value, usize) {
    let text = request(id, name, arguments);
    let ((), peak) = peak_while(|| {
        h.session.receive(&text);
        h.run();
    });
    (answer(h, id), peak)
}

/// `{"xs":[[],[],…]}` of `n` empty arrays (`n + 2` values).
fn arrays(n: usize) -> String {
    format!(r#"{{"xs":[{}]}}"#, vec!["[]"; n].join(","))
}

#[test]
fn text_past_the_value_limit_is_read_into_no_value() {
    let asked = Rc::new(Asked::default());
    let compiler = Rc::new(WholeCompiler {
        inner: JsonSchemaCompiler::new(),
        asked: asked.clone(),
    });
    let config = ServerConfig {
        limits: Limits {
            max_values: 100_000,
            ..Limits::default()
        },
        ..ServerConfig::default()
    };
    let h = Harness::with(config, compiler);
    let schema = json!({"$comment": WHOLE, "type": "object", "properties": {"xs": {"type": "array", "maxItems": 3}}});
    let ran = Rc::new(Cell::new(0));
    let texts = Recorder::default();
    // A handler that takes a value, and one that takes text (`call_text`: arguments of 16 KiB
    // or more are checked as text).
    let r = ran.clone();
    let by_value = ToolDef::new("value", "Counts", move |a: Value, _c| {
        r.set(r.get() + 1);
        async move { Ok::<_, HandlerError>(json!(a["xs"].as_array().map_or(0, Vec::len))) }
    });
    h.server
        .register_tool(by_value.input_schema(schema.clone()))
        .unwrap();
    let by_text = ToolDef::new("text", "Records", texts.clone());
    h.server
        .register_tool(by_text.input_schema(schema.clone()))
        .unwrap();
    // The same schema, the crate's: it reads no text, and its refusal past the limit is made
    // from the text as well.
    let mut own = schema;
    own.as_object_mut().unwrap().remove("$comment");
    let by_crate = ToolDef::new("crate", "Records", texts.clone());
    h.server.register_tool(by_crate.input_schema(own)).unwrap();
    // (2025-06-18: refused arguments are a -32602 error, the violations its data.)
    h.initialize("2025-06-18");
    h.take();

    let unread = "the instance holds more than 100000 JSON values, more than are read to check this value against the schema";
    // 400,000 empty arrays: 1.2 MB of text.
    let junk = arrays(400_000);
    for (id, name) in [(1, "value"), (2, "text"), (3, "crate")] {
        let (answer, peak) = call_measured(&h, id, name, &junk);
        assert_eq!(answer["error"]["code"], json!(-32602), "{name}: {answer}");
        assert_eq!(
            answer["error"]["data"]["violations"],
            json!([{"instancePath": "", "keyword": "$values", "message": unread}]),
            "{name}"
        );
        // The text (the arguments' copy of it), not 100,000 values of 32 bytes and more in
        // vectors that double as they fill: read to the limit for nothing, they took the
        // peak to 10.6 MB, where it is 1.2 MB now (for the crate's schema too).
        assert!(peak < 2 * junk.len(), "{name}: a peak of {peak} bytes");
    }
    assert!(asked.texts.borrow().is_empty(), "{:?}", asked.texts);
    assert_eq!(asked.values.get(), 0);
    assert_eq!(ran.get(), 0);
    assert_eq!(texts.take(), []);

    // Not an object, past the limit: refused as not an object, read into no value either.
    let list = format!("[{}]", vec!["[]"; 400_000].join(","));
    for (id, name) in [(4, "value"), (5, "text"), (6, "crate")] {
        let (answer, peak) = call_measured(&h, id, name, &list);
        assert_eq!(answer["error"]["code"], json!(-32602), "{name}: {answer}");
        assert!(
            message(&answer).contains("must be an object"),
            "{name}: {answer}"
        );
        assert!(peak < 2 * list.len(), "{name}: a peak of {peak} bytes");
    }
    assert_eq!(ran.get(), 0);
    assert_eq!(texts.take(), []);

    // A message whose `_meta` holds them, a call's arguments aside: refused with its id.
    let meta = format!(
        r#"{{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{{"name":"crate","arguments":{{}},"_meta":{{"j":{list}}}}}}}"#
    );
    let ((), peak) = peak_while(|| {
        h.session.receive(&meta);
        h.run();
    });
    let refused = answer(&h, 10);
    assert_eq!(refused["error"]["code"], json!(-32600), "{refused}");
    assert!(
        message(&refused).starts_with("The number of JSON values in a message"),
        "{refused}"
    );
    // (Read to the limit for nothing: a peak of 10.6 MB.)
    assert!(peak < 2 * meta.len(), "a peak of {peak} bytes");

    // Within the limit, the schema reads them: the value handler's arguments as a value
    // (short text), the text handler's as text, and a refusal is its own.
    let few = arrays(3);
    assert_eq!(
        call(&h, 7, "value", &few)["result"]["content"][0]["text"],
        json!("3")
    );
    let long = format!(r#"{{"xs":[[]],"pad":"{}"}}"#, "x".repeat(20_000));
    let answer = call(&h, 8, "text", &long);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!(long),
        "{answer}"
    );
    assert_eq!(texts.take(), [Got::Text(long.clone())]);
    assert_eq!(*asked.texts.borrow(), [long.len()]);
    let many = arrays(5_000);
    let refused = call(&h, 9, "text", &many);
    assert_eq!(
        refused["error"]["data"]["violations"][0]["keyword"],
        json!("maxItems")
    );
    assert_eq!(ran.get(), 1);
    assert_eq!(texts.take(), []);
}

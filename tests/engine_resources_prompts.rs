//! Resources (static and templated), subscriptions, prompts and completion.
mod support;

use modelcontext_polyfill::collections::VecMap;
use modelcontext_polyfill::server::{
    HandlerError, PromptDef, RegistryError, RequestContext, ResourceDef, ServerConfig,
};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::*;

const ALL: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

type Seen = Rc<RefCell<Vec<(String, VecMap<String, String>)>>>;

/// A resource whose handler records what it was asked and answers with `text`.
fn recording(uri: &str, name: &str, text: &str, seen: &Seen) -> ResourceDef {
    let seen = seen.clone();
    let text = text.to_string();
    ResourceDef::new(
        uri,
        name,
        move |uri: String, vars: VecMap<String, String>, _ctx| {
            seen.borrow_mut().push((uri, vars));
            let t = text.clone();
            async move { Ok::<_, HandlerError>(json!(t)) }
        },
    )
}

fn fixed(uri: &str, value: Value) -> ResourceDef {
    ResourceDef::new(
        uri,
        "fixed",
        move |_u: String, _v: VecMap<String, String>, _c| {
            let v = value.clone();
            async move { Ok::<_, HandlerError>(v) }
        },
    )
}

fn client(version: &str) -> Harness {
    client_with(Harness::new(), version)
}

fn client_with(h: Harness, version: &str) -> Harness {
    if version != STATELESS {
        h.initialize(version);
    }
    h.take();
    h
}

fn call(h: &Harness, version: &str, method: &str, params: Value) -> Value {
    if version == STATELESS {
        h.stateless(method, params)
    } else {
        h.request(method, params)
    }
}

#[test]
fn resource_registration_rules() {
    let h = Harness::new();
    let seen = Seen::default();
    h.server
        .register_resource(recording("app://a", "a", "x", &seen))
        .unwrap();
    h.server
        .register_resource(recording("app://t/{id}", "t", "x", &seen))
        .unwrap();
    assert_eq!(
        h.server
            .register_resource(recording("app://a", "again", "x", &seen)),
        Err(RegistryError::Duplicate {
            kind: "resource",
            key: "app://a".into()
        })
    );
    assert_eq!(
        h.server
            .register_resource(recording("app://t/{id}", "again", "x", &seen)),
        Err(RegistryError::Duplicate {
            kind: "resource template",
            key: "app://t/{id}".into()
        })
    );
    for bad in ["", "no-scheme", "app://{unclosed", "app://a}", "app://x y"] {
        let e = h
            .server
            .register_resource(recording(bad, "n", "x", &seen))
            .unwrap_err();
        assert!(
            matches!(e, RegistryError::InvalidUri { .. }),
            "{bad:?}: {e:?}"
        );
    }
    let e = h
        .server
        .register_resource(recording("app://b", "", "x", &seen))
        .unwrap_err();
    assert!(matches!(e, RegistryError::InvalidField { .. }), "{e:?}");
    assert_eq!(h.server.resources().len(), 2);
    assert!(h.server.unregister_resource("app://t/{id}"));
    assert!(!h.server.unregister_resource("app://t/{id}"));
}

#[test]
fn resources_and_templates_are_listed_apart_and_shaped_per_version() {
    for v in ALL {
        let h = client(v);
        let seen = Seen::default();
        let mut r = recording("app://doc", "doc", "x", &seen)
            .mime_type("text/plain")
            .description("A doc");
        r.title = Some("The Doc".into());
        r.size = Some(12);
        r.icons = vec![json!({"src":"https://example.com/d.png"})];
        r.annotations = Some(json!({"audience":["user"],"priority":0.5}));
        h.server.register_resource(r).unwrap();
        let mut t = recording("app://users/{id}", "user", "x", &seen).mime_type("application/json");
        t.title = Some("A User".into());
        h.server.register_resource(t).unwrap();
        let list = call(&h, v, "resources/list", json!({}));
        let res = list["result"]["resources"].as_array().unwrap();
        assert_eq!(res.len(), 1, "{v}: templates are not resources");
        assert_eq!(res[0]["uri"], json!("app://doc"));
        assert_eq!(res[0]["name"], json!("doc"));
        assert_eq!(res[0]["mimeType"], json!("text/plain"));
        assert_eq!(res[0]["description"], json!("A doc"));
        assert_eq!(res[0]["size"], json!(12));
        assert_eq!(res[0]["annotations"]["priority"], json!(0.5));
        assert_eq!(res[0].get("title").is_some(), v >= "2025-06-18", "{v}");
        assert_eq!(res[0].get("icons").is_some(), v >= "2025-11-25", "{v}");
        let tl = call(&h, v, "resources/templates/list", json!({}));
        let ts = tl["result"]["resourceTemplates"].as_array().unwrap();
        assert_eq!(ts.len(), 1);
        assert_eq!(ts[0]["uriTemplate"], json!("app://users/{id}"));
        assert_eq!(ts[0].get("title").is_some(), v >= "2025-06-18", "{v}");
        assert!(ts[0].get("uri").is_none());
    }
}

#[test]
fn resource_lists_paginate() {
    let config = ServerConfig {
        page_size: 2,
        ..ServerConfig::default()
    };
    let h = client_with(Harness::with_config(config), "2025-06-18");
    let seen = Seen::default();
    for i in 0..5 {
        h.server
            .register_resource(recording(&format!("app://r/{i}"), "r", "x", &seen))
            .unwrap();
        h.server
            .register_resource(recording(&format!("app://t{i}/{{x}}"), "t", "x", &seen))
            .unwrap();
    }
    for (method, key, field) in [
        ("resources/list", "resources", "uri"),
        (
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
        ),
    ] {
        let mut all = Vec::new();
        let mut params = json!({});
        loop {
            let r = h.request(method, params);
            let items = r["result"][key].as_array().unwrap().clone();
            assert!(!items.is_empty() && items.len() <= 2, "{r}");
            all.extend(items.iter().map(|i| i[field].as_str().unwrap().to_string()));
            match r["result"].get("nextCursor") {
                Some(c) => params = json!({"cursor": c}),
                None => break,
            }
        }
        assert_eq!(all.len(), 5, "{method}: {all:?}");
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(all, sorted);
        assert_eq!(code(&h.request(method, json!({"cursor": "??"}))), -32602);
    }
}

#[test]
fn reading_static_and_templated_resources() {
    for v in ALL {
        let h = client(v);
        let seen = Seen::default();
        h.server
            .register_resource(
                recording("app://static", "s", "hello", &seen).mime_type("text/plain"),
            )
            .unwrap();
        h.server
            .register_resource(recording(
                "app://users/{id}/posts{?page,sort}",
                "posts",
                "posts",
                &seen,
            ))
            .unwrap();
        let r = call(&h, v, "resources/read", json!({"uri": "app://static"}));
        assert_eq!(
            r["result"]["contents"],
            json!([{"uri":"app://static","mimeType":"text/plain","text":"hello"}]),
            "{v}"
        );
        let r = call(
            &h,
            v,
            "resources/read",
            json!({"uri": "app://users/42/posts?page=3&sort=new%20est"}),
        );
        assert_eq!(r["result"]["contents"][0]["text"], json!("posts"));
        assert_eq!(
            r["result"]["contents"][0]["uri"],
            json!("app://users/42/posts?page=3&sort=new%20est")
        );
        let seen = seen.borrow();
        assert_eq!(seen[0], ("app://static".to_string(), VecMap::new()));
        let vars: VecMap<String, String> = [("id", "42"), ("page", "3"), ("sort", "new est")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(
            seen[1],
            (
                "app://users/42/posts?page=3&sort=new%20est".to_string(),
                vars
            ),
            "{v}"
        );
    }
}

/// A URI built to make template matching try every split of it (expressions side by side,
/// literals repeated, tens of thousands of characters) is answered as not found, at once, and
/// the next read is served: the search that finds a URI's template reads a bounded amount.
#[test]
fn a_uri_built_against_the_templates_is_not_found_and_the_next_read_is_served() {
    let h = client("2025-11-25");
    let seen = Seen::default();
    for template in [
        "app://{a}{b}{c}",
        "app://{+a}/{+b}/{+c}/{+d}/end",
        "app://files/{name}",
    ] {
        h.server
            .register_resource(recording(template, template, "t", &seen))
            .unwrap();
    }
    for uri in [
        format!("app://{}/", "a".repeat(3_000)),
        format!("app://{}x", "/".repeat(5_000)),
        format!("app://files/{}/", "a".repeat(200_000)),
    ] {
        // (Before the search was bounded, the third took over a minute and the first two
        // far longer.)
        let r = h.request("resources/read", json!({ "uri": uri }));
        assert_eq!(code(&r), -32002, "{}", &uri[..40]);
    }
    let r = h.request("resources/read", json!({"uri": "app://x1y"}));
    assert_eq!(r["result"]["contents"][0]["text"], json!("t"), "{r}");
    assert_eq!(seen.borrow().len(), 1);
}

#[test]
fn resource_contents_forms_and_failures() {
    let h = client("2025-11-25");
    let s = &h.server;
    s.register_resource(fixed(
        "app://blob",
        json!({"contents":[{"blob":"aGk=","mimeType":"application/octet-stream"}]}),
    ))
    .unwrap();
    s.register_resource(fixed(
        "app://two",
        json!([{"text":"a"},{"uri":"app://two#b","text":"b"}]),
    ))
    .unwrap();
    s.register_resource(fixed(
        "app://bad",
        json!({"contents":[{"text":"a","blob":"b"}]}),
    ))
    .unwrap();
    s.register_resource(fixed("app://num", json!(5))).unwrap();
    s.register_resource(ResourceDef::new(
        "app://err",
        "e",
        |_u: String, _v: VecMap<String, String>, _c| async {
            Err::<Value, _>(HandlerError::new("backend down"))
        },
    ))
    .unwrap();
    let r = h.request("resources/read", json!({"uri":"app://blob"}));
    assert_eq!(
        r["result"]["contents"],
        json!([{"blob":"aGk=","mimeType":"application/octet-stream","uri":"app://blob"}])
    );
    let r = h.request("resources/read", json!({"uri":"app://two"}));
    assert_eq!(r["result"]["contents"][1]["uri"], json!("app://two#b"));
    assert_eq!(r["result"]["contents"][0]["uri"], json!("app://two"));
    for uri in ["app://bad", "app://num"] {
        let r = h.request("resources/read", json!({"uri": uri}));
        assert_eq!(code(&r), -32603, "{uri}");
        assert!(message(&r).contains(uri), "{r}");
    }
    let r = h.request("resources/read", json!({"uri":"app://err"}));
    assert_eq!(code(&r), -32603);
    assert!(
        message(&r).contains("backend down") && message(&r).contains("app://err"),
        "{r}"
    );
    for v in HANDSHAKE_VERSIONS {
        let h = client(v);
        let r = h.request("resources/read", json!({"uri":"app://nothing/here"}));
        assert_eq!(code(&r), -32002, "{v}");
        assert_eq!(r["error"]["data"], json!({"uri":"app://nothing/here"}));
        assert!(message(&r).contains("app://nothing/here"));
    }
}

#[test]
fn resource_updates_go_only_to_subscribers() {
    for v in HANDSHAKE_VERSIONS {
        let a = Harness::new();
        let b = a.another_session();
        let seen = Seen::default();
        a.server
            .register_resource(recording("app://watched", "w", "x", &seen))
            .unwrap();
        a.initialize(v);
        b.initialize(v);
        a.take();
        b.take();
        assert_eq!(
            a.request("resources/subscribe", json!({"uri":"app://watched"}))["result"],
            json!({})
        );
        a.server.resource_updated("app://watched");
        let got = a.take();
        assert_eq!(
            got,
            vec![
                json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"app://watched"}})
            ],
            "{v}"
        );
        assert_eq!(b.take(), Vec::<Value>::new(), "{v}: not subscribed");
        a.server.resource_updated("app://other");
        assert_eq!(a.take(), Vec::<Value>::new());
        assert_eq!(
            a.request("resources/unsubscribe", json!({"uri":"app://watched"}))["result"],
            json!({})
        );
        a.server.resource_updated("app://watched");
        assert_eq!(a.take(), Vec::<Value>::new(), "{v}: unsubscribed");
        assert_eq!(code(&a.request("resources/subscribe", json!({}))), -32602);
    }
}

/// A session holds at most `MAX_SUBSCRIPTIONS` resource subscriptions: past it another URI is
/// refused naming the limit, the subscriptions it has keep their updates, subscribing again to
/// one of them is no new one, and once one is dropped another is taken.
#[test]
fn subscriptions_past_the_limit_are_refused_and_the_session_goes_on() {
    use modelcontext_polyfill::server::limits::MAX_SUBSCRIPTIONS;
    let h = client("2025-11-25");
    for i in 0..MAX_SUBSCRIPTIONS {
        let r = h.request(
            "resources/subscribe",
            json!({ "uri": format!("app://r/{i}") }),
        );
        assert_eq!(r["result"], json!({}), "{i}: {r}");
    }
    let r = h.request("resources/subscribe", json!({"uri": "app://one/more"}));
    assert_eq!(code(&r), -32600, "{r}");
    assert!(message(&r).contains(&MAX_SUBSCRIPTIONS.to_string()), "{r}");
    let again = h.request("resources/subscribe", json!({"uri": "app://r/7"}));
    assert_eq!(again["result"], json!({}), "already subscribed: {again}");
    h.server.resource_updated("app://r/7");
    h.server.resource_updated("app://one/more");
    let updates: Vec<Value> = h
        .take()
        .into_iter()
        .map(|m| m["params"]["uri"].clone())
        .collect();
    assert_eq!(updates, vec![json!("app://r/7")]);
    let r = h.request("resources/unsubscribe", json!({"uri": "app://r/7"}));
    assert_eq!(r["result"], json!({}));
    let r = h.request("resources/subscribe", json!({"uri": "app://one/more"}));
    assert_eq!(r["result"], json!({}), "{r}");
}

/// URIs a few megabytes long fill a session's subscription text (`MAX_SUBSCRIPTION_BYTES`)
/// before its count: past it another is refused, and one dropped makes room.
#[test]
fn subscriptions_past_the_byte_limit_are_refused_and_the_session_goes_on() {
    use modelcontext_polyfill::server::limits::MAX_SUBSCRIPTION_BYTES;
    let h = client("2025-11-25");
    let long = |c: char| format!("app://{}", c.to_string().repeat(3 << 20));
    let r = h.request("resources/subscribe", json!({ "uri": long('a') }));
    assert_eq!(r["result"], json!({}), "{}", &r.to_string()[..200]);
    let r = h.request("resources/subscribe", json!({ "uri": long('b') }));
    assert_eq!(code(&r), -32600);
    assert_eq!(r["error"]["data"]["limit"], json!(MAX_SUBSCRIPTION_BYTES));
    let r = h.request("resources/subscribe", json!({ "uri": "app://short" }));
    assert_eq!(r["result"], json!({}), "{r}");
    let r = h.request("resources/unsubscribe", json!({ "uri": long('a') }));
    assert_eq!(r["result"], json!({}));
    let r = h.request("resources/subscribe", json!({ "uri": long('b') }));
    assert_eq!(r["result"], json!({}), "{}", &r.to_string()[..200]);
}

/// A prompt's arguments as an agent writes them, 280,000 in descending order (read into the
/// handler's map one by one, each moved all the others: minutes): the prompt is rendered,
/// and the next request served.
#[test]
fn a_prompt_with_280000_arguments_in_descending_order_is_rendered() {
    // (More values than a message may hold by default: `Limits::max_values`.)
    let limits = modelcontext_polyfill::server::Limits {
        max_values: 1_000_000,
        ..Default::default()
    };
    let h = client_with(
        Harness::with_config(ServerConfig {
            limits,
            ..Default::default()
        }),
        "2025-11-25",
    );
    h.server.register_prompt(greeting()).unwrap();
    let mut args = serde_json::Map::new();
    for i in (0..280_000).rev() {
        args.insert(i.to_string(), json!("v"));
    }
    args.insert("name".into(), json!("Ada"));
    // They are not the prompt's: the refusal lists the first of them, in order, and counts
    // the rest.
    let r = h.request(
        "prompts/get",
        json!({ "name": "greet", "arguments": args.clone() }),
    );
    assert_eq!(code(&r), -32602);
    let mut names: Vec<&String> = args.keys().filter(|k| *k != "name").collect();
    names.sort();
    let first: Vec<&str> = names[..32].iter().map(|k| k.as_str()).collect();
    assert_eq!(
        message(&r),
        format!(
            "Prompt greet has no argument(s): {}, and {} more",
            first.join(", "),
            280_000 - 32
        )
    );
    // Its own arguments only: rendered.
    args.retain(|k, _| k == "name");
    let r = h.request("prompts/get", json!({ "name": "greet", "arguments": args }));
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        json!("Hello Ada (plain)"),
        "{}",
        &r.to_string()[..r.to_string().len().min(300)]
    );
    assert!(h.request("ping", json!({}))["result"].is_object());
}

fn greeting() -> PromptDef {
    let mut p = PromptDef::new(
        "greet",
        |args: VecMap<String, String>, _ctx: RequestContext| async move {
            let name = args.get("name").cloned().unwrap_or_default();
            let tone = args.get("tone").cloned().unwrap_or_else(|| "plain".into());
            Ok::<_, HandlerError>(json!(format!("Hello {name} ({tone})")))
        },
    )
    .description("Greets someone")
    .argument("name", "Who", true)
    .argument("tone", "How", false);
    p.title = Some("Greeting".into());
    p.arguments[0].title = Some("Name".into());
    p.icons = vec![json!({"src":"https://example.com/g.png"})];
    p
}

#[test]
fn prompts_are_listed_per_version_and_paginate() {
    for v in ALL {
        let config = ServerConfig {
            page_size: 2,
            ..ServerConfig::default()
        };
        let h = client_with(Harness::with_config(config), v);
        h.server.register_prompt(greeting()).unwrap();
        for n in ["a", "b", "c"] {
            h.server
                .register_prompt(PromptDef::new(
                    n,
                    |_a: VecMap<String, String>, _c: RequestContext| async {
                        Ok::<_, HandlerError>(json!("x"))
                    },
                ))
                .unwrap();
        }
        let p1 = call(&h, v, "prompts/list", json!({}));
        let names: Vec<&str> = p1["result"]["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"]);
        let p2 = call(
            &h,
            v,
            "prompts/list",
            json!({"cursor": p1["result"]["nextCursor"]}),
        );
        let g = &p2["result"]["prompts"][1];
        assert_eq!(g["name"], json!("greet"));
        assert!(p2["result"].get("nextCursor").is_none());
        assert_eq!(g["description"], json!("Greets someone"));
        assert_eq!(g["arguments"][0]["name"], json!("name"));
        assert_eq!(g["arguments"][0]["required"], json!(true));
        assert_eq!(g["arguments"][1]["required"], json!(false));
        assert_eq!(g.get("title").is_some(), v >= "2025-06-18", "{v}");
        assert_eq!(
            g["arguments"][0].get("title").is_some(),
            v >= "2025-06-18",
            "{v}"
        );
        assert_eq!(g.get("icons").is_some(), v >= "2025-11-25", "{v}");
        assert_eq!(
            code(&call(&h, v, "prompts/list", json!({"cursor": "x"}))),
            -32602
        );
    }
}

#[test]
fn prompts_get_checks_arguments() {
    for v in ALL {
        let h = client(v);
        h.server.register_prompt(greeting()).unwrap();
        h.server
            .register_prompt(PromptDef::new(
                "broken",
                |_a: VecMap<String, String>, _c: RequestContext| async {
                    Err::<Value, _>(HandlerError::new("template missing"))
                },
            ))
            .unwrap();
        h.server
            .register_prompt(PromptDef::new(
                "weird",
                |_a: VecMap<String, String>, _c: RequestContext| async {
                    Ok::<_, HandlerError>(json!([{"role":"system","content":"x"}]))
                },
            ))
            .unwrap();
        let r = call(
            &h,
            v,
            "prompts/get",
            json!({"name":"greet","arguments":{"name":"Ada","tone":"warm"}}),
        );
        assert_eq!(
            r["result"]["messages"],
            json!([{"role":"user","content":{"type":"text","text":"Hello Ada (warm)"}}]),
            "{v}"
        );
        assert_eq!(r["result"]["description"], json!("Greets someone"));
        let cases = [
            (json!({"name":"greet"}), "name"),
            (json!({"name":"greet","arguments":{"tone":"x"}}), "name"),
            (
                json!({"name":"greet","arguments":{"name":"A","mood":"x"}}),
                "mood",
            ),
            (json!({"name":"greet","arguments":{"name":5}}), "name"),
            (json!({"name":"greet","arguments":["A"]}), "arguments"),
            (json!({"name":"nope"}), "nope"),
            (json!({}), "name"),
        ];
        for (params, word) in cases {
            let r = call(&h, v, "prompts/get", params.clone());
            assert_eq!(code(&r), -32602, "{v} {params}: {r}");
            assert!(message(&r).contains(word), "{params}: {r}");
        }
        let r = call(&h, v, "prompts/get", json!({"name":"nope"}));
        assert_eq!(r["error"]["data"], json!({"name":"nope"}));
        let r = call(&h, v, "prompts/get", json!({"name":"broken"}));
        assert_eq!(code(&r), -32603);
        assert!(message(&r).contains("template missing"), "{r}");
        let r = call(&h, v, "prompts/get", json!({"name":"weird"}));
        assert_eq!(code(&r), -32603);
        assert!(message(&r).contains("role"), "{r}");
    }
}

#[test]
fn prompt_registration_rules() {
    let h = Harness::new();
    h.server.register_prompt(greeting()).unwrap();
    let e = h.server.register_prompt(greeting()).unwrap_err();
    assert_eq!(
        e,
        RegistryError::Duplicate {
            kind: "prompt",
            key: "greet".into()
        }
    );
    let p = |n: &str| {
        PromptDef::new(n, |_a: VecMap<String, String>, _c: RequestContext| async {
            Ok::<_, HandlerError>(json!("x"))
        })
    };
    assert!(matches!(
        h.server.register_prompt(p("")),
        Err(RegistryError::InvalidField { .. })
    ));
    let dup_args = p("d").argument("a", "", true).argument("a", "", false);
    assert!(matches!(
        h.server.register_prompt(dup_args),
        Err(RegistryError::InvalidField { .. })
    ));
    assert_eq!(h.server.prompts().len(), 1);
}

type Asked = Rc<RefCell<Vec<(String, String, VecMap<String, String>)>>>;

fn completing_prompt(asked: &Asked) -> PromptDef {
    let asked = asked.clone();
    greeting().completer(
        "name",
        move |arg: String, value: String, ctx: VecMap<String, String>| {
            asked.borrow_mut().push((arg, value.clone(), ctx));
            async move {
                let all = ["Ada", "Alan", "Grace"];
                Ok::<_, HandlerError>(json!(all
                    .iter()
                    .filter(|n| n.starts_with(&value))
                    .collect::<Vec<_>>()))
            }
        },
    )
}

#[test]
fn completion_for_prompt_arguments_and_template_variables() {
    for v in ALL {
        let h = client(v);
        let asked = Asked::default();
        h.server.register_prompt(completing_prompt(&asked)).unwrap();
        let seen = Seen::default();
        h.server
            .register_resource(recording("app://users/{id}", "u", "x", &seen).completer(
                "id",
                |_a: String, value: String, _c: VecMap<String, String>| async move {
                    Ok::<_, HandlerError>(json!({"values": [format!("{value}1"), format!("{value}2")], "total": 10, "hasMore": true}))
                },
            ))
            .unwrap();
        let r = call(
            &h,
            v,
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"},
                   "context":{"arguments":{"tone":"warm"}}}),
        );
        assert_eq!(
            r["result"]["completion"],
            json!({"values":["Ada","Alan"],"total":2,"hasMore":false}),
            "{v}"
        );
        let ctx: VecMap<String, String> = [("tone".to_string(), "warm".to_string())]
            .into_iter()
            .collect();
        assert_eq!(
            asked.borrow()[0],
            ("name".to_string(), "A".to_string(), ctx)
        );
        let r = call(
            &h,
            v,
            "completion/complete",
            json!({"ref":{"type":"ref/resource","uri":"app://users/{id}"},"argument":{"name":"id","value":"u"}}),
        );
        assert_eq!(
            r["result"]["completion"],
            json!({"values":["u1","u2"],"total":10,"hasMore":true})
        );
        // An argument without a completer completes to nothing.
        let r = call(
            &h,
            v,
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"tone","value":""}}),
        );
        assert_eq!(
            r["result"]["completion"],
            json!({"values":[],"hasMore":false})
        );
        let bad = [
            json!({"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"name","value":""}}),
            json!({"ref":{"type":"ref/resource","uri":"app://nope/{x}"},"argument":{"name":"x","value":""}}),
            json!({"ref":{"type":"ref/resource","uri":"app://users/{id}"},"argument":{"name":"zz","value":""}}),
            json!({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"zz","value":""}}),
            json!({"ref":{"type":"ref/tool","name":"greet"},"argument":{"name":"name","value":""}}),
            json!({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name"}}),
            json!({"ref":{"type":"ref/prompt","name":"greet"}}),
            json!({"argument":{"name":"name","value":""}}),
        ];
        for params in bad {
            let r = call(&h, v, "completion/complete", params.clone());
            assert_eq!(code(&r), -32602, "{v} {params}: {r}");
        }
    }
}

#[test]
fn completion_is_capped_at_100_values() {
    for v in ["2024-11-05", "2025-11-25", STATELESS] {
        let h = client(v);
        let p = greeting().completer(
            "name",
            |_a: String, _v: String, _c: VecMap<String, String>| async {
                Ok::<_, HandlerError>(json!((0..150).map(|i| format!("n{i}")).collect::<Vec<_>>()))
            },
        );
        h.server.register_prompt(p).unwrap();
        let r = call(
            &h,
            v,
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":""}}),
        );
        let c = &r["result"]["completion"];
        assert_eq!(c["values"].as_array().unwrap().len(), 100, "{v}");
        assert_eq!(c["values"][99], json!("n99"));
        assert_eq!(c["total"], json!(150));
        assert_eq!(c["hasMore"], json!(true));
    }
}

#[test]
fn failing_completers_are_internal_errors() {
    let h = client("2025-06-18");
    let p = greeting().completer(
        "name",
        |_a: String, _v: String, _c: VecMap<String, String>| async {
            Ok::<_, HandlerError>(json!([1, 2]))
        },
    );
    h.server.register_prompt(p).unwrap();
    let r = h.request(
        "completion/complete",
        json!({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":""}}),
    );
    assert_eq!(code(&r), -32603);
    assert!(message(&r).contains("strings"), "{r}");
}

#[test]
fn prompt_messages_are_shaped_for_each_version() {
    for v in ALL {
        let h = client(v);
        h.server
            .register_prompt(PromptDef::new("media", |_a: VecMap<String, String>, _c: RequestContext| async {
                Ok::<_, HandlerError>(json!({"messages":[
                    {"role":"user","content":{"type":"audio","data":"aGk=","mimeType":"audio/wav"}},
                    {"role":"assistant","content":{"type":"resource_link","uri":"app://doc","name":"doc"}},
                    {"role":"user","content":{"type":"image","data":"aGk=","mimeType":"image/png"}},
                ]}))
            }))
            .unwrap();
        let r = call(&h, v, "prompts/get", json!({"name":"media"}));
        let types: Vec<&str> = r["result"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"]["type"].as_str().unwrap())
            .collect();
        let audio = if v >= "2025-03-26" { "audio" } else { "text" };
        let link = if v >= "2025-06-18" {
            "resource_link"
        } else {
            "text"
        };
        assert_eq!(types, [audio, link, "image"], "{v}");
    }
}

//! The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`) in the engine: skills
//! registered by the host are listed (`skills/list`, `skills/get`), their files served as
//! `skill://` resources, their directories read (`resources/directory/read`), and what the
//! SEP forbids is refused at registration. Every message is schema-checked.
mod support;

use modelcontext_polyfill::server::{
    RegistryError, ServerConfig, SkillContent, SkillDef, SkillFile,
};
use serde_json::{json, Map, Value};
use support::{code, message, Harness};

const SKILLS: &str = "io.modelcontextprotocol/skills";

fn p(mut params: Value) -> Value {
    params["_meta"] = Harness::stateless_meta(json!({}));
    params
}

fn req(h: &Harness, method: &str, params: Value) -> Value {
    h.request(method, p(params))
}

fn text(path: &str, t: &str) -> SkillFile {
    SkillFile {
        path: path.into(),
        mime_type: None,
        content: SkillContent::Text(t.into()),
    }
}

fn pdf_skill() -> SkillDef {
    let mut frontmatter = Map::new();
    frontmatter.insert("license".into(), json!("MIT"));
    frontmatter.insert("metadata".into(), json!({"author": "page"}));
    SkillDef {
        name: "pdf-processing".into(),
        description: "Extract, fill and assemble PDF documents".into(),
        prefix: vec![],
        frontmatter,
        instructions: "# PDF processing\nRead references/forms.md first.".into(),
        files: vec![
            text("references/forms.md", "# Forms\nFill every field."),
            text("scripts/fill.py", "print('fill')"),
            SkillFile {
                path: "assets/logo.bin".into(),
                mime_type: None,
                content: SkillContent::Binary(vec![0, 255, 16, 32]),
            },
        ],
    }
}

fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    let h: String = sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{h}")
}

/// The frontmatter of a `SKILL.md` this engine wrote: `key: <JSON value>` lines.
fn frontmatter_of(md: &str) -> Map<String, Value> {
    let body = md.strip_prefix("---\n").expect("starts with ---");
    let (fm, _) = body.split_once("\n---\n").expect("closing ---");
    fm.lines()
        .map(|l| {
            let (k, v) = l.split_once(": ").unwrap();
            let k = serde_json::from_str::<String>(k).unwrap_or_else(|_| k.to_string());
            (k, serde_json::from_str(v).unwrap())
        })
        .collect()
}

#[test]
fn the_extension_is_declared_with_directory_read_alongside_resources() {
    let h = Harness::new();
    let d = req(&h, "server/discover", json!({}));
    let caps = &d["result"]["capabilities"];
    assert_eq!(caps["extensions"][SKILLS], json!({"directoryRead": true}));
    assert!(caps["resources"].is_object());
}

#[test]
fn skills_are_listed_with_their_frontmatter_and_every_file_digested() {
    let h = Harness::new();
    let uri = h.server.register_skill(pdf_skill()).unwrap();
    assert_eq!(uri, "skill://pdf-processing/SKILL.md");
    let r = req(&h, "skills/list", json!({}));
    let res = &r["result"];
    assert_eq!(res["resultType"], json!("complete"));
    assert!(res.get("ttlMs").is_some() && res.get("cacheScope").is_some());
    let entry = &res["skills"][0];
    assert_eq!(entry["uri"], json!(uri));
    assert_eq!(
        entry["frontmatter"],
        json!({"name":"pdf-processing","description":"Extract, fill and assemble PDF documents",
               "license":"MIT","metadata":{"author":"page"}})
    );
    let listed: Vec<&str> = entry["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        vec![
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/assets/logo.bin",
            "skill://pdf-processing/references/forms.md",
            "skill://pdf-processing/scripts/fill.py",
        ]
    );
    // SKILL.md: readable, and its frontmatter is the entry's, and digest/size cover its bytes.
    let read = req(&h, "resources/read", json!({"uri": uri}));
    let c = &read["result"]["contents"][0];
    assert_eq!(c["mimeType"], json!("text/markdown"));
    let md = c["text"].as_str().unwrap();
    assert_eq!(
        Value::Object(frontmatter_of(md)),
        entry["frontmatter"].clone()
    );
    assert!(md.ends_with("---\n# PDF processing\nRead references/forms.md first.\n"));
    assert_eq!(
        entry["resources"][0]["digest"],
        json!(digest(md.as_bytes()))
    );
    assert_eq!(entry["resources"][0]["size"], json!(md.len()));
    // A binary file: served as a base64 blob, digested over its raw bytes.
    let logo = req(
        &h,
        "resources/read",
        json!({"uri":"skill://pdf-processing/assets/logo.bin"}),
    );
    assert_eq!(logo["result"]["contents"][0]["blob"], json!("AP8QIA=="));
    assert_eq!(
        logo["result"]["contents"][0]["mimeType"],
        json!("application/octet-stream")
    );
    assert_eq!(
        entry["resources"][1]["digest"],
        json!(digest(&[0, 255, 16, 32]))
    );
    assert_eq!(entry["resources"][1]["size"], json!(4));
    // Listed as resources: SKILL.md named and described from its frontmatter.
    let list = req(&h, "resources/list", json!({}));
    let md_res = list["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == json!(uri))
        .unwrap()
        .clone();
    assert_eq!(md_res["name"], json!("pdf-processing"));
    assert_eq!(
        md_res["description"],
        json!("Extract, fill and assemble PDF documents")
    );
    assert_eq!(md_res["mimeType"], json!("text/markdown"));
}

#[test]
fn skills_get_answers_one_entry_or_invalid_params() {
    let h = Harness::new();
    let uri = h.server.register_skill(pdf_skill()).unwrap();
    let r = req(&h, "skills/get", json!({"uri": uri}));
    assert_eq!(r["result"]["skill"]["uri"], json!(uri));
    assert!(r["result"].get("nextCursor").is_none());
    assert!(r["result"].get("ttlMs").is_some() && r["result"].get("cacheScope").is_some());
    let r = req(
        &h,
        "skills/get",
        json!({"uri":"skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md"}),
    );
    assert_eq!(code(&r), -32602);
    assert!(message(&r).starts_with("Unknown skill"));
    let r = req(&h, "skills/get", json!({}));
    assert_eq!(code(&r), -32602);
    assert!(message(&r).contains("missing required parameter \"uri\""));
    // Still serving.
    assert_eq!(
        req(&h, "skills/list", json!({}))["result"]["skills"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn directories_list_their_direct_children_and_files_are_not_directories() {
    let h = Harness::new();
    h.server.register_skill(pdf_skill()).unwrap();
    let r = req(
        &h,
        "resources/directory/read",
        json!({"uri":"skill://pdf-processing"}),
    );
    let kids: Vec<(String, String)> = r["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["uri"].as_str().unwrap().to_string(),
                c["mimeType"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        kids,
        vec![
            (
                "skill://pdf-processing/SKILL.md".into(),
                "text/markdown".into()
            ),
            (
                "skill://pdf-processing/assets".into(),
                "inode/directory".into()
            ),
            (
                "skill://pdf-processing/references".into(),
                "inode/directory".into()
            ),
            (
                "skill://pdf-processing/scripts".into(),
                "inode/directory".into()
            ),
        ]
    );
    let sub = req(
        &h,
        "resources/directory/read",
        json!({"uri":"skill://pdf-processing/references"}),
    );
    assert_eq!(
        sub["result"]["resources"][0]["uri"],
        json!("skill://pdf-processing/references/forms.md")
    );
    for not_dir in [
        "skill://pdf-processing/SKILL.md",
        "skill://nothing-here",
        "file:///etc",
    ] {
        let e = req(&h, "resources/directory/read", json!({"uri": not_dir}));
        assert_eq!(code(&e), -32602, "{not_dir}");
    }
    let e = req(
        &h,
        "resources/directory/read",
        json!({"uri":"skill://pdf-processing/SKILL.md"}),
    );
    assert!(message(&e).contains("is a file, not a directory"));
}

#[test]
fn lists_paginate_without_splitting_an_entry() {
    let h = Harness::with_config(ServerConfig {
        page_size: 1,
        ..ServerConfig::default()
    });
    h.server.register_skill(pdf_skill()).unwrap();
    let mut second = pdf_skill();
    second.name = "csv-tools".into();
    second.prefix = vec!["acme".into()];
    h.server.register_skill(second).unwrap();
    let p1 = req(&h, "skills/list", json!({}));
    let cursor = p1["result"]["nextCursor"].as_str().unwrap().to_string();
    let p2 = req(&h, "skills/list", json!({"cursor": cursor}));
    assert!(p2["result"].get("nextCursor").is_none());
    let uris = [
        p1["result"]["skills"][0]["uri"].clone(),
        p2["result"]["skills"][0]["uri"].clone(),
    ];
    assert_eq!(
        uris,
        [
            json!("skill://acme/csv-tools/SKILL.md"),
            json!("skill://pdf-processing/SKILL.md")
        ]
    );
    // The prefix directory lists the skill directory under it.
    let d = req(
        &h,
        "resources/directory/read",
        json!({"uri":"skill://acme"}),
    );
    assert_eq!(
        d["result"]["resources"][0]["uri"],
        json!("skill://acme/csv-tools")
    );
    assert_eq!(
        d["result"]["resources"][0]["mimeType"],
        json!("inode/directory")
    );
    // Directory reads paginate too.
    let d1 = req(
        &h,
        "resources/directory/read",
        json!({"uri":"skill://pdf-processing"}),
    );
    let c = d1["result"]["nextCursor"].as_str().unwrap().to_string();
    let d2 = req(
        &h,
        "resources/directory/read",
        json!({"uri":"skill://pdf-processing","cursor":c}),
    );
    assert_eq!(
        d2["result"]["resources"][0]["uri"],
        json!("skill://pdf-processing/assets")
    );
    let bad = req(&h, "skills/list", json!({"cursor":"zz"}));
    assert_eq!(code(&bad), -32602);
}

#[test]
fn registration_refuses_what_the_sep_forbids_and_keeps_serving() {
    let h = Harness::new();
    let refused = |def: SkillDef| -> String {
        match h.server.register_skill(def) {
            Err(e) => e.to_string(),
            Ok(u) => panic!("registered {u}"),
        }
    };
    let mut d = pdf_skill();
    d.name = "PDF".into();
    assert!(refused(d).contains("naming rules"));
    let mut d = pdf_skill();
    d.files.push(text("../escape.md", "x"));
    assert!(refused(d).contains("segment \"..\" is not allowed"));
    let mut d = pdf_skill();
    d.files.push(text("nested/SKILL.md", "x"));
    assert!(refused(d).contains("skills do not nest"));
    let mut d = pdf_skill();
    d.files.push(text("references/forms.md", "again"));
    assert!(refused(d).contains("given twice"));
    let mut d = pdf_skill();
    d.files
        .push(text("references", "a file where a directory is"));
    assert!(refused(d).contains("both a file and a directory"));
    let mut d = pdf_skill();
    d.frontmatter
        .insert("metadata".into(), json!({"io.modelcontextprotocol/x": 1}));
    assert!(refused(d).contains("reserved for MCP extensions"));
    let mut d = pdf_skill();
    d.description = " ".into();
    assert!(refused(d).contains("non-empty description"));
    let mut d = pdf_skill();
    d.files = (0..512).map(|i| text(&format!("f{i}.txt"), "x")).collect();
    assert!(refused(d).contains("the limit is 512"));
    // Nothing of the refused skills was registered; a good one still is, once.
    assert!(h.server.skills().is_empty());
    assert!(h.server.resources().is_empty());
    h.server.register_skill(pdf_skill()).unwrap();
    assert!(matches!(
        h.server.register_skill(pdf_skill()),
        Err(RegistryError::Duplicate { .. })
    ));
    assert_eq!(h.server.resources().len(), 4);
}

#[test]
fn unregistering_a_skill_removes_its_resources() {
    let h = Harness::new();
    let uri = h.server.register_skill(pdf_skill()).unwrap();
    assert!(h.server.unregister_skill(&uri));
    assert!(!h.server.unregister_skill(&uri));
    assert!(h.server.resources().is_empty());
    assert_eq!(
        req(&h, "skills/list", json!({}))["result"]["skills"],
        json!([])
    );
    let r = req(&h, "resources/read", json!({"uri": uri}));
    assert_eq!(code(&r), -32602);
}

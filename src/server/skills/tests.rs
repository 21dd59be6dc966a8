use super::*;

#[test]
fn base64_round_trips_and_matches_the_standard() {
    assert_eq!(base64_encode(b"Man"), "TWFu");
    assert_eq!(base64_encode(b"Ma"), "TWE=");
    assert_eq!(base64_encode(b"M"), "TQ==");
    assert_eq!(base64_encode(&[0xfb, 0xff]), "+/8=");
    for s in [&b""[..], b"a", b"ab", b"abc", b"\x00\xff\x10"] {
        assert_eq!(base64_decode(&base64_encode(s)).unwrap(), s);
    }
    assert!(base64_decode("a*b").is_none());
}

#[test]
fn frontmatter_is_yaml_whose_values_read_back_as_written() {
    let mut fm = Map::new();
    fm.insert("name".into(), json!("pdf"));
    fm.insert("description".into(), json!("Fill: \"forms\"\nand more"));
    fm.insert("allowed-tools".into(), json!(["Read", "Bash(python:*)"]));
    fm.insert("metadata".into(), json!({"version": "1.0"}));
    fm.insert("x y".into(), json!(true));
    let md = skill_md(&fm, "# PDF\nSteps.");
    assert_eq!(
        md,
        "---\nname: \"pdf\"\ndescription: \"Fill: \\\"forms\\\"\\nand more\"\n\
         allowed-tools: [\"Read\",\"Bash(python:*)\"]\nmetadata: {\"version\":\"1.0\"}\n\
         \"x y\": true\n---\n# PDF\nSteps.\n"
    );
}

#[test]
fn names_follow_the_agent_skills_rules() {
    for ok in ["a", "pdf-processing", "x1", &"a".repeat(64)] {
        assert!(check_name(ok).is_ok(), "{ok}");
    }
    for bad in ["", "-a", "a-", "a--b", "A", "a_b", &"a".repeat(65)] {
        assert!(check_name(bad).is_err(), "{bad}");
    }
}

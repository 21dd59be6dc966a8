use super::*;

#[test]
fn timestamps_are_iso_8601_utc() {
    assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
    assert_eq!(iso8601(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
    assert_eq!(iso8601(1_795_466_096_789.0), "2026-11-23T20:34:56.789Z");
}

#[test]
fn task_support_words_round_trip() {
    for s in [
        TaskSupport::Forbidden,
        TaskSupport::Optional,
        TaskSupport::Required,
    ] {
        assert_eq!(TaskSupport::parse(s.as_str()), Some(s));
    }
    assert_eq!(TaskSupport::parse("always"), None);
}

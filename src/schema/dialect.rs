//! The JSON Schema dialects this validator understands, and how a schema names one.

use jsonschema::Draft;

/// A JSON Schema dialect (specification version).
///
/// A schema picks its dialect with `$schema`; a schema without `$schema` is read in the
/// compiler's default dialect, which is [`Dialect::Draft202012`] unless set otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Draft 4 (`http://json-schema.org/draft-04/schema#`).
    Draft4,
    /// Draft 6 (`http://json-schema.org/draft-06/schema#`).
    Draft6,
    /// Draft 7 (`http://json-schema.org/draft-07/schema#`).
    Draft7,
    /// Draft 2019-09 (`https://json-schema.org/draft/2019-09/schema`).
    Draft201909,
    /// Draft 2020-12 (`https://json-schema.org/draft/2020-12/schema`), the default.
    #[default]
    Draft202012,
}

impl Dialect {
    /// Every dialect, oldest first.
    pub const ALL: [Dialect; 5] = [
        Dialect::Draft4,
        Dialect::Draft6,
        Dialect::Draft7,
        Dialect::Draft201909,
        Dialect::Draft202012,
    ];

    /// The dialect a `$schema` URI names, or `None` for a URI that names none of them.
    ///
    /// `http` and `https`, with or without the empty fragment `#`, are accepted alike.
    #[must_use]
    pub fn from_schema_uri(uri: &str) -> Option<Dialect> {
        Self::from_draft(Draft::from_schema_uri(uri))
    }

    /// The canonical `$schema` URI of this dialect's meta-schema.
    #[must_use]
    pub fn schema_uri(self) -> &'static str {
        match self {
            Dialect::Draft4 => "http://json-schema.org/draft-04/schema#",
            Dialect::Draft6 => "http://json-schema.org/draft-06/schema#",
            Dialect::Draft7 => "http://json-schema.org/draft-07/schema#",
            Dialect::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            Dialect::Draft202012 => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    /// The short name the JSON-Schema-Test-Suite gives the dialect's folder
    /// (`draft4` … `draft2020-12`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Draft4 => "draft4",
            Dialect::Draft6 => "draft6",
            Dialect::Draft7 => "draft7",
            Dialect::Draft201909 => "draft2019-09",
            Dialect::Draft202012 => "draft2020-12",
        }
    }

    /// The dialect with the short name `name` (see [`Dialect::name`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Dialect> {
        Self::ALL.into_iter().find(|dialect| dialect.name() == name)
    }

    /// The `jsonschema` crate's name for this dialect.
    pub(crate) fn draft(self) -> Draft {
        match self {
            Dialect::Draft4 => Draft::Draft4,
            Dialect::Draft6 => Draft::Draft6,
            Dialect::Draft7 => Draft::Draft7,
            Dialect::Draft201909 => Draft::Draft201909,
            Dialect::Draft202012 => Draft::Draft202012,
        }
    }

    pub(crate) fn from_draft(draft: Draft) -> Option<Dialect> {
        match draft {
            Draft::Draft4 => Some(Dialect::Draft4),
            Draft::Draft6 => Some(Dialect::Draft6),
            Draft::Draft7 => Some(Dialect::Draft7),
            Draft::Draft201909 => Some(Dialect::Draft201909),
            Draft::Draft202012 => Some(Dialect::Draft202012),
            _ => None,
        }
    }

    /// Whether this dialect asserts `format` unless told otherwise. Drafts 4 to 7 leave it to
    /// the implementation; 2019-09 and 2020-12 make `format` an annotation.
    pub(crate) fn formats_are_optional_assertions(self) -> bool {
        matches!(self, Dialect::Draft4 | Dialect::Draft6 | Dialect::Draft7)
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

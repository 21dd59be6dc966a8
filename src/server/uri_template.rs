//! RFC 6570 URI templates: parsing, and matching a concrete URI back to variables.
//!
//! Matching supports every operator of levels 1–4 (`{x}`, `{+x}`, `{#x}`, `{.x}`, `{/x}`,
//! `{;x}`, `{?x}`, `{&x}`, lists `{x,y}`, prefixes `{x:3}` and explodes `{x*}`). Values
//! are percent-decoded. An exploded variable's parts are joined with the operator's
//! separator.

use crate::collections::VecMap;

#[derive(Clone, Debug, PartialEq)]
struct VarSpec {
    name: String,
    explode: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Literal(String),
    Expr {
        op: Option<char>,
        vars: Vec<VarSpec>,
    },
}

/// A parsed URI template.
#[derive(Clone, Debug, PartialEq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

const OPERATORS: &[char] = &['+', '#', '.', '/', ';', '?', '&'];

impl UriTemplate {
    /// Parses `template`; the error names the offending position.
    pub fn parse(template: &str) -> Result<UriTemplate, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = template.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' => {
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    let mut body = String::new();
                    let mut closed = false;
                    for (_, c) in chars.by_ref() {
                        if c == '}' {
                            closed = true;
                            break;
                        }
                        if c == '{' {
                            return Err(format!("nested '{{' in expression at {at}"));
                        }
                        body.push(c);
                    }
                    if !closed {
                        return Err(format!("unclosed '{{' at {at}"));
                    }
                    parts.push(parse_expression(&body, at)?);
                }
                '}' => return Err(format!("unmatched '}}' at {at}")),
                c if c.is_whitespace() || c == '"' || c == '<' || c == '>' => {
                    return Err(format!(
                        "character {c:?} is not allowed in a URI template (at {at})"
                    ))
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate {
            source: template.to_string(),
            parts,
        })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the template has any expression (a plain URI has none).
    pub fn has_variables(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Expr { .. }))
    }

    /// Names of the template's variables, in order.
    pub fn variable_names(&self) -> Vec<String> {
        self.parts
            .iter()
            .flat_map(|p| match p {
                Part::Expr { vars, .. } => vars.iter().map(|v| v.name.clone()).collect(),
                Part::Literal(_) => vec![],
            })
            .collect()
    }

    /// Matches `uri` against the template; on success returns each defined variable.
    ///
    /// Where the template is ambiguous (two expressions side by side), the first expression
    /// takes as much as it can. The work is bounded ([`MATCH_BUDGET`]): a (template, URI)
    /// pair that would need more is answered as no match.
    pub fn matches(&self, uri: &str) -> Option<VecMap<String, String>> {
        let mut vars = VecMap::new();
        Matcher::new(&self.parts, uri)
            .from(0, 0, &mut vars)
            .then_some(vars)
    }
}

/// How many characters one [`UriTemplate::matches`] may read in finding where its
/// expressions' texts end, at the least; for a URI longer than an eighth of it,
/// [`MATCH_READS_PER_CHAR`] per character of the URI. A URI a template matches costs a few
/// times its length. Before the bound, a URI that the template does not match was searched
/// through every split: 600 characters against three expressions side by side took 39 s
/// (native, release build), 40,000 against a single expression 4 s, while the page's thread
/// waited.
pub const MATCH_BUDGET: usize = 1 << 18;

/// The characters a search may read per character of a long URI (see [`MATCH_BUDGET`]).
pub const MATCH_READS_PER_CHAR: usize = 8;

/// One search for `s` against `parts`.
struct Matcher<'t> {
    parts: &'t [Part],
    s: &'t str,
    /// Characters left to read; when it runs out the search gives up (no match).
    budget: usize,
}

impl<'t> Matcher<'t> {
    /// A search for `s`, with its whole budget.
    fn new(parts: &'t [Part], s: &'t str) -> Self {
        Matcher {
            parts,
            s,
            budget: MATCH_BUDGET.max(s.len().saturating_mul(MATCH_READS_PER_CHAR)),
        }
    }

    /// Takes `n` characters of reading from the budget; `false` (and none left) if that is
    /// more than remains.
    fn spend(&mut self, n: usize) -> bool {
        match self.budget.checked_sub(n) {
            Some(left) => {
                self.budget = left;
                true
            }
            None => {
                self.budget = 0;
                false
            }
        }
    }

    /// Whether `parts[i..]` match `s[pos..]`, adding the variables found to `vars`.
    fn from(&mut self, i: usize, pos: usize, vars: &mut VecMap<String, String>) -> bool {
        let s = self.s;
        let Some(part) = self.parts.get(i) else {
            return pos == s.len();
        };
        match part {
            Part::Literal(lit) => {
                s[pos..].starts_with(lit.as_str()) && self.from(i + 1, pos + lit.len(), vars)
            }
            Part::Expr { op, vars: specs } => self.expression(i, pos, *op, specs, vars),
        }
    }

    /// The expression `parts[i]` from `pos`: each end its text could have, the longest first,
    /// and the rest of the template from there (backtracking to a shorter text when the rest
    /// does not match).
    fn expression(
        &mut self,
        i: usize,
        pos: usize,
        op: Option<char>,
        specs: &[VarSpec],
        vars: &mut VecMap<String, String>,
    ) -> bool {
        let s = self.s;
        // No text reaching past a character the operator refuses can match
        // (`match_expression` refuses it): the candidates end at the first one.
        let limit = pos + s[pos..].find(|c| refused(op, c)).unwrap_or(s.len() - pos);
        if !self.spend(limit - pos) {
            return false;
        }
        // What must follow the text: the URI's end after the last part, the literal that
        // follows it, nothing in particular before another expression.
        let follows = match self.parts.get(i + 1) {
            None => None,
            Some(Part::Literal(lit)) => Some(lit.as_str()),
            Some(Part::Expr { .. }) => Some(""),
        };
        if follows.is_none() && limit != s.len() {
            return false;
        }
        let mut end = limit;
        loop {
            if !self.spend(1) {
                return false;
            }
            if follows.is_none_or(|lit| s[end..].starts_with(lit)) {
                if !self.spend(end - pos) {
                    return false;
                }
                if let Some(found) = match_expression(op, specs, &s[pos..end]) {
                    let saved = vars.clone();
                    vars.extend(found);
                    if self.from(i + 1, end, vars) {
                        return true;
                    }
                    *vars = saved;
                }
                if self.budget == 0 {
                    return false;
                }
            }
            if end == pos || follows.is_none() {
                return false;
            }
            // The character boundary before.
            end = s[..end]
                .char_indices()
                .next_back()
                .map_or(pos, |(at, _)| at);
        }
    }
}

/// Whether an expression of operator `op` refuses every text that holds `c`, as
/// [`match_expression`] reads them (the operator's prefix and separator are never refused).
fn refused(op: Option<char>, c: char) -> bool {
    match op {
        // Reserved expansion: anything.
        Some('+' | '#') => false,
        // Neither a name nor a value holds these.
        Some(';' | '?' | '&') => matches!(c, '/' | '#'),
        // The path separator is a path expression's own.
        Some('/') => matches!(c, '?' | '#' | '&' | '=' | ';'),
        _ => matches!(c, '/' | '?' | '#' | '&' | '=' | ';'),
    }
}

fn parse_expression(body: &str, at: usize) -> Result<Part, String> {
    let mut rest = body;
    let op = rest.chars().next().filter(|c| OPERATORS.contains(c));
    if let Some(c) = op {
        rest = &rest[c.len_utf8()..];
    }
    if rest.is_empty() {
        return Err(format!("empty expression at {at}"));
    }
    let mut vars = Vec::new();
    for spec in rest.split(',') {
        let (name, explode) = match spec.strip_suffix('*') {
            Some(n) => (n, true),
            None => (spec, false),
        };
        let name = match name.split_once(':') {
            Some((n, len)) => {
                if len.is_empty() || len.len() > 4 || !len.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("bad prefix length {len:?} at {at}"));
                }
                n
            }
            None => name,
        };
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%');
        if !valid {
            return Err(format!("bad variable name {name:?} at {at}"));
        }
        vars.push(VarSpec {
            name: name.to_string(),
            explode,
        });
    }
    Ok(Part::Expr { op, vars })
}

fn match_expression(
    op: Option<char>,
    specs: &[VarSpec],
    text: &str,
) -> Option<VecMap<String, String>> {
    let mut out = VecMap::new();
    let (prefix, sep, named) = match op {
        None | Some('+') => ("", ",", false),
        Some('#') => ("#", ",", false),
        Some('.') => (".", ".", false),
        Some('/') => ("/", "/", false),
        Some(';') => (";", ";", true),
        Some('?') => ("?", "&", true),
        Some('&') => ("&", "&", true),
        Some(_) => return None,
    };
    if text.is_empty() {
        // Every variable undefined: allowed, except that a simple expression must match
        // something (an empty path segment is not a value).
        return if matches!(op, None | Some('+')) {
            None
        } else {
            Some(out)
        };
    }
    let body = text.strip_prefix(prefix)?;
    let reserved_ok = matches!(op, Some('+') | Some('#'));
    let forbidden = |c: char| {
        if reserved_ok {
            false
        } else {
            matches!(c, '/' | '?' | '#' | '&' | '=' | ';') || (op == Some('.') && c == '.')
        }
    };
    if named {
        let pieces: Vec<&str> = body.split(sep).collect();
        for piece in pieces {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            let spec = specs.iter().find(|s| s.name == name)?;
            if value
                .chars()
                .any(|c| matches!(c, '/' | '?' | '#' | '&' | ';'))
            {
                return None;
            }
            let value = decode(value)?;
            match out.get_mut(&spec.name) {
                Some(existing) if spec.explode => {
                    let e: &mut String = existing;
                    e.push(',');
                    e.push_str(&value);
                }
                Some(_) => return None,
                None => {
                    out.insert(spec.name.clone(), value);
                }
            }
        }
        return Some(out);
    }
    if body
        .chars()
        .any(|c| c != sep.chars().next().unwrap_or(',') && forbidden(c))
    {
        return None;
    }
    let pieces: Vec<&str> = body.split(sep).collect();
    if specs.len() == 1 {
        let spec = &specs[0];
        if pieces.len() > 1 && !spec.explode && sep != "," {
            return None;
        }
        let decoded: Option<Vec<String>> = pieces.iter().map(|p| decode(p)).collect();
        let value = decoded?.join(if spec.explode { sep } else { "," });
        if value.is_empty() && matches!(op, None | Some('+')) {
            return None;
        }
        out.insert(spec.name.clone(), value);
        return Some(out);
    }
    if pieces.len() > specs.len() {
        return None;
    }
    for (spec, piece) in specs.iter().zip(pieces) {
        out.insert(spec.name.clone(), decode(piece)?);
    }
    Some(out)
}

fn decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t)
            .unwrap()
            .matches(uri)
            .map(|v| v.into_iter().collect())
    }

    fn pairs(p: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            p.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        )
    }

    #[test]
    fn simple_variables_match_one_segment() {
        assert_eq!(
            m("test://template/{id}/data", "test://template/42/data"),
            pairs(&[("id", "42")])
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template/a/b/data"),
            None
        );
        assert_eq!(
            m("file:///{name}", "file:///a%20b"),
            pairs(&[("name", "a b")])
        );
        assert_eq!(
            m("x://{a},{b}", "x://1,2"),
            pairs(&[("a", "1"), ("b", "2")])
        );
        assert_eq!(m("x://{a,b}", "x://1,2"), pairs(&[("a", "1"), ("b", "2")]));
    }

    #[test]
    fn operators() {
        assert_eq!(
            m("file://{+path}", "file:///etc/hosts"),
            pairs(&[("path", "/etc/hosts")])
        );
        assert_eq!(m("x://h{/seg*}", "x://h/a/b"), pairs(&[("seg", "a/b")]));
        assert_eq!(
            m("x://h{/a,b}", "x://h/1/2"),
            pairs(&[("a", "1"), ("b", "2")])
        );
        assert_eq!(
            m("x://s{?q,lang}", "x://s?q=cat&lang=en"),
            pairs(&[("lang", "en"), ("q", "cat")])
        );
        assert_eq!(m("x://s{?q,lang}", "x://s"), pairs(&[]));
        assert_eq!(m("x://s{?q}", "x://s?z=1"), None);
        assert_eq!(m("x://p{;v}", "x://p;v=3"), pairs(&[("v", "3")]));
        assert_eq!(m("x://d{.ext}", "x://d.json"), pairs(&[("ext", "json")]));
        assert_eq!(m("x://d{#frag}", "x://d#a/b"), pairs(&[("frag", "a/b")]));
        assert_eq!(
            m("x://{id}{?v}", "x://7?v=2"),
            pairs(&[("id", "7"), ("v", "2")])
        );
    }

    #[test]
    fn rejects_malformed_templates() {
        for bad in [
            "x://{",
            "x://}",
            "x://{}",
            "x://{a b}",
            "x://{a:x}",
            "x://{{a}}",
            "a b",
        ] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad} should be refused");
        }
        let t = UriTemplate::parse("x://{a}/{+b}{?c,d*}").unwrap();
        assert_eq!(t.variable_names(), vec!["a", "b", "c", "d"]);
        assert!(t.has_variables());
        assert!(!UriTemplate::parse("test://static").unwrap().has_variables());
    }

    /// The search as it was before it was bounded: every end of every expression's text, the
    /// longest first, with nothing skipped. Exponential in the expressions side by side; the
    /// reference the bounded search must agree with where it stays within its budget.
    fn exhaustive(parts: &[Part], s: &str, vars: &mut VecMap<String, String>) -> bool {
        let Some((first, rest)) = parts.split_first() else {
            return s.is_empty();
        };
        match first {
            Part::Literal(lit) => s
                .strip_prefix(lit.as_str())
                .is_some_and(|tail| exhaustive(rest, tail, vars)),
            Part::Expr { op, vars: specs } => {
                // Try the longest candidate first, then shorter ones (backtracking).
                let ends: Vec<usize> = s
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain(std::iter::once(s.len()))
                    .collect();
                for &end in ends.iter().rev() {
                    let candidate = &s[..end];
                    if let Some(found) = match_expression(*op, specs, candidate) {
                        let saved = vars.clone();
                        vars.extend(found);
                        if exhaustive(rest, &s[end..], vars) {
                            return true;
                        }
                        *vars = saved;
                    }
                }
                false
            }
        }
    }

    /// Templates and URIs made at random (URIs expanded from the template now and then, so
    /// that they match): the bounded search finds what the exhaustive one finds, variables
    /// and all, or that neither matches.
    #[test]
    fn the_bounded_search_agrees_with_the_exhaustive_one() {
        let mut rng = crate::test_rng::Rng(0x853c_49e6_748f_ea9b);
        let mut below = |n: usize| rng.below(n);
        let literals = ["x://", "/", ".", "-", "a", "/v1/", "?k=1"];
        let ops = ["", "+", "#", ".", "/", ";", "?", "&"];
        let names = ["a", "b", "id"];
        let chars = [
            "a", "b", "1", "/", ".", ",", "-", "?", "&", "=", ";", "#", "%20", "%2F", "é", "%",
        ];
        let (mut matched, mut tried) = (0, 0);
        for _ in 0..20_000 {
            let mut template = String::new();
            for _ in 0..1 + below(4) {
                if below(2) == 0 {
                    template.push_str(literals[below(literals.len())]);
                } else {
                    let vars: Vec<String> = (0..1 + below(2))
                        .map(|_| {
                            let explode = if below(4) == 0 { "*" } else { "" };
                            format!("{}{explode}", names[below(names.len())])
                        })
                        .collect();
                    template.push_str(&format!("{{{}{}}}", ops[below(ops.len())], vars.join(",")));
                }
            }
            let Ok(t) = UriTemplate::parse(&template) else {
                continue;
            };
            // A URI: the template with each expression replaced by random text of its kind.
            let mut uri = String::new();
            for part in &t.parts {
                match part {
                    Part::Literal(l) if below(8) != 0 => uri.push_str(l),
                    _ => {
                        for _ in 0..below(5) {
                            uri.push_str(chars[below(chars.len())]);
                        }
                    }
                }
            }
            let mut reference = VecMap::new();
            let want = exhaustive(&t.parts, &uri, &mut reference).then_some(reference);
            let got = t.matches(&uri);
            assert_eq!(
                got.as_ref().map(|v| v.iter().collect::<Vec<_>>()),
                want.as_ref().map(|v| v.iter().collect::<Vec<_>>()),
                "{template} against {uri}"
            );
            tried += 1;
            matched += usize::from(got.is_some());
        }
        assert!(
            matched > 2_000 && tried - matched > 2_000,
            "{matched} of {tried}"
        );
    }

    /// What a search may read is bounded: URIs that no template matches, long or built to make
    /// a search try every split, are refused in a bounded time (the exhaustive search took
    /// seconds for the first and tens of seconds for the third), and a long URI that a template
    /// matches is still matched.
    #[test]
    fn long_and_hostile_uris_are_refused_within_the_budget() {
        let long = "a".repeat(100_000);
        for (template, uri) in [
            ("file:///{name}", format!("file:///{long}/")),
            ("x://{a}{b}", format!("x://{}/", &long[..2_000])),
            ("x://{a}{b}{c}", format!("x://{}/", &long[..600])),
            ("x://{a}.{b}.{c}.{d}", format!("x://{}/", ".a".repeat(300))),
            (
                "x://{+a}/{+b}/{+c}/{+d}/z",
                format!("x://{}y", "/".repeat(3_000)),
            ),
        ] {
            let t = UriTemplate::parse(template).unwrap();
            let mut m = Matcher::new(&t.parts, &uri);
            let whole = m.budget;
            assert!(!m.from(0, 0, &mut VecMap::new()), "{template}");
            assert!(m.budget < whole);
        }
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        let vars = t
            .matches(&format!("file:///{long}/{long}"))
            .expect("a match");
        assert_eq!(vars.get("path").map(String::len), Some(200_001));
        let t = UriTemplate::parse("x://{+a}{+b}{+c}{+d}").unwrap();
        assert!(t.matches(&format!("x://{long}/")).is_some());
    }
}

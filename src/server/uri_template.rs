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
    pub fn matches(&self, uri: &str) -> Option<VecMap<String, String>> {
        let mut vars = VecMap::new();
        if match_from(&self.parts, uri, &mut vars) {
            Some(vars)
        } else {
            None
        }
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

fn match_from(parts: &[Part], s: &str, vars: &mut VecMap<String, String>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return s.is_empty();
    };
    match first {
        Part::Literal(lit) => s
            .strip_prefix(lit.as_str())
            .is_some_and(|tail| match_from(rest, tail, vars)),
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
                    if match_from(rest, &s[end..], vars) {
                        return true;
                    }
                    *vars = saved;
                }
            }
            false
        }
    }
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
}

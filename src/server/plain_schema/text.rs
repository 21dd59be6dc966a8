//! Deciding, as JSON text is read, that a plain schema accepts it, without building its value
//! ([`PlainSchema::accepts_text`](super::PlainSchema::accepts_text)).
//!
//! A tool's long structured result arrives as the page's `JSON.stringify` text; read into a
//! `serde_json::Value` to be checked, 1 MiB of records costs some 14 ms and 10 MB of the
//! core's memory (which wasm never gives back), for a value the answer never writes. Here the
//! text is read once, each scalar is checked against the subschemas that apply to it where it
//! stands, and each container by what its subschemas say of it as a whole (its type, its count,
//! its `required` names): no container is built. A container whose subschemas need it whole
//! (`const`, `enum`, `uniqueItems`, `propertyNames`, `minProperties`, `anyOf`, `oneOf`, `not`,
//! `if`, more than 63 `required` names) is read into a value there and walked as
//! [`CompiledSchema::validate`](crate::server::CompiledSchema::validate) walks it; only that
//! part is built.
//!
//! The verdict is the walk's: `true` only for text whose value the walk accepts. Text this
//! reading refuses for any other reason (not JSON, a lone surrogate `serde_json` does not
//! read, nested past [`DEFAULT_MAX_DEPTH`]) gives `false`, and the caller reads and validates
//! the value. A member name written twice (which `JSON.stringify` never writes) is checked
//! each time, where the value keeps the last: stricter, never looser (`minProperties`, the one
//! keyword a repeated name could satisfy falsely, needs the object whole).

use super::walk::{walk, Path, Walk};
use super::{Checks, Node, ARRAY, OBJECT};
use crate::server::depth;
use crate::server::validator::DEFAULT_MAX_DEPTH;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// Whether `text` is JSON whose value `root` accepts (see the module's documentation).
pub(super) fn accepts(root: &Node, text: &str) -> bool {
    let mut reader = serde_json::Deserializer::from_str(text);
    let seed = Seed {
        nodes: &[root],
        depth: 0,
    };
    seed.deserialize(&mut reader).is_ok() && reader.end().is_ok()
}

/// The value at one place of the text, with the subschemas that apply to it there (all must
/// accept it) and how many containers enclose it.
struct Seed<'n, 's> {
    nodes: &'s [&'n Node],
    depth: usize,
}

/// How a refusal ends the reading: the first one decides.
fn refused<E: de::Error>() -> E {
    E::custom("refused")
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        // Even a value nothing constrains is read here: its depth counts.
        d.deserialize_any(self)
    }
}

impl Seed<'_, '_> {
    /// A value read whole, walked by each subschema.
    fn walked<E: de::Error>(&self, value: &Value) -> Result<(), E> {
        let holds = |n: &&Node| walk(n, value, &Path::Root, "false", &mut Walk(None));
        match self.nodes.iter().all(holds) {
            true => Ok(()),
            false => Err(refused()),
        }
    }

    /// A scalar, made only when a subschema checks it.
    fn scalar<E: de::Error>(&self, value: impl FnOnce() -> Value) -> Result<(), E> {
        match self.nodes.is_empty() {
            true => Ok(()),
            false => self.walked(&value()),
        }
    }

    /// What the subschemas check of a container as a whole (an `allOf` branch's and a `$ref`
    /// target's checks are theirs too), when the reading can follow them; `None` when one
    /// needs the container's value (see the module's documentation), and `false` does.
    fn container_checks(&self) -> Option<Vec<&Checks>> {
        fn add<'n>(node: &'n Node, out: &mut Vec<&'n Checks>) -> Option<()> {
            let c = match node {
                Node::True => return Some(()),
                Node::False(_) => return None,
                Node::Checks(c) => c,
            };
            let r = c.rare();
            let whole = r.constant.is_some()
                || r.options.is_some()
                || r.unique_items
                || r.property_names.is_some()
                || r.min_properties.is_some()
                || !r.any_of.is_empty()
                || !r.one_of.is_empty()
                || r.not.is_some()
                || r.if_.is_some();
            if whole {
                return None;
            }
            out.push(c);
            for n in &r.all_of {
                add(n, out)?;
            }
            if let Some(target) = &r.reference {
                add(target, out)?;
            }
            Some(())
        }
        let mut out = Vec::with_capacity(self.nodes.len());
        for n in self.nodes {
            add(n, &mut out)?;
        }
        let required: usize = out.iter().map(|c| c.required.len()).sum();
        (required < 64).then_some(out)
    }

    /// The depth of a container here, or the refusal of one nested too deeply.
    fn inner<E: de::Error>(&self) -> Result<usize, E> {
        match self.depth + 1 {
            d if d > DEFAULT_MAX_DEPTH => Err(refused()),
            d => Ok(d),
        }
    }

    /// A container read whole, walked as [`Seed::walked`], when it nests no deeper than the
    /// walk allows where it stands.
    fn walked_whole<E: de::Error>(&self, value: Value) -> Result<(), E> {
        if depth::exceeds(&value, DEFAULT_MAX_DEPTH - self.depth) {
            return Err(refused());
        }
        self.walked(&value)
    }
}

/// Whether `checks` all allow a container of type `bit`.
fn typed<E: de::Error>(checks: &[&Checks], bit: u8) -> Result<(), E> {
    match checks
        .iter()
        .all(|c| c.types.is_none_or(|(bits, _)| bits & bit != 0))
    {
        true => Ok(()),
        false => Err(refused()),
    }
}

/// Whether `checks` all allow a container of `count` members, between the bounds `limits`
/// gives each.
fn counted<E: de::Error>(
    checks: &[&Checks],
    count: usize,
    limits: impl Fn(&Checks) -> (Option<u64>, Option<u64>),
) -> Result<(), E> {
    let count = count as u64;
    let within = |c: &&Checks| {
        let (min, max) = limits(c);
        min.is_none_or(|m| count >= m) && max.is_none_or(|m| count <= m)
    };
    match checks.iter().all(within) {
        true => Ok(()),
        false => Err(refused()),
    }
}

impl<'de> Visitor<'de> for Seed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.scalar(|| Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.scalar(|| Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.scalar(|| Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.scalar(|| Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.scalar(|| Value::String(v.to_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar(|| Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let depth = self.inner()?;
        let Some(checks) = self.container_checks() else {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element::<Value>()? {
                items.push(item);
            }
            return self.walked_whole(Value::Array(items));
        };
        typed(&checks, ARRAY)?;
        let mut children = Vec::with_capacity(checks.len());
        let mut count = 0;
        loop {
            children.clear();
            for c in &checks {
                let r = c.rare();
                // `prefixItems` first, then `items` for the rest.
                if let Some(n) = r.prefix_items.get(count).or(r.items.as_ref()) {
                    children.push(n);
                }
            }
            let seed = Seed {
                nodes: &children,
                depth,
            };
            match seq.next_element_seed(seed)? {
                Some(()) => count += 1,
                None => break,
            }
        }
        counted(&checks, count, |c| (c.rare().min_items, c.rare().max_items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let depth = self.inner()?;
        let Some(checks) = self.container_checks() else {
            let mut members = Map::new();
            while let Some(name) = map.next_key::<String>()? {
                let value = map.next_value::<Value>()?;
                members.insert(name, value);
            }
            return self.walked_whole(Value::Object(members));
        };
        typed(&checks, OBJECT)?;
        // The `required` names met, one bit each, in the order of `checks` (fewer than 64).
        let mut met: u64 = 0;
        let wanted = checks.iter().map(|c| c.required.len()).sum::<usize>();
        let mut children = Vec::with_capacity(checks.len());
        let mut count = 0;
        while let Some(name) = map.next_key_seed(Name)? {
            count += 1;
            children.clear();
            let mut bit = 0;
            for c in &checks {
                if let Some(i) = c.required.iter().position(|r| *r == name) {
                    met |= 1 << (bit + i);
                }
                bit += c.required.len();
                match c.properties.iter().find(|(p, _)| *p == name) {
                    Some((_, n)) => children.push(n),
                    None => children.extend(c.additional.as_ref()),
                }
            }
            map.next_value_seed(Seed {
                nodes: &children,
                depth,
            })?;
        }
        if met != (1u64 << wanted) - 1 {
            return Err(refused());
        }
        counted(&checks, count, |c| (None, c.rare().max_properties))
    }
}

/// A member's name, borrowed from the text where it has no escape.
struct Name;

impl<'de> DeserializeSeed<'de> for Name {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Name {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

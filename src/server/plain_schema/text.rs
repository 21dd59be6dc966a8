//! Deciding, as JSON text is read, that a plain schema accepts it, without building its value
//! ([`PlainSchema::accepts_text`](super::PlainSchema::accepts_text)).
//!
//! A tool's long structured result arrives as the page's `JSON.stringify` text; read into a
//! `serde_json::Value` to be checked, 1 MiB of records costs some 14 ms and 10 MB of the
//! core's memory (which wasm never gives back), for a value the answer never writes. Here the
//! text is read once, each scalar is checked against the subschemas that apply to it where it
//! stands (by its type alone where they have no other keyword a scalar meets, the common
//! record field, without making it a value), and each container by what its subschemas say of
//! it as a whole (its type, its count, its `required` names): no container is built. A
//! container whose subschemas decide by branches (`anyOf`, `oneOf`, `not`, `if`) is read into
//! a value when it is small, and otherwise as text, then again for each branch that decides
//! ([`Seed::branched`], [`check_text`]). An object's `propertyNames` and `minProperties` are
//! checked from its names as they come (each name as a string; the distinct names counted up
//! to the largest bound). A container whose subschemas need its value (`const`, `enum`,
//! `uniqueItems`, more than 63 `required` names) is read into a value there and walked as
//! [`CompiledSchema::validate`](crate::server::CompiledSchema::validate) walks it; only that
//! part is built, and only while it holds at most [`WHOLE_VALUES`] values: past them the text
//! is not shown valid (the caller then reads the whole text on its own budget).
//!
//! The verdict is the walk's: `true` only for text whose value the walk accepts. Text this
//! reading refuses for any other reason (not JSON, a lone surrogate `serde_json` does not
//! read, nested past [`DEFAULT_MAX_DEPTH`], a part needed whole past its bound) gives `false`,
//! and the caller reads and validates the value. A member name written twice (which
//! `JSON.stringify` never writes) is checked each time, where the value keeps the last:
//! stricter, never looser (`minProperties`, the one keyword a repeated name could satisfy
//! falsely, counts a name once).

use super::walk::{walk, Path, Walk};
use super::{Checks, Node, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING};
use crate::collections::VecSet;
use crate::protocol::scan;
use crate::protocol::values::{Counted, ValueBudget};
use crate::server::depth;
use crate::server::validator::DEFAULT_MAX_DEPTH;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt;

/// How many values a container may hold to be read into a value and walked: about 1 MB of
/// the core's memory at most, which is kept once grown. Past it, a container that the
/// branches decide is checked from its text ([`Seed::branched`]), and one needed whole for
/// another keyword is not shown valid ([`Seed::whole`]).
pub(super) const WHOLE_VALUES: usize = 10_000;

/// Whether `text` is JSON whose value `root` accepts (see the module's documentation). A
/// container that a subschema needs whole for its branches alone is read into a value when it
/// holds at most `whole_up_to` values, and otherwise checked branch by branch from its text
/// ([`Seed::branched`]); with `None`, read into a value whatever its size.
pub(super) fn accepts(root: &Node, text: &str, whole_up_to: Option<usize>) -> bool {
    check_text::<serde_json::Error>(&[root], text, 0, whole_up_to).is_ok()
}

/// Whether the value whose text is `text` (one JSON value, nested in `depth` containers) is
/// accepted by each of `nodes`. A container they need whole for their branches alone
/// (`anyOf`, `oneOf`, `not`, `if`; a nullable array or object is an `anyOf`) is read once for
/// their other checks ([`Seed::apart`]), then once for each branch that decides, instead of
/// being read into a value: the value of an agent's 1.3 million empty arrays, valid ones, is
/// some 200 MB of memory, which wasm keeps. Anything else is read as [`Seed`] reads (where a
/// container inside that the branches decide is read into a value when small: `whole_up_to`).
fn check_text<E: de::Error>(
    nodes: &[&Node],
    text: &str,
    depth: usize,
    whole_up_to: Option<usize>,
) -> Result<(), E> {
    let seed = |apart| Seed {
        nodes,
        depth,
        trail: None,
        apart,
        whole_up_to,
        text,
        place: Place::At(scan::skip_ws(text.as_bytes(), 0)),
    };
    if whole_up_to.is_some() && text.starts_with(['[', '{']) {
        let probe = seed(true);
        let checked = probe.container_checks();
        if let Some(checks) = checked.list() {
            if checks.iter().any(|c| has_branches(c)) {
                read(seed(true), text)?;
                return checks
                    .iter()
                    .try_for_each(|c| branches_hold(c, text, depth, whole_up_to));
            }
        }
    }
    read(seed(false), text)
}

/// `seed` over the whole of `text`.
fn read<E: de::Error>(seed: Seed<'_, '_>, text: &str) -> Result<(), E> {
    let mut reader = serde_json::Deserializer::from_str(text);
    match seed.deserialize(&mut reader).and_then(|()| reader.end()) {
        Ok(()) => Ok(()),
        Err(_) => Err(refused()),
    }
}

/// Whether `c` has a branch keyword: `anyOf`, `oneOf`, `not`, `if`.
fn has_branches(c: &Checks) -> bool {
    let r = c.rare();
    !r.any_of.is_empty() || !r.one_of.is_empty() || r.not.is_some() || r.if_.is_some()
}

/// Whether the value whose text is `text` holds `c`'s branch keywords, decided as the walk
/// decides them (`walk.rs`), each branch by a reading of the text ([`check_text`]).
fn branches_hold<E: de::Error>(
    c: &Checks,
    text: &str,
    depth: usize,
    whole_up_to: Option<usize>,
) -> Result<(), E> {
    let r = c.rare();
    let holds = |n: &Node| check_text::<E>(&[n], text, depth, whole_up_to).is_ok();
    // (Each keyword read only while those before it hold: a refusal needs no more readings.)
    let hold = (r.any_of.is_empty() || r.any_of.iter().any(holds))
        && (r.one_of.is_empty() || r.one_of.iter().filter(|b| holds(b)).take(2).count() == 1)
        && r.not.as_ref().is_none_or(|(n, _)| !holds(n))
        && match &r.if_ {
            None => true,
            Some(condition) if holds(condition) => r.then.as_ref().is_none_or(holds),
            Some(_) => r.else_.as_ref().is_none_or(holds),
        };
    match hold {
        true => Ok(()),
        false => Err(refused()),
    }
}

/// Where [`accepts`] refuses `text` (JSON text `serde_json` reads: [`read_error`] finds none):
/// the JSON Pointer of the value whose check failed first, in the text's order, or that holds
/// it (a container read whole holds it, a container's own checks — its `required` names, its
/// count — are its own). `None` where `root` accepts the text. A container read whole takes its
/// values from `budget`, and is where the refusal is when it runs out: the text is an agent's,
/// refused, and nothing of it is kept.
pub(super) fn refused_at(root: &Node, text: &str, budget: &ValueBudget) -> Option<String> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let trail = Trail {
        steps: RefCell::new(Vec::new()),
        budget,
    };
    let seed = Seed {
        nodes: &[root],
        depth: 0,
        trail: Some(&trail),
        apart: false,
        whole_up_to: None,
        text,
        place: Place::At(0),
    };
    if seed.deserialize(&mut reader).is_ok() && reader.end().is_ok() {
        return None;
    }
    let mut pointer = String::new();
    for step in trail.steps.into_inner().iter().rev() {
        pointer.push('/');
        match step {
            Step::Item(i) => pointer.push_str(&i.to_string()),
            Step::Member(name) => pointer.push_str(&super::escape(name)),
        }
    }
    Some(pointer)
}

/// Why `serde_json` does not read `text` into a value (its error, as [`values::parse`] gives
/// it), found without making one; `None` where it does.
///
/// [`values::parse`]: crate::protocol::values::parse
pub(super) fn read_error(text: &str) -> Option<serde_json::Error> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let seed = Seed {
        nodes: &[&Node::True],
        depth: 0,
        trail: None,
        apart: false,
        whole_up_to: None,
        text,
        place: Place::At(0),
    };
    seed.deserialize(&mut reader)
        .and_then(|()| reader.end())
        .err()
}

/// The value at one place of the text, with the subschemas that apply to it there (all must
/// accept it) and how many containers enclose it; and, when the place of a refusal is wanted
/// ([`refused_at`]), where the steps to it go.
struct Seed<'n, 's> {
    nodes: &'s [&'n Node],
    depth: usize,
    trail: Option<&'s Trail<'s>>,
    /// Whether the branch keywords of `nodes` (not of the places inside) are checked apart
    /// ([`check_text`]): the container is not needed whole for them.
    apart: bool,
    /// How many values a container inside that a subschema needs whole for its branches alone
    /// may hold to be read into a value; past that it is checked branch by branch from its
    /// text ([`Seed::branched`]). `None`: read into a value whatever its size.
    whole_up_to: Option<usize>,
    /// The text being read.
    text: &'s str,
    /// Where in `text` the value is, found only if it is needed.
    place: Place<'s>,
}

/// Where a value is in the text being read: what finds a container's text when it is too
/// large to read into a value ([`Seed::branched`]). The reading does not say where it is, so
/// an item or member is known by its number in the container that holds it, and found, when
/// asked, by skipping over the text of those before it.
#[derive(Clone, Copy)]
enum Place<'s> {
    /// At this byte of the text.
    At(usize),
    /// Item `i` of the array at this place.
    Item(&'s Spot<'s>, usize),
    /// The value of member `i` of the object at this place.
    Member(&'s Spot<'s>, usize),
}

/// A container's place, and what was found of it: where it starts, and the last of its items
/// or members found (its number and where it starts, a member at its name), from which the
/// next ones are found: a container's children are asked for in their order, so each part of
/// its text is skipped over once.
struct Spot<'s> {
    place: Place<'s>,
    start: Cell<Option<usize>>,
    last: Cell<Option<(usize, usize)>>,
}

/// The steps from a refused value up to the root, pushed as the refusal unwinds; and the
/// budget of what the containers read whole may make.
struct Trail<'b> {
    steps: RefCell<Vec<Step>>,
    budget: &'b ValueBudget,
}

/// One step of a [`Trail`].
enum Step {
    Item(usize),
    Member(String),
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

/// What a container's subschemas check of it as a whole (see [`Seed::container_checks`]).
enum Checked<'n> {
    /// One subschema's checks (the common case: nothing to gather).
    One(&'n Checks),
    /// Several subschemas' checks, gathered (`allOf` branches, `$ref` targets, the subschemas
    /// of several places that apply to one value).
    Many(Vec<&'n Checks>),
    /// A subschema needs the container's value.
    Whole,
}

impl<'n> Checked<'n> {
    /// The checks, unless the container is needed whole.
    fn list(&self) -> Option<&[&'n Checks]> {
        match self {
            Checked::One(c) => Some(std::slice::from_ref(c)),
            Checked::Many(list) => Some(list),
            Checked::Whole => None,
        }
    }
}

/// The subschemas `pick` gives of `checks` (an item's, a member's): in `one` where there is one
/// check, else in `many`.
fn picked<'n, 'b>(
    checks: &[&'n Checks],
    one: &'b mut Option<&'n Node>,
    many: &'b mut Vec<&'n Node>,
    pick: impl Fn(&'n Checks) -> Option<&'n Node>,
) -> &'b [&'n Node] {
    match checks {
        [c] => {
            *one = pick(c);
            one.as_slice()
        }
        _ => {
            many.clear();
            many.extend(checks.iter().filter_map(|c| pick(c)));
            many
        }
    }
}

impl Seed<'_, '_> {
    /// A value read whole, walked by each subschema.
    fn walked<E: de::Error>(&self, value: &Value) -> Result<(), E> {
        let holds = |n: &&Node| walk(n, value, &Path::Root, "false", &mut Walk::deciding());
        match self.nodes.iter().all(holds) {
            true => Ok(()),
            false => Err(refused()),
        }
    }

    /// A scalar of JSON type `of` (its bit; an integer's has `NUMBER` too): a subschema with
    /// no rare keyword checks only its type (the others are an object's), and the value is
    /// made only for the rest to walk it.
    fn scalar<E: de::Error>(&self, of: u8, value: impl FnOnce() -> Value) -> Result<(), E> {
        let mut rest = false;
        for n in self.nodes {
            match n {
                Node::True => {}
                Node::Checks(c) if c.rare.is_none() => {
                    if !allows(c, of) {
                        return Err(refused());
                    }
                }
                _ => rest = true,
            }
        }
        match rest {
            true => self.walked(&value()),
            false => Ok(()),
        }
    }

    /// What the subschemas check of a container as a whole (an `allOf` branch's and a `$ref`
    /// target's checks are theirs too), when the reading can follow them: `Whole` when one
    /// needs the container's value (see the module's documentation), and `false` does.
    fn container_checks(&self) -> Checked<'_> {
        // (Branches checked apart do not need it whole: `check_text`.)
        let apart = self.apart;
        let whole = |c: &Checks| {
            let r = c.rare();
            r.constant.is_some()
                || r.options.is_some()
                || r.unique_items
                || (!apart && has_branches(c))
        };
        fn add<'n>(
            node: &'n Node,
            whole: &impl Fn(&Checks) -> bool,
            out: &mut Vec<&'n Checks>,
        ) -> Option<()> {
            let c = match node {
                Node::True => return Some(()),
                Node::False(_) => return None,
                Node::Checks(c) if whole(c) => return None,
                Node::Checks(c) => c,
            };
            out.push(c);
            for n in &c.rare().all_of {
                add(n, whole, out)?;
            }
            if let Some(target) = &c.rare().reference {
                add(target, whole, out)?;
            }
            Some(())
        }
        if let [Node::Checks(c)] = self.nodes {
            let r = c.rare();
            if r.all_of.is_empty() && r.reference.is_none() && !whole(c) && c.required.len() < 64 {
                return Checked::One(c);
            }
        }
        let mut out = Vec::new();
        for n in self.nodes {
            if add(n, &whole, &mut out).is_none() {
                return Checked::Whole;
            }
        }
        match out.iter().map(|c| c.required.len()).sum::<usize>() {
            0..64 => Checked::Many(out),
            _ => Checked::Whole,
        }
    }

    /// The depth of a container here, or the refusal of one nested too deeply.
    fn inner<E: de::Error>(&self) -> Result<usize, E> {
        match self.depth + 1 {
            d if d > DEFAULT_MAX_DEPTH => Err(refused()),
            d => Ok(d),
        }
    }

    /// A container a subschema needs whole, the rest of which `d` reads. One needed whole for
    /// its branches alone, with `whole_up_to` set, is read into a value only while it holds no
    /// more than that many values: past them the reading goes on to its end keeping nothing,
    /// and the container is then found in the text ([`Place`]) and checked from there, branch
    /// by branch ([`check_text`]). An agent's valid arguments `{"xs": [[…]]}` holding 1.3
    /// million empty arrays under a nullable item grew the core's memory by 200 MB when the
    /// item was read into a value. Any other is read into a value, whatever its size.
    ///
    /// Each branch reads the part's text again, so a part past the bound inside it is read
    /// once for each reading of a part around it that checks inside it: where each level holds
    /// a branch keyword beside checks of its own, the innermost is read 2^levels times or more
    /// (a nullable's `anyOf` alone has none: its first reading checks nothing inside).
    fn branched<'de, D: Deserializer<'de>>(&self, d: D) -> Result<(), D::Error> {
        let Some(up_to) = self.whole_up_to.filter(|_| self.branches_alone()) else {
            return self.walked_whole(self.whole(d)?);
        };
        let budget = ValueBudget::draining(up_to);
        let value = Counted(&budget).deserialize(d)?;
        if !budget.ran_out() {
            return self.walked_whole(value);
        }
        drop(value);
        let b = self.text.as_bytes();
        let start = self.place.start(b).ok_or_else(refused)?;
        let end = scan::value_end(b, start).ok_or_else(refused)?;
        check_text(
            self.nodes,
            &self.text[start..end],
            self.depth,
            self.whole_up_to,
        )
    }

    /// The refusal of a container of type `bit` that a subschema's own `type` (or `false`)
    /// refuses, before it is read whole for the rest: a string `enum` (zod's `z.enum`) needs a
    /// value whole, and an agent's 1.3 million empty arrays in its place were read into one, 200
    /// MB of the core's memory, to be refused by their type.
    fn own_type<E: de::Error>(&self, bit: u8) -> Result<(), E> {
        let refuses = |n: &&Node| match n {
            Node::False(_) => true,
            Node::Checks(c) => !allows(c, bit),
            Node::True => false,
        };
        match self.nodes.iter().any(refuses) {
            true => Err(refused()),
            false => Ok(()),
        }
    }

    /// Whether the subschemas need the container whole for their branches alone: with those
    /// set apart, its reading could follow them.
    fn branches_alone(&self) -> bool {
        let apart = Seed {
            apart: true,
            ..*self
        };
        apart.container_checks().list().is_some()
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

/// Whether `c`'s own `type` allows a value of JSON type `bit` (its bit; an integer's has
/// `NUMBER` too).
fn allows(c: &Checks, bit: u8) -> bool {
    c.types.is_none_or(|(bits, _)| bits & bit != 0)
}

/// Whether `checks` all allow a container of type `bit`.
fn typed<E: de::Error>(checks: &[&Checks], bit: u8) -> Result<(), E> {
    match checks.iter().all(|c| allows(c, bit)) {
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

/// The subschema of item `i` in `c`: `prefixItems` first, then `items` for the rest.
fn item(c: &Checks, i: usize) -> Option<&Node> {
    let r = c.rare();
    r.prefix_items.get(i).or(r.items.as_ref())
}

/// The subschema of member `name` in `c`: its `properties` entry, else `additionalProperties`.
fn member<'n>(c: &'n Checks, name: &str) -> Option<&'n Node> {
    match c.properties.iter().find(|(p, _)| p == name) {
        Some((_, n)) => Some(n),
        None => c.additional.as_ref(),
    }
}

impl<'de> Visitor<'de> for Seed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.scalar(BOOLEAN, || Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.scalar(INTEGER | NUMBER, || Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.scalar(INTEGER | NUMBER, || Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        let of = match v.fract() == 0.0 {
            true => INTEGER | NUMBER,
            false => NUMBER,
        };
        self.scalar(of, || Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.scalar(STRING, || Value::String(v.to_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar(NULL, || Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let depth = self.inner()?;
        let checked = self.container_checks();
        let Some(checks) = checked.list() else {
            self.own_type(ARRAY)?;
            return self.branched(SeqAccessDeserializer::new(seq));
        };
        typed(checks, ARRAY)?;
        let here = Spot::new(self.place);
        let (mut one, mut many) = (None, Vec::new());
        let mut count = 0;
        loop {
            let nodes = picked(checks, &mut one, &mut many, |c| item(c, count));
            match seq.next_element_seed(self.inside(nodes, depth, Place::Item(&here, count))) {
                Ok(Some(())) => count += 1,
                Ok(None) => break,
                Err(e) => return Err(self.passed(e, || Step::Item(count))),
            }
        }
        counted(checks, count, |c| (c.rare().min_items, c.rare().max_items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let depth = self.inner()?;
        let checked = self.container_checks();
        let Some(checks) = checked.list() else {
            self.own_type(OBJECT)?;
            return self.branched(MapAccessDeserializer::new(map));
        };
        typed(checks, OBJECT)?;
        let here = Spot::new(self.place);
        // The `required` names met, one bit each, in the order of `checks` (fewer than 64).
        let mut met: u64 = 0;
        let wanted = checks.iter().map(|c| c.required.len()).sum::<usize>();
        // `minProperties`: the distinct names met, kept until they are as many as the largest
        // bound (a name written twice is one member of the value).
        let least = checks.iter().filter_map(|c| c.rare().min_properties).max();
        // (Of `String`s, as the engine's other sets are: one more instantiation cost the
        // deferred module 0.8 KB gzip.)
        let mut distinct: VecSet<String> = VecSet::new();
        let (mut one, mut many) = (None, Vec::new());
        let mut count = 0;
        while let Some(name) = map.next_key_seed(Name)? {
            count += 1;
            if least.is_some_and(|n| (distinct.len() as u64) < n) {
                distinct.insert(name.to_string());
            }
            // `propertyNames`: the name, as a string (a refusal is the object's).
            for c in checks {
                if let Some(n) = &c.rare().property_names {
                    self.inside(std::slice::from_ref(&n), depth, self.place)
                        .visit_str::<A::Error>(&name)?;
                }
            }
            let mut bit = 0;
            for c in checks {
                if let Some(i) = c.required.iter().position(|r| *r == name) {
                    met |= 1 << (bit + i);
                }
                bit += c.required.len();
            }
            let nodes = picked(checks, &mut one, &mut many, |c| member(c, &name));
            let place = Place::Member(&here, count - 1);
            if let Err(e) = map.next_value_seed(self.inside(nodes, depth, place)) {
                return Err(self.passed(e, || Step::Member(name.into_owned())));
            }
        }
        if met != (1u64 << wanted) - 1 || least.is_some_and(|n| (distinct.len() as u64) < n) {
            return Err(refused());
        }
        counted(checks, count, |c| (None, c.rare().max_properties))
    }
}

impl Place<'_> {
    /// Where the value starts in the text `b` (whose part before the value the reading has
    /// taken as JSON: skipping over it needs no check); `None` only where it is not so.
    fn start(self, b: &[u8]) -> Option<usize> {
        match self {
            Place::At(at) => Some(at),
            Place::Item(spot, i) => spot.child(b, i),
            Place::Member(spot, i) => {
                let name = spot.child(b, i)?;
                let colon = scan::skip_ws(b, scan::value_end(b, name)?);
                (b.get(colon) == Some(&b':')).then(|| scan::skip_ws(b, colon + 1))
            }
        }
    }
}

impl<'s> Spot<'s> {
    fn new(place: Place<'s>) -> Self {
        Spot {
            place,
            start: Cell::new(None),
            last: Cell::new(None),
        }
    }

    /// Where item `i` starts, or member `i`'s name, of the container here; from the last one
    /// found when it comes before.
    fn child(&self, b: &[u8], i: usize) -> Option<usize> {
        let start = match self.start.get() {
            Some(start) => start,
            None => self.place.start(b)?,
        };
        self.start.set(Some(start));
        let object = b.get(start) == Some(&b'{');
        let (mut k, mut at) = match self.last.get() {
            Some((k, at)) if k <= i => (k, at),
            _ => (0, scan::skip_ws(b, start + 1)),
        };
        while k < i {
            let mut end = scan::value_end(b, at)?;
            if object {
                let colon = scan::skip_ws(b, end);
                end = scan::value_end(b, scan::skip_ws(b, colon + 1))?;
            }
            let comma = scan::skip_ws(b, end);
            if b.get(comma) != Some(&b',') {
                return None;
            }
            at = scan::skip_ws(b, comma + 1);
            k += 1;
        }
        self.last.set(Some((i, at)));
        Some(at)
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

impl<'n, 's> Seed<'n, 's> {
    /// The seed of a value inside this one (an item, a member's value) whose subschemas are
    /// `nodes`, `depth` containers deep, at `place`.
    fn inside<'c>(&self, nodes: &'c [&'n Node], depth: usize, place: Place<'c>) -> Seed<'n, 'c>
    where
        's: 'c,
    {
        Seed {
            nodes,
            depth,
            trail: self.trail,
            apart: false,
            whole_up_to: self.whole_up_to,
            text: self.text,
            place,
        }
    }

    /// `e`, a refusal unwinding past `step`, with the step on the trail when there is one.
    fn passed<E>(&self, e: E, step: impl FnOnce() -> Step) -> E {
        if let Some(t) = self.trail {
            t.steps.borrow_mut().push(step());
        }
        e
    }
}

impl Seed<'_, '_> {
    /// The rest of a container the walk reads whole, as the core reads every value from text
    /// ([`Counted`]): when deciding, at most [`WHOLE_VALUES`] values (none past them: the
    /// reading stops, and the text is not shown valid) where `whole_up_to` is set, else with no
    /// bound; with the trail's budget when finding where a refusal is. An agent's 1.3 million
    /// empty arrays under a `uniqueItems` were read into a value, some 200 MB of the core's
    /// memory, kept once grown.
    fn whole<'de, D: Deserializer<'de>>(&self, d: D) -> Result<Value, D::Error> {
        match (self.trail, self.whole_up_to) {
            (Some(t), _) => Counted(t.budget).deserialize(d),
            (None, Some(_)) => Counted(&ValueBudget::new(WHOLE_VALUES)).deserialize(d),
            (None, None) => Counted(&ValueBudget::unlimited()).deserialize(d),
        }
    }
}

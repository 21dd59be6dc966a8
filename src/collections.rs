//! Ordered maps and sets kept as sorted vectors: [`VecMap`] and [`VecSet`]; and [`Numbered`],
//! values kept under numbers it hands out.
//!
//! The engine's collections are small (a page's tools, a session's subscriptions, the requests in
//! flight) or read far more often than changed (the registry). A sorted `Vec` answers a lookup by
//! binary search, iterates in key order like `BTreeMap`, and costs a fraction of its code: every
//! `BTreeMap<K, V>` instantiation brings its node splitting, merging and balancing (about 60 KB
//! of the core wasm for the dozen maps the engine had), where these bring a binary search and a
//! `Vec` insert or remove. Inserting or removing moves the entries after it, which for a thousand
//! entries of a few words each is a `memmove` of a few kilobytes.
//!
//! [`sort_by`] is a stable sort for any `Vec` through one shared routine: the standard library's
//! stable sort is instantiated once per element type and comparison (about 10 KB of wasm each).
//!
//! ```
//! use modelcontext_polyfill::collections::{VecMap, VecSet};
//!
//! let mut tools: VecMap<String, u32> = VecMap::new();
//! assert_eq!(tools.insert("b".into(), 2), None);
//! assert_eq!(tools.insert("a".into(), 1), None);
//! assert_eq!(tools.insert("b".into(), 3), Some(2)); // replaced, as BTreeMap::insert does
//! assert_eq!(tools.get("b"), Some(&3));
//! assert_eq!(tools.keys().map(String::as_str).collect::<Vec<_>>(), ["a", "b"]); // key order
//! assert_eq!(tools.remove("a"), Some(1));
//! assert_eq!(tools.len(), 1);
//!
//! let mut seen: VecSet<&str> = ["y", "x", "y"].into_iter().collect();
//! assert_eq!(seen.iter().copied().collect::<Vec<_>>(), ["x", "y"]);
//! assert!(!seen.insert("x"));
//! assert!(seen.remove(&"y"));
//! ```

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;

/// A map ordered by key, kept as a sorted vector of `(key, value)` (see the [module](self)).
/// Its methods are those of `BTreeMap` that the engine uses, with the same meaning.
#[derive(Clone, PartialEq, Eq)]
pub struct VecMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

impl<K, V> VecMap<K, V> {
    /// An empty map (allocates nothing).
    pub const fn new() -> Self {
        VecMap {
            entries: Vec::new(),
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in key order, values mutably.
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&K, &mut V)> + ExactSizeIterator {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in key order, mutably.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// Keeps the entries for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The first entry in key order.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.entries.first().map(|(k, v)| (k, v))
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// `Ok(index)` of `key`, or `Err(index)` where it would be inserted.
    fn find<Q>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value for `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    /// The value for `key`, mutably.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    /// The entry for `key`, its key as stored.
    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    /// Whether `key` has an entry.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`; the value it replaces, if any (the key itself is kept).
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// The value for `key`, inserted from `make()` first when there is none.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key, make()));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// Removes `key`'s entry; its value.
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.remove_entry(key).map(|(_, v)| v)
    }

    /// Removes `key`'s entry; the entry.
    pub fn remove_entry<Q>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| self.entries.remove(i))
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    /// As `BTreeMap` collects: in key order, and of equal keys the last value wins.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = VecMap::new();
        map.extend(iter);
        map
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    /// As inserting each entry in turn (a later value for a key replaces an earlier one), in
    /// one sort: the entries come from a peer's object (a prompt's arguments, a completion's
    /// context) in the order it wrote them, and inserting them one by one in descending order
    /// moved every entry each time (300,000 of them: minutes).
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        self.entries.extend(iter);
        // Stable: of equal keys, the later entry comes later; its value is the one kept.
        sort_by(&mut self.entries, |a, b| a.0.cmp(&b.0));
        self.entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                std::mem::swap(&mut later.1, &mut kept.1);
            }
            same
        });
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

/// A set ordered by value, kept as a sorted vector (see the [module](self)). Its methods are
/// those of `BTreeSet` that the engine uses, with the same meaning.
#[derive(Clone, PartialEq, Eq)]
pub struct VecSet<T> {
    items: Vec<T>,
}

impl<T> Default for VecSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for VecSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.items.iter()).finish()
    }
}

impl<T> VecSet<T> {
    /// An empty set (allocates nothing).
    pub const fn new() -> Self {
        VecSet { items: Vec::new() }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The values in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

impl<T: Ord> VecSet<T> {
    /// Whether `value` is in the set.
    pub fn contains<Q>(&self, value: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.items
            .binary_search_by(|t| t.borrow().cmp(value))
            .is_ok()
    }

    /// Adds `value`; false when it was already there (the set is unchanged).
    pub fn insert(&mut self, value: T) -> bool {
        match self.items.binary_search(&value) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, value);
                true
            }
        }
    }

    /// Removes `value`; whether it was there.
    pub fn remove<Q>(&mut self, value: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        match self.items.binary_search_by(|t| t.borrow().cmp(value)) {
            Ok(i) => {
                self.items.remove(i);
                true
            }
            Err(_) => false,
        }
    }
}

impl<T: Ord> FromIterator<T> for VecSet<T> {
    /// As inserting each value in turn (the first of equal ones is kept), in one sort: a
    /// peer's list (a stream's resource URIs, its task ids) inserted one by one in descending
    /// order moved every value each time (100,000 URIs: 2.9 s natively).
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut items: Vec<T> = iter.into_iter().collect();
        sort_by(&mut items, T::cmp);
        items.dedup();
        VecSet { items }
    }
}

impl<T> IntoIterator for VecSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a VecSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// Values under numbers it hands out: [`insert`](Self::insert) takes the first number from a
/// cursor that no live value holds (wrapping past `u32::MAX`) and moves the cursor past it, so
/// a number is not handed out again while its value lives, nor soon after it was removed. For
/// things a JS callback names by number (a running call's options object, a promise waited
/// for).
///
/// ```
/// use modelcontext_polyfill::collections::Numbered;
///
/// let mut waits: Numbered<&str> = Numbered::new();
/// let a = waits.insert("a");
/// let b = waits.insert("b");
/// assert_ne!(a, b);
/// assert_eq!(waits.remove(a), Some("a"));
/// assert_ne!(waits.insert("c"), a); // not handed out again at once
/// assert_eq!(waits.get(b), Some(&"b"));
/// ```
#[derive(Debug)]
pub struct Numbered<V> {
    live: VecMap<u32, V>,
    next: u32,
}

impl<V> Default for Numbered<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> Numbered<V> {
    /// None yet (allocates nothing).
    pub const fn new() -> Self {
        Numbered {
            live: VecMap::new(),
            next: 0,
        }
    }

    /// Keeps `value` under a number no live value holds; the number.
    #[inline]
    pub fn insert(&mut self, value: V) -> u32 {
        let mut n = self.next;
        while self.live.contains_key(&n) {
            n = n.wrapping_add(1);
        }
        self.next = n.wrapping_add(1);
        self.live.insert(n, value);
        n
    }

    /// The value under `n`.
    #[inline]
    pub fn get(&self, n: u32) -> Option<&V> {
        self.live.get(&n)
    }

    /// The value under `n`, to change.
    #[inline]
    pub fn get_mut(&mut self, n: u32) -> Option<&mut V> {
        self.live.get_mut(&n)
    }

    /// Removes the value under `n`; the value.
    #[inline]
    pub fn remove(&mut self, n: u32) -> Option<V> {
        self.live.remove(&n)
    }
}

/// Sorts `items` stably by `cmp`, as `slice::sort_by` does, with one sorting routine shared by
/// every element type: it sorts positions, then swaps the items into their order, so what each
/// element type instantiates is a comparison and a loop of swaps.
pub fn sort_by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    for (a, b) in sorting_swaps(items.len(), &|a, b| cmp(&items[a], &items[b])) {
        items.swap(a, b);
    }
}

/// The swaps that put `len` items in the stable order `cmp` (of their positions) gives, done
/// in turn.
#[inline(never)]
fn sorting_swaps(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<(usize, usize)> {
    // `order[k]`: the position of the item that belongs at `k`.
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    // Each cycle of the permutation, followed from its first position: that position takes
    // the item that belongs there, the item it held moves on to the next, until the cycle
    // closes. A position done is marked by pointing at itself.
    let mut swaps = Vec::new();
    for start in 0..len {
        let mut k = start;
        while order[k] != k {
            let next = order[k];
            order[k] = k;
            if next != start {
                swaps.push((k, next));
            }
            k = next;
        }
    }
    swaps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn map_agrees_with_btreemap_over_random_operations() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut ours: VecMap<String, u64> = VecMap::new();
        let mut std_map: BTreeMap<String, u64> = BTreeMap::new();
        for step in 0..20_000u64 {
            let key = format!("k{}", rng.next() % 300);
            match rng.next() % 6 {
                0 | 1 => assert_eq!(ours.insert(key.clone(), step), std_map.insert(key, step)),
                2 => assert_eq!(ours.remove(key.as_str()), std_map.remove(key.as_str())),
                3 => assert_eq!(ours.get(key.as_str()), std_map.get(key.as_str())),
                4 => {
                    *ours.get_or_insert_with(key.clone(), || step) += 1;
                    *std_map.entry(key).or_insert(step) += 1;
                }
                _ => {
                    let cut = rng.next() % 7;
                    ours.retain(|_, v| *v % 7 != cut);
                    std_map.retain(|_, v| *v % 7 != cut);
                }
            }
            assert_eq!(ours.len(), std_map.len());
        }
        assert!(ours.iter().eq(std_map.iter()));
        assert_eq!(ours.first_key_value(), std_map.first_key_value());
    }

    #[test]
    fn set_agrees_with_btreeset_over_random_operations() {
        let mut rng = Rng(42);
        let mut ours: VecSet<u64> = VecSet::new();
        let mut std_set: BTreeSet<u64> = BTreeSet::new();
        for _ in 0..20_000 {
            let v = rng.next() % 500;
            match rng.next() % 3 {
                0 => assert_eq!(ours.insert(v), std_set.insert(v)),
                1 => assert_eq!(ours.remove(&v), std_set.remove(&v)),
                _ => assert_eq!(ours.contains(&v), std_set.contains(&v)),
            }
        }
        assert!(ours.iter().eq(std_set.iter()));
    }

    #[test]
    fn sort_by_is_stable_and_agrees_with_the_standard_sort() {
        let mut rng = Rng(7);
        for len in [0usize, 1, 2, 3, 17, 200, 1_000] {
            let items: Vec<(u64, usize)> = (0..len).map(|i| (rng.next() % 10, i)).collect();
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut expected = items;
            expected.sort_by_key(|e| e.0); // stable: equal keys keep their order
            assert_eq!(ours, expected);
        }
    }

    #[test]
    fn collecting_keeps_the_last_of_equal_keys_in_key_order() {
        let pairs = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)];
        let ours: VecMap<&str, i32> = pairs.into_iter().collect();
        let std_map: BTreeMap<&str, i32> = pairs.into_iter().collect();
        assert!(ours.iter().eq(std_map.iter()));
        assert_eq!(
            ours.into_iter().collect::<Vec<_>>(),
            [("a", 5), ("b", 3), ("c", 4)]
        );
    }

    /// Collecting and extending, done in one sort, equal inserting one value at a time, on
    /// random lists with many repeats (which of equal keys keeps its value, which equal value
    /// stays), in any order.
    #[test]
    fn collecting_equals_inserting_one_at_a_time() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for round in 0..2_000 {
            let len = rng.below(60);
            let keys = 1 + rng.below(40);
            let pairs: Vec<(u64, usize)> =
                (0..len).map(|i| ((rng.below(keys)) as u64, i)).collect();
            let mut start: VecMap<u64, usize> = VecMap::new();
            for i in 0..rng.below(20) {
                start.insert(rng.below(keys) as u64, 1_000 + i);
            }
            let mut one_by_one = start.clone();
            for &(k, v) in &pairs {
                one_by_one.insert(k, v);
            }
            let mut extended = start;
            extended.extend(pairs.iter().copied());
            assert!(extended.iter().eq(one_by_one.iter()), "round {round}");
            let collected: VecMap<u64, usize> = pairs.iter().copied().collect();
            let std_map: BTreeMap<u64, usize> = pairs.iter().copied().collect();
            assert!(collected.iter().eq(std_map.iter()), "round {round}");
            // Values equal by order but told apart by their second field: the first stays.
            #[derive(Clone, Copy, Debug)]
            struct Tagged(u64, usize);
            impl PartialEq for Tagged {
                fn eq(&self, o: &Self) -> bool {
                    self.0 == o.0
                }
            }
            impl Eq for Tagged {}
            impl PartialOrd for Tagged {
                fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
                    Some(self.cmp(o))
                }
            }
            impl Ord for Tagged {
                fn cmp(&self, o: &Self) -> Ordering {
                    self.0.cmp(&o.0)
                }
            }
            let tagged: Vec<Tagged> = pairs.iter().map(|&(k, v)| Tagged(k, v)).collect();
            let mut inserted = VecSet::new();
            for &t in &tagged {
                inserted.insert(t);
            }
            let set: VecSet<Tagged> = tagged.into_iter().collect();
            let firsts = |s: &VecSet<Tagged>| s.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>();
            assert_eq!(firsts(&set), firsts(&inserted), "round {round}");
        }
        // 300,000 values in descending order: each insertion one by one moved all the others.
        let set: VecSet<u64> = (0..300_000u64).rev().chain(0..10).collect();
        assert_eq!(set.len(), 300_000);
        assert!(set.iter().copied().eq(0..300_000u64));
    }

    #[test]
    fn numbers_wrap_past_the_last_and_skip_live_ones() {
        let mut live: Numbered<u32> = Numbered::new();
        live.next = u32::MAX - 1;
        let held = live.insert(0); // u32::MAX - 1
        assert_eq!(live.insert(1), u32::MAX);
        live.next = u32::MAX - 1; // the cursor comes round to a live number
        assert_eq!(live.insert(2), 0, "skips the two live numbers and wraps");
        assert_eq!(live.get(held), Some(&0));
        assert_eq!(live.remove(held), Some(0));
        live.next = u32::MAX - 1;
        assert_eq!(live.insert(3), held, "a removed number is free again");
    }
}

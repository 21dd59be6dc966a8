//! `pattern`, when the engine can check it itself.
//!
//! A JSON Schema `pattern` is an ECMA-262 regular expression. The validator module checks any of
//! them with the `jsonschema` crate, which translates the pattern to the `regex` crate's syntax
//! (`\d` and `\w` as ASCII classes, `\s` as ECMA-262's white space and line terminators, `.` as
//! any character but a line feed) and runs it in linear time. A page's own `RegExp` is no
//! substitute: it backtracks, so an agent's string could hold the page. The patterns most tool
//! schemas have (zod's `uuid`, `email`, `datetime`, `ipv4`…, a `regex()` of letters, digits and
//! ranges) use a small part of the syntax, and the engine checks those itself: [`Pattern::new`]
//! parses a pattern written in the subset below into a tree, and the first string checked
//! compiles it to a program of a few kinds of instructions that [`Pattern::is_match`] runs over
//! the string once, all its threads in step (Thompson's construction, Pike's simulation): time
//! proportional to the program's size times the string's length, whatever the pattern.
//!
//! The subset, where the `jsonschema` crate's reading and this one agree:
//!
//! - literal characters (but `\ ^ $ . | ? * + ( ) [ ] { }`, which must be escaped), `.`, `^`, `$`;
//! - groups `( … )` and `(?: … )` (at most [`MAX_NESTING`] deep), alternatives `|`;
//! - quantifiers `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each perhaps lazy (`?`, the same for a
//!   yes-or-no answer); counts up to [`MAX_COUNT`], and the pattern's size with its counts
//!   multiplied out at most [`MAX_WEIGHT`];
//! - the escapes `\d \D \w \W \s \S`, `\n \r \t \f \v`, `\xHH`, `\uHHHH` (not a surrogate) and
//!   `\` before one of `^ $ \ . * + ? ( ) [ ] { } | / -`;
//! - classes `[ … ]` and `[^ … ]` of characters, ranges and `\d \w \s`.
//!
//! Not in it (the validator's): lookarounds, backreferences, named groups, `\b`, `\p{…}`,
//! `\cX`, `\0`, inline flags, an empty class, a `[` or `&&`, `--`, `~~` in a class, a `{` that
//! starts no quantifier, a lone `]` or `}`: [`Pattern::new`] gives `None`.
//!
//! The program is made when a string is first checked, not when the schema is compiled: a page
//! registers its tools before the engine's deferred module (which holds the compiler and the
//! simulation) has arrived, and calls wait for it anyway. The program replaces the tree, and
//! keeps the thread sets the simulation runs with, sized by it, from one string to the next.
//!
//! `tests/plain_schema.rs` checks every accepted pattern of the JSON-Schema-Test-Suite and a
//! corpus against the validator, string by string.

use std::sync::{Mutex, PoisonError};

/// How deeply groups may nest.
pub const MAX_NESTING: usize = 16;

/// The largest count a quantifier may have.
pub const MAX_COUNT: u32 = 1_000;

/// The largest size of a pattern, counting each atom once and multiplying by the counts of
/// the quantifiers around it: a bound on the program's length, so on the time a string takes
/// (zod's longest, an IPv6 address, weighs about 400).
pub const MAX_WEIGHT: u64 = 1_000;

/// ECMA-262's `\s`: its WhiteSpace (TAB, VT, FF, ZWNBSP and the space separators, Zs) and its
/// LineTerminators (LF, CR, LS, PS).
const SPACE: &[(char, char)] = &[
    ('\u{9}', '\u{d}'),
    (' ', ' '),
    ('\u{a0}', '\u{a0}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{2000}', '\u{200a}'),
    ('\u{2028}', '\u{2029}'),
    ('\u{202f}', '\u{202f}'),
    ('\u{205f}', '\u{205f}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{feff}', '\u{feff}'),
];
const DIGIT: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];

/// A pattern, parsed.
enum Node {
    /// One character of a set (`negated`: any character not in it).
    Set {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
    /// `.`: any character but a line feed.
    Dot,
    /// `^`, `$`.
    Start,
    End,
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    /// `min` to `max` (`None`: any number) of the node.
    Repeat(Box<Node>, u32, Option<u32>),
}

/// One instruction of a program.
enum Inst {
    /// Consumes one character of the set (or, `negated`, not in it).
    Set(Vec<(char, char)>, bool),
    /// Consumes any character but a line feed.
    Dot,
    /// Goes on only at the start (`true`) or the end of the string.
    Assert(bool),
    /// Goes on at both.
    Split(usize, usize),
    Jump(usize),
    Match,
}

/// A `pattern` the engine checks itself.
pub struct Pattern {
    /// As written (a violation's message quotes it).
    pub source: String,
    state: Mutex<State>,
}

/// A pattern's tree until a string is checked; then its program.
enum State {
    Parsed(Node),
    Compiled(Matcher),
}

/// A program and what its runs use: two thread sets and a stack, each sized by the program.
struct Matcher {
    program: Vec<Inst>,
    /// Whether every match starts at the string's start (`^…`, `^a|^b`): then no thread starts
    /// past it, and the run ends when its threads have.
    anchored: bool,
    now: Threads,
    next: Threads,
    stack: Vec<usize>,
}

impl Pattern {
    /// `source` as a pattern the engine checks, or `None` if it is the validator's.
    pub fn new(source: &str) -> Option<Pattern> {
        let mut p = Parser {
            chars: source.chars().collect(),
            at: 0,
        };
        let (tree, weight) = p.disjunction(0)?;
        if p.at != p.chars.len() || weight > MAX_WEIGHT {
            return None;
        }
        Some(Pattern {
            source: source.to_owned(),
            state: Mutex::new(State::Parsed(tree)),
        })
    }

    /// Whether `s` matches (anywhere in it, as a JSON Schema pattern does).
    pub fn is_match(&self, s: &str) -> bool {
        // (A run leaves nothing half done that the next would read: a poisoned lock is as good.)
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let State::Parsed(tree) = &*state {
            let matcher = Matcher::new(tree);
            *state = State::Compiled(matcher);
        }
        match &mut *state {
            State::Compiled(matcher) => matcher.run(s),
            State::Parsed(_) => false, // (compiled above)
        }
    }
}

/// Whether a match of `node` can only start at the string's start.
fn anchored(node: &Node) -> bool {
    match node {
        Node::Start => true,
        Node::Concat(nodes) => nodes.first().is_some_and(anchored),
        Node::Alt(nodes) => nodes.iter().all(anchored),
        _ => false,
    }
}

/// Appends the instructions of `node` to `program`.
fn emit(node: &Node, program: &mut Vec<Inst>) {
    match node {
        Node::Set { ranges, negated } => program.push(Inst::Set(ranges.clone(), *negated)),
        Node::Dot => program.push(Inst::Dot),
        Node::Start => program.push(Inst::Assert(true)),
        Node::End => program.push(Inst::Assert(false)),
        Node::Concat(nodes) => nodes.iter().for_each(|n| emit(n, program)),
        Node::Alt(nodes) => {
            // split L1, next; L1: a; jump end; next: split L2, next2; … last
            let mut jumps = Vec::new();
            for (i, n) in nodes.iter().enumerate() {
                if i + 1 == nodes.len() {
                    emit(n, program);
                } else {
                    let split = program.len();
                    program.push(Inst::Split(split + 1, 0));
                    emit(n, program);
                    jumps.push(program.len());
                    program.push(Inst::Jump(0));
                    let next = program.len();
                    program[split] = Inst::Split(split + 1, next);
                }
            }
            let end = program.len();
            for j in jumps {
                program[j] = Inst::Jump(end);
            }
        }
        Node::Repeat(n, min, max) => {
            for _ in 0..*min {
                emit(n, program);
            }
            match max {
                // L: split body, out; body; jump L; out:
                None => {
                    let split = program.len();
                    program.push(Inst::Split(split + 1, 0));
                    emit(n, program);
                    program.push(Inst::Jump(split));
                    let out = program.len();
                    program[split] = Inst::Split(split + 1, out);
                }
                // (n(n(n)?)?)? for what is left: each optional copy skips to the end.
                Some(max) => {
                    let mut splits = Vec::new();
                    for _ in *min..*max {
                        splits.push(program.len());
                        program.push(Inst::Split(0, 0));
                        emit(n, program);
                    }
                    let out = program.len();
                    for s in splits {
                        program[s] = Inst::Split(s + 1, out);
                    }
                }
            }
        }
    }
}

impl Matcher {
    /// The program of `tree`.
    fn new(tree: &Node) -> Matcher {
        let mut program = Vec::new();
        emit(tree, &mut program);
        program.push(Inst::Match);
        let n = program.len();
        Matcher {
            program,
            anchored: anchored(tree),
            now: Threads::new(n),
            next: Threads::new(n),
            stack: Vec::new(),
        }
    }

    /// Whether the program matches somewhere in `s`: every thread advanced one character at a
    /// time, a new one started at each position (at the first only, when anchored), each
    /// instruction held by at most one thread.
    fn run(&mut self, s: &str) -> bool {
        let (program, anchored) = (&self.program, self.anchored);
        let (mut now, mut next) = (&mut self.now, &mut self.next);
        let stack = &mut self.stack;
        now.clear();
        let mut chars = s.chars();
        let mut at_start = true;
        loop {
            let c = chars.next();
            // A match may start here.
            if (at_start || !anchored) && add(program, now, stack, 0, at_start, c.is_none()) {
                return true;
            }
            let Some(c) = c else {
                return false;
            };
            if now.len == 0 {
                return false; // anchored, and every thread has ended
            }
            next.clear();
            for i in 0..now.len {
                let pc = now.dense[i];
                let step = match &program[pc] {
                    Inst::Set(ranges, negated) => {
                        ranges.iter().any(|&(a, b)| a <= c && c <= b) != *negated
                    }
                    Inst::Dot => c != '\n',
                    _ => false,
                };
                if step
                    && add(
                        program,
                        next,
                        stack,
                        pc + 1,
                        false,
                        chars.as_str().is_empty(),
                    )
                {
                    return true;
                }
            }
            std::mem::swap(&mut now, &mut next);
            at_start = false;
        }
    }
}

/// Adds the thread at `pc` and every one it reaches without consuming a character (`start`,
/// `end`: whether the position is the string's start or end); whether one of them matched.
fn add(
    program: &[Inst],
    set: &mut Threads,
    stack: &mut Vec<usize>,
    pc: usize,
    start: bool,
    end: bool,
) -> bool {
    stack.push(pc);
    while let Some(pc) = stack.pop() {
        if !set.insert(pc) {
            continue;
        }
        match program[pc] {
            Inst::Match => {
                stack.clear();
                return true;
            }
            Inst::Jump(to) => stack.push(to),
            Inst::Split(a, b) => {
                stack.push(b);
                stack.push(a);
            }
            Inst::Assert(at_start) => {
                if if at_start { start } else { end } {
                    stack.push(pc + 1);
                }
            }
            Inst::Set(..) | Inst::Dot => {}
        }
    }
    false
}

/// A set of instruction indices, cleared in constant time (a sparse set).
struct Threads {
    dense: Vec<usize>,
    sparse: Vec<usize>,
    len: usize,
}

impl Threads {
    fn new(n: usize) -> Threads {
        Threads {
            dense: vec![0; n],
            sparse: vec![0; n],
            len: 0,
        }
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds `pc`; `false` if it was there.
    fn insert(&mut self, pc: usize) -> bool {
        let i = self.sparse[pc];
        if i < self.len && self.dense[i] == pc {
            return false;
        }
        self.sparse[pc] = self.len;
        self.dense[self.len] = pc;
        self.len += 1;
        true
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// The next character, read.
    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        let yes = self.peek() == Some(c);
        if yes {
            self.at += 1;
        }
        yes
    }

    /// Alternatives separated by `|`, and their weight.
    fn disjunction(&mut self, depth: usize) -> Option<(Node, u64)> {
        let (first, mut weight) = self.alternative(depth)?;
        let mut alternatives = vec![first];
        while self.eat('|') {
            let (next, w) = self.alternative(depth)?;
            alternatives.push(next);
            weight += w;
        }
        Some((single_or(alternatives, Node::Alt), weight))
    }

    /// Terms up to a `|`, a `)` or the end, and their weight.
    fn alternative(&mut self, depth: usize) -> Option<(Node, u64)> {
        let mut terms = Vec::new();
        let mut weight = 0u64;
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            self.at += 1;
            let (atom, w) = match c {
                '^' | '$' => {
                    terms.push(if c == '^' { Node::Start } else { Node::End });
                    if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
                        return None; // a quantified assertion
                    }
                    continue;
                }
                '.' => (Node::Dot, 1),
                '(' => {
                    if depth >= MAX_NESTING || self.eat('?') && !self.eat(':') {
                        return None; // too deep; lookarounds, named groups, flags
                    }
                    let inner = self.disjunction(depth + 1)?;
                    if !self.eat(')') {
                        return None;
                    }
                    inner
                }
                '[' => (self.class()?, 1),
                '\\' => (self.escape()?, 1),
                '*' | '+' | '?' | '{' | '}' | ']' => return None,
                c => (one(c), 1),
            };
            let (node, w) = self.quantifier(atom, w)?;
            terms.push(node);
            weight += w;
        }
        Some((single_or(terms, Node::Concat), weight))
    }

    /// `atom` (of weight `weight`) with the quantifier that follows it, if one does, and the
    /// weight of the two.
    fn quantifier(&mut self, atom: Node, weight: u64) -> Option<(Node, u64)> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.at += 1;
                let min = self.count()?;
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(self.count()?)
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') || max.is_some_and(|m| m < min) {
                    return None;
                }
                (min, max)
            }
            _ => return Some((atom, weight)),
        };
        self.at += 1;
        self.eat('?'); // lazy: the same yes or no
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return None;
        }
        // Each copy the program holds (an unbounded repetition: its minimum and one more).
        // (The factors are at most MAX_WEIGHT + 1 and MAX_COUNT + 1: no overflow.)
        let copies = u64::from(max.unwrap_or(min + 1).max(1));
        let weight = weight.min(MAX_WEIGHT + 1) * copies;
        Some((Node::Repeat(Box::new(atom), min, max), weight))
    }

    /// A quantifier's count: decimal digits, at most [`MAX_COUNT`].
    fn count(&mut self) -> Option<u32> {
        let start = self.at;
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n * 10 + d;
            if n > MAX_COUNT {
                return None;
            }
            self.at += 1;
        }
        (self.at > start).then_some(n)
    }

    /// An escape outside a class (after its `\`).
    fn escape(&mut self) -> Option<Node> {
        let c = self.next()?;
        Some(match perl_class(c) {
            Some(ranges) => Node::Set {
                ranges: ranges.to_vec(),
                negated: c.is_ascii_uppercase(),
            },
            None => one(self.character_escape(c)?),
        })
    }

    /// The character an escape (after its `\`, whose first character `c` was read) stands for,
    /// when it is one of the subset's: the control escapes, `\xHH`, `\uHHHH` and the syntax
    /// characters, `/` and `-`.
    fn character_escape(&mut self, c: char) -> Option<char> {
        match c {
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            'x' => self.hex(2),
            'u' => self.hex(4),
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' | '-' => Some(c),
            _ => None,
        }
    }

    /// `digits` hex digits as a character (a surrogate is none).
    fn hex(&mut self, digits: usize) -> Option<char> {
        let mut n = 0u32;
        for _ in 0..digits {
            n = n * 16 + self.next()?.to_digit(16)?;
        }
        char::from_u32(n)
    }

    /// A class (after its `[`).
    fn class(&mut self) -> Option<Node> {
        let negated = self.eat('^');
        // An empty class (`[]`, `[^]`) means something else in each engine.
        if self.peek() == Some(']') {
            return None;
        }
        let mut ranges = Vec::new();
        loop {
            let c = self.next()?;
            let first = match c {
                ']' => break,
                '[' => return None,
                '\\' => {
                    let e = self.next()?;
                    match perl_class(e) {
                        // (A negated one in a class is the validator's.)
                        Some(set) if e.is_ascii_lowercase() => {
                            // A range cannot start at a class escape.
                            if self.peek() == Some('-') && self.chars.get(self.at + 1) != Some(&']')
                            {
                                return None;
                            }
                            ranges.extend_from_slice(set);
                            continue;
                        }
                        Some(_) => return None,
                        None => self.character_escape(e)?,
                    }
                }
                // `&&`, `--` and `~~` are operators in the crate's syntax.
                '&' | '-' | '~' if self.peek() == Some(c) => return None,
                _ => c,
            };
            // A range, unless the `-` is the class's last character.
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|&n| n != ']') {
                self.at += 1; // the `-`
                let last = match self.next()? {
                    '[' => return None,
                    '\\' => {
                        let e = self.next()?;
                        self.character_escape(e)?
                    }
                    last => last,
                };
                if last < first {
                    return None;
                }
                ranges.push((first, last));
            } else {
                ranges.push((first, first));
            }
        }
        Some(Node::Set { ranges, negated })
    }
}

/// The ranges of `\d`, `\w`, `\s` (and their negations) after a `\`.
fn perl_class(c: char) -> Option<&'static [(char, char)]> {
    match c.to_ascii_lowercase() {
        'd' => Some(DIGIT),
        'w' => Some(WORD),
        's' => Some(SPACE),
        _ => None,
    }
}

/// The one node of `nodes`, or all of them made one by `join`.
fn single_or(mut nodes: Vec<Node>, join: fn(Vec<Node>) -> Node) -> Node {
    match nodes.len() {
        1 => nodes.pop().unwrap_or(Node::Concat(Vec::new())),
        _ => join(nodes),
    }
}

fn one(c: char) -> Node {
    Node::Set {
        ranges: vec![(c, c)],
        negated: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        Pattern::new(p)
            .unwrap_or_else(|| panic!("{p} not accepted"))
            .is_match(s)
    }

    #[test]
    fn matches_as_ecma_262_reads_the_subset() {
        assert!(m("^[a-z]+$", "abc") && !m("^[a-z]+$", "abC") && !m("^[a-z]+$", ""));
        assert!(m(r"^\d{3}-\d{4}$", "555-1234") && !m(r"^\d{3}-\d{4}$", "555-123"));
        assert!(m("b", "abc") && !m("^b", "abc") && m("c$", "abc") && !m("b$", "abc"));
        assert!(m("^(?:red|green)$", "green") && !m("^(?:red|green)$", "redgreen"));
        assert!(m("^a{2,3}$", "aaa") && !m("^a{2,3}$", "aaaa") && m("^a{2,}$", "aaaaa"));
        assert!(m("^.$", "é") && !m("^.$", "\n") && m("^.$", "\r"));
        assert!(m(r"^\s$", "\u{3000}") && !m(r"^\s$", "\u{85}") && m(r"^\S$", "\u{85}"));
        assert!(m(r"^[^\d\s]+$", "ab") && !m(r"^[^\d\s]+$", "a b"));
        assert!(m(r"^[\w-]+$", "a-b_1") && !m(r"^[\w-]+$", "é"));
        assert!(m(r"^\u00e9\x41\/$", "éA/") && m("^[😀-😂]$", "😁"));
        assert!(m("", "") && m("x*", "") && m("^(|a)b$", "b") && m("^(a*)*$", "aaa"));
    }

    #[test]
    fn leaves_the_rest_to_the_validator() {
        for p in [
            r"(?=a)",
            r"(?!a)",
            r"(?<=a)",
            r"(?<n>a)",
            r"(a)\1",
            r"\bword",
            r"\p{L}",
            r"\cA",
            r"\0",
            "[]",
            "[^]",
            "[[a]",
            "[a&&b]",
            "[a--b]",
            "[z-a]",
            r"[\d-z]",
            r"[\D]",
            "a{",
            "a}",
            "]",
            "*a",
            "a**",
            "^*",
            "a{1001}",
            "a{3,2}",
            r"\ud800",
            r"\q",
            "(a",
            "a)",
            "((((((((((((((((((a))))))))))))))))))",
            "(a{100}){41}",
        ] {
            assert!(Pattern::new(p).is_none(), "{p} should be the validator's");
        }
    }

    #[test]
    fn each_string_starts_afresh() {
        // The thread sets are kept from one string to the next: a run that ends with threads
        // left ("a": one waits for a "b") or matches early must leave none to the next.
        let p = Pattern::new("^ab$").unwrap();
        assert!(!p.is_match("a") && !p.is_match("b") && p.is_match("ab") && !p.is_match("b"));
        let p = Pattern::new("a(b|c)").unwrap();
        assert!(p.is_match("xab") && !p.is_match("bc") && !p.is_match("c") && p.is_match("ac"));
    }

    #[test]
    fn runs_in_linear_time() {
        let p = Pattern::new("^(a+)+$").unwrap();
        assert!(!p.is_match(&format!("{}!", "a".repeat(10_000))));
        assert!(p.is_match("aaa"));
        let p = Pattern::new("a+b").unwrap();
        assert!(!p.is_match(&"a".repeat(100_000)));
        assert!(p.is_match("xxaab"));
    }
}

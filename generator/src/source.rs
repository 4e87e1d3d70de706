//! Input documents as text, and the index from JSON pointers to `line:column` that diagnostics
//! use, built on a second thread while the text is parsed.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Map, Value};

/// The syntax a document is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// YAML (1.2; dates stay strings).
    Yaml,
}

/// One input file.
#[derive(Debug)]
pub struct Source {
    /// Where it was read from, as given.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Its syntax.
    pub format: Format,
    positions: OnceLock<Positions>,
}

/// A syntax error with its position (1-based line and column).
#[derive(Debug)]
pub struct SyntaxError {
    /// What the parser said.
    pub message: String,
    /// 1-based line and column, when known.
    pub position: Option<(usize, usize)>,
}

impl Source {
    /// Wraps text read from `path`; the format comes from the extension, then the first
    /// non-blank character (`{` or `[` means JSON).
    pub fn new(path: &Path, text: String) -> Self {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let format = match ext.to_ascii_lowercase().as_str() {
            "json" => Format::Json,
            "yaml" | "yml" => Format::Yaml,
            _ if text.trim_start().starts_with(['{', '[']) => Format::Json,
            _ => Format::Yaml,
        };
        Self {
            path: path.to_path_buf(),
            text,
            format,
            positions: OnceLock::new(),
        }
    }

    /// Parses the text into JSON. YAML mapping keys become strings; YAML dates and times stay
    /// strings.
    pub fn parse(&self) -> Result<Value, SyntaxError> {
        // The position index costs less than the parse (GHES's JSON: 19 ms beside 25 ms;
        // Stripe's YAML: about 0.1 s each) and nearly every large description gets located
        // diagnostics (pagination rules, untagged operations, long descriptions), so it is
        // built on a second thread meanwhile.
        std::thread::scope(|scope| {
            scope.spawn(|| self.positions());
            match self.format {
                Format::Json => serde_json::from_str(&self.text).map_err(|e| SyntaxError {
                    message: strip_position(&e.to_string()),
                    position: Some((e.line(), e.column())),
                }),
                Format::Yaml => yaml_serde::from_str::<YamlJson>(&self.text)
                    .map(|YamlJson(value)| value)
                    .map_err(|e| SyntaxError {
                        message: strip_position(&e.to_string()),
                        position: e.location().map(|l| (l.line(), l.column())),
                    }),
            }
        })
    }

    fn positions(&self) -> &Positions {
        self.positions.get_or_init(|| match self.format {
            Format::Json => json_positions(&self.text),
            Format::Yaml => yaml_positions(&self.text),
        })
    }

    /// The 1-based line and column of the value at `pointer`, or of its closest ancestor
    /// that has one.
    pub fn position(&self, pointer: &str) -> Option<(usize, usize)> {
        Some(self.positions().find(pointer))
    }
}

/// Where every member key and array element of a document is: a tree of nodes, each found from
/// its parent by its pointer segment (the key, or the element's index in decimal). Keeping one
/// segment per node, rather than each node's whole pointer as a key, makes the index a few
/// times cheaper to build (GHES: 79,000 nodes in 19 ms).
#[derive(Debug)]
struct Positions {
    /// Node 0 is the root value.
    nodes: Vec<Node>,
    /// Every node's segment, one after another.
    segments: String,
    /// The hash of (parent, segment) → node.
    children: HashMap<u64, usize, BuildHasherDefault<rustc_hash::FxHasher>>,
    /// The nodes whose (parent, segment) hash the same as an earlier sibling's: few or none.
    clashes: HashMap<(usize, String), usize>,
}

#[derive(Debug)]
struct Node {
    parent: usize,
    /// Where the node's segment is in [`Positions::segments`].
    segment: std::ops::Range<usize>,
    /// 1-based line and column.
    at: (usize, usize),
}

impl Positions {
    /// An index of the root alone, at 1:1 until the scanner finds where its value starts.
    fn new() -> Self {
        let root = Node {
            parent: 0,
            segment: 0..0,
            at: (1, 1),
        };
        Self {
            nodes: vec![root],
            segments: String::new(),
            children: HashMap::default(),
            clashes: HashMap::new(),
        }
    }

    fn key(parent: usize, segment: &str) -> u64 {
        BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one((parent, segment))
    }

    fn segment(&self, node: usize) -> &str {
        &self.segments[self.nodes[node].segment.clone()]
    }

    /// Adds the child `segment` of `parent`, at `at`; a repeated key is found at its last
    /// occurrence, as the parsed value keeps the last one.
    fn add(&mut self, parent: usize, segment: &str, at: (usize, usize)) -> usize {
        let node = self.nodes.len();
        let start = self.segments.len();
        self.segments.push_str(segment);
        self.nodes.push(Node {
            parent,
            segment: start..self.segments.len(),
            at,
        });
        let key = Self::key(parent, segment);
        match self.children.get(&key) {
            Some(&other)
                if self.nodes[other].parent != parent || self.segment(other) != segment =>
            {
                self.clashes.insert((parent, segment.to_string()), node);
            }
            _ => {
                self.children.insert(key, node);
            }
        }
        node
    }

    /// The child `segment` of `parent`, if there is one.
    fn child(&self, parent: usize, segment: &str) -> Option<usize> {
        let node = *self.children.get(&Self::key(parent, segment))?;
        if self.nodes[node].parent == parent && self.segment(node) == segment {
            return Some(node);
        }
        self.clashes.get(&(parent, segment.to_string())).copied()
    }

    /// The position of the value at `pointer`, or of its closest ancestor that has one.
    fn find(&self, pointer: &str) -> (usize, usize) {
        let mut node = 0;
        let segments = pointer.strip_prefix('/').map(|p| p.split('/'));
        for segment in segments.into_iter().flatten() {
            let segment = harness_gen_contract::schema::unescape(segment);
            match self.child(node, &segment) {
                Some(child) => node = child,
                None => break,
            }
        }
        self.nodes[node].at
    }
}

fn strip_position(message: &str) -> String {
    match message.find(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message.to_string(),
    }
}

/// A YAML document read straight into JSON: mapping keys become strings (a key that is itself
/// a mapping or a list is an error, located), tags are dropped, and integers keep their exact
/// value when it fits 64 bits and are JSON numbers (floating point) beyond (OpenAI's YAML says
/// `minimum: -9223372036854776000`, which YAML's own value type refuses).
struct YamlJson(Value);

impl<'de> serde::Deserialize<'de> for YamlJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(YamlJsonVisitor).map(YamlJson)
    }
}

struct YamlJsonVisitor;

impl<'de> serde::de::Visitor<'de> for YamlJsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_i128<E>(self, n: i128) -> Result<Value, E> {
        Ok(match (i64::try_from(n), u64::try_from(n)) {
            (Ok(n), _) => Value::from(n),
            (_, Ok(n)) => Value::from(n),
            _ => float(n as f64),
        })
    }

    fn visit_u128<E>(self, n: u128) -> Result<Value, E> {
        Ok(u64::try_from(n).map_or_else(|_| float(n as f64), Value::from))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(float(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(YamlJson(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(YamlJson(key)) = map.next_key()? {
            let key = match key {
                Value::String(s) => s,
                Value::Array(_) | Value::Object(_) => {
                    return Err(serde::de::Error::custom(
                        "a mapping key is itself a mapping or a list (a YAML `? ` complex key); OpenAPI keys are strings: write the key as a string",
                    ));
                }
                scalar => scalar.to_string(),
            };
            let YamlJson(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }

    /// A tagged value (`!Tag value`): the value.
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        use serde::de::VariantAccess;
        let (_tag, variant): (serde::de::IgnoredAny, _) = data.variant()?;
        variant
            .newtype_variant::<YamlJson>()
            .map(|YamlJson(value)| value)
    }
}

/// A JSON number for a float (`null` for NaN and infinities, which JSON has not).
fn float(n: f64) -> Value {
    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
}

/// The text of the key whose string (quotes included) spans `start..end`: its raw bytes when
/// it has no escapes (most keys), else decoded as JSON.
fn key_text(bytes: &[u8], start: usize, end: usize) -> std::borrow::Cow<'_, str> {
    let inside = &bytes[start + 1..end];
    let raw = inside.strip_suffix(b"\"").unwrap_or(inside);
    if !raw.contains(&b'\\') {
        return String::from_utf8_lossy(raw);
    }
    let quoted = format!("\"{}\"", String::from_utf8_lossy(raw));
    serde_json::from_str::<String>(&quoted)
        .unwrap_or_default()
        .into()
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// Past the string whose opening quote is at `at`.
fn skip_string(bytes: &[u8], mut at: usize) -> usize {
    at += 1;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => return at + 1,
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// Past the value that starts at `at`.
fn skip_value(bytes: &[u8], mut at: usize) -> usize {
    let mut depth = 0usize;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => {
                at = skip_string(bytes, at);
                if depth == 0 {
                    return at;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth <= 1 {
                    return at + usize::from(depth == 1);
                }
                depth -= 1;
            }
            b',' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return at,
            _ => {}
        }
        at += 1;
    }
    at
}

/// A line and column, moved forward over text.
#[derive(Clone, Copy)]
struct Cursor {
    at: usize,
    line: usize,
    col: usize,
}

impl Default for Cursor {
    fn default() -> Self {
        Self {
            at: 0,
            line: 1,
            col: 1,
        }
    }
}

impl Cursor {
    /// Moves to byte `to` of `bytes` (not backwards); the 1-based line and column there.
    fn moved(&mut self, bytes: &[u8], to: usize) -> (usize, usize) {
        let to = to.min(bytes.len()).max(self.at);
        for &b in &bytes[self.at..to] {
            if b == b'\n' {
                self.line += 1;
                self.col = 1;
            } else if b & 0xC0 != 0x80 {
                self.col += 1;
            }
        }
        self.at = to;
        (self.line, self.col)
    }
}

/// Positions of every member key and array element of a JSON text (assumed well-formed).
fn json_positions(text: &str) -> Positions {
    let mut scanner = JsonScanner {
        bytes: text.as_bytes(),
        cursor: Cursor::default(),
        out: Positions::new(),
    };
    scanner.out.nodes[0].at = scanner.skip_ws();
    scanner.value(0, 0);
    scanner.out
}

struct JsonScanner<'a> {
    bytes: &'a [u8],
    cursor: Cursor,
    out: Positions,
}

impl JsonScanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.cursor.at).copied()
    }

    /// Moves to byte `to`; the line and column there.
    fn to(&mut self, to: usize) -> (usize, usize) {
        self.cursor.moved(self.bytes, to)
    }

    /// Moves past whitespace; the line and column after it.
    fn skip_ws(&mut self) -> (usize, usize) {
        self.to(skip_ws(self.bytes, self.cursor.at))
    }

    /// Indexes the value at the cursor, node `node`'s.
    fn value(&mut self, node: usize, depth: usize) {
        self.skip_ws();
        match self.peek() {
            Some(b'{') if depth < 256 => {
                self.to(self.cursor.at + 1);
                loop {
                    let position = self.skip_ws();
                    match self.peek() {
                        Some(b'"') => {
                            let start = self.cursor.at;
                            let end = skip_string(self.bytes, start);
                            let key = key_text(self.bytes, start, end);
                            let child = self.out.add(node, &key, position);
                            self.to(end);
                            self.skip_ws();
                            if self.peek() == Some(b':') {
                                self.to(self.cursor.at + 1);
                            }
                            self.value(child, depth + 1);
                        }
                        Some(b',') => {
                            self.to(self.cursor.at + 1);
                        }
                        Some(b'}') => {
                            self.to(self.cursor.at + 1);
                            return;
                        }
                        _ => return,
                    }
                }
            }
            Some(b'[') if depth < 256 => {
                self.to(self.cursor.at + 1);
                let mut index = 0;
                loop {
                    let position = self.skip_ws();
                    match self.peek() {
                        Some(b',') => {
                            self.to(self.cursor.at + 1);
                        }
                        Some(b']') => {
                            self.to(self.cursor.at + 1);
                            return;
                        }
                        None => return,
                        Some(_) => {
                            let child = self.out.add(node, &index.to_string(), position);
                            self.value(child, depth + 1);
                            index += 1;
                        }
                    }
                }
            }
            Some(_) => {
                self.to(skip_value(self.bytes, self.cursor.at));
            }
            None => {}
        }
    }
}

/// Positions of every mapping key and sequence item of a YAML text, from the parser's events.
fn yaml_positions(text: &str) -> Positions {
    use saphyr_parser::{Event, Parser};

    /// An open collection: its node and, in a mapping, the node of the key read last (its
    /// value comes next).
    enum Frame {
        Mapping { node: usize, key: Option<usize> },
        Sequence { node: usize, index: usize },
    }

    let mut out = Positions::new();
    let mut stack: Vec<Frame> = Vec::new();
    for item in Parser::new_from_str(text) {
        let Ok((event, span)) = item else {
            break;
        };
        let here = (span.start.line(), span.start.col() + 1);
        let is_value = matches!(
            event,
            Event::Scalar(..)
                | Event::MappingStart(..)
                | Event::SequenceStart(..)
                | Event::Alias(_)
        );
        // Which node is this one?
        let mut this = 0;
        if is_value {
            match stack.last_mut() {
                None => out.nodes[0].at = here,
                Some(Frame::Mapping { node, key }) => match key.take() {
                    None => {
                        // This node is a key.
                        let name = match &event {
                            Event::Scalar(value, ..) => value.as_ref(),
                            _ => "",
                        };
                        let added = out.add(*node, name, here);
                        *key = Some(added);
                        if matches!(event, Event::MappingStart(..) | Event::SequenceStart(..)) {
                            // A complex key: its contents are under `?`.
                            this = out.add(*node, "?", here);
                        }
                    }
                    Some(key) => this = key,
                },
                Some(Frame::Sequence { node, index }) => {
                    this = out.add(*node, &index.to_string(), here);
                    *index += 1;
                }
            }
        }
        match event {
            Event::MappingStart(..) => stack.push(Frame::Mapping {
                node: this,
                key: None,
            }),
            Event::SequenceStart(..) => stack.push(Frame::Sequence {
                node: this,
                index: 0,
            }),
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                // A finished complex key leaves its mapping waiting for the value.
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Positions {
        /// The whole pointer of `node`.
        fn pointer(&self, node: usize) -> String {
            match node {
                0 => String::new(),
                _ => format!(
                    "{}/{}",
                    self.pointer(self.nodes[node].parent),
                    harness_gen_contract::schema::escape(self.segment(node))
                ),
            }
        }
    }

    #[test]
    fn siblings_whose_segments_hash_alike_are_both_found() {
        let mut map = Positions::new();
        let a = map.add(0, "a", (2, 1));
        // As if "b" hashed as "a" does under node 0: it goes to the clashes.
        let b = map.nodes.len();
        map.segments.push('b');
        map.nodes.push(Node {
            parent: 0,
            segment: 1..2,
            at: (3, 1),
        });
        map.clashes.insert((0, "b".to_string()), b);
        map.children.insert(Positions::key(0, "b"), a);
        assert_eq!(map.find("/a"), (2, 1));
        assert_eq!(map.find("/b"), (3, 1));
        assert_eq!(map.find("/c"), (1, 1));
    }

    #[test]
    fn a_repeated_key_is_found_where_it_is_last() {
        let s = source("a.json", "{\"a\": {\"b\": 1},\n \"a\": {\"c\": 2}}");
        assert_eq!(s.position("/a"), Some((2, 2)));
        assert_eq!(s.position("/a/c"), Some((2, 8)));
        assert_eq!(s.position("/a/b"), Some((2, 2)));
    }

    fn source(name: &str, text: &str) -> Source {
        Source::new(Path::new(name), text.to_string())
    }

    #[test]
    fn json_pointers_map_to_key_positions() {
        let s = source("a.json", "{\n  \"a\": {\"b/c\": [1,\n    {\"d\": 2}]}\n}");
        assert_eq!(s.position("/a"), Some((2, 3)));
        assert_eq!(s.position("/a/b~1c"), Some((2, 9)));
        assert_eq!(s.position("/a/b~1c/1/d"), Some((3, 6)));
        assert_eq!(s.position("/a/b~1c/1/d/missing"), Some((3, 6)));
    }

    #[test]
    fn every_member_and_element_of_a_json_text_is_found_by_its_pointer() {
        let text = "{\n  \"a\": {\"b/c\": [1, \"x,]}\\\"\",\n    {\"d\": 2, \"\\u00e9t\\u00e9\": [true, {}]}]},\n  \"\u{e9}\": null, \"z\": [[], {\"y\": \"}\"}]\n}";
        let map = json_positions(text);
        assert!(map.nodes.len() > 10, "{map:?}");
        for node in 0..map.nodes.len() {
            let pointer = map.pointer(node);
            assert_eq!(map.find(&pointer), map.nodes[node].at, "{pointer}");
        }
        assert_eq!(map.find("/a/b~1c/2/\u{e9}t\u{e9}/1"), (3, 38));
        assert_eq!(map.find("/\u{e9}"), (4, 3));
        assert_eq!(map.find("/z/1/y"), (4, 25));
        // A pointer that leads nowhere stops at its closest ancestor.
        assert_eq!(map.find("/a/b~1c/2/d/missing"), map.find("/a/b~1c/2/d"));
        assert_eq!(map.find("/a/b~1c/9"), map.find("/a/b~1c"));
        assert_eq!(map.find(""), (1, 1));
    }

    #[test]
    fn yaml_pointers_map_to_key_positions() {
        let s = source(
            "a.yaml",
            "openapi: 3.1.0\npaths:\n  /pets:\n    get:\n      tags: [a, b]\n",
        );
        assert_eq!(s.position("/paths"), Some((2, 1)));
        assert_eq!(s.position("/paths/~1pets/get"), Some((4, 5)));
        assert_eq!(s.position("/paths/~1pets/get/tags/1"), Some((5, 17)));
    }

    #[test]
    fn yaml_dates_stay_strings_and_keys_become_strings() {
        let s = source("a.yaml", "version: 2024-01-01\nresponses:\n  200: ok\n");
        let value = s.parse().unwrap();
        assert_eq!(value["version"], "2024-01-01");
        assert_eq!(value["responses"]["200"], "ok");
    }

    #[test]
    fn syntax_errors_have_positions() {
        let err = source("a.json", "{\n  \"a\": ,\n}").parse().unwrap_err();
        assert_eq!(err.position, Some((2, 8)));
        let err = source("a.yaml", "a: [1, 2\nb: c\n").parse().unwrap_err();
        assert!(err.position.is_some());
    }
}

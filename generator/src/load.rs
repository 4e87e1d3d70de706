//! Loading an OpenAPI document: reading and parsing it (JSON or YAML), recognizing its version,
//! loading the local files its `$ref`s name, and resolving references anywhere in them. Nothing
//! is ever fetched over the network.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::source::Source;

/// The OpenAPI minor version a document declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    /// 3.0.x: schemas are normalized to 2020-12 meaning.
    V3_0,
    /// 3.1.x.
    V3_1,
    /// 3.2.x, read where it is a superset of 3.1.
    V3_2,
}

/// A place in one of the loaded files.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    /// Index into the document's files (0 is the main document).
    pub file: usize,
    /// JSON pointer.
    pub pointer: String,
}

impl Loc {
    /// The main document at `pointer`.
    pub fn main(pointer: impl Into<String>) -> Self {
        Self {
            file: 0,
            pointer: pointer.into(),
        }
    }

    /// This location extended by one pointer segment.
    pub fn at(&self, segment: &str) -> Self {
        Self {
            file: self.file,
            pointer: format!(
                "{}/{}",
                self.pointer,
                harness_gen_contract::schema::escape(segment)
            ),
        }
    }
}

struct File {
    source: Source,
    root: Value,
}

/// A loaded document and the local files it references.
pub struct Document {
    files: Vec<File>,
    by_path: HashMap<PathBuf, usize>,
    /// The declared version.
    pub version: Version,
}

/// At most this many files are loaded through `$ref`s.
const MAX_FILES: usize = 256;
/// At most this many `$ref` hops are followed before a chain counts as a cycle.
const MAX_HOPS: usize = 64;

impl Document {
    /// Reads and parses `path`. Problems are added to `diags`; `None` means the document
    /// cannot be used at all.
    pub fn load(path: &Path, diags: &mut Diagnostics) -> Option<Document> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::from_text(path, text, diags),
            Err(error) => {
                diags.push(Diagnostic {
                    code: Code::Unreadable,
                    severity: Severity::Error,
                    file: path.display().to_string(),
                    pointer: String::new(),
                    position: None,
                    message: format!(
                        "cannot read the file ({error}): check the path and permissions"
                    ),
                });
                None
            }
        }
    }

    /// Like [`Document::load`], for text already read from `path` (references to other files
    /// are resolved next to `path`).
    pub fn from_text(path: &Path, text: String, diags: &mut Diagnostics) -> Option<Document> {
        let shown = path.display().to_string();
        let fatal = |code, position, message: String| Diagnostic {
            code,
            severity: Severity::Error,
            file: shown.clone(),
            pointer: String::new(),
            position,
            message,
        };
        let source = Source::new(path, text);
        let root = match source.parse() {
            Ok(root) => root,
            Err(error) => {
                diags.push(fatal(
                    Code::Syntax,
                    error.position,
                    format!("not well-formed: {}", error.message),
                ));
                return None;
            }
        };
        let version = match detect_version(&root) {
            Ok(version) => version,
            Err((code, message)) => {
                let position = source.position("/openapi").or(Some((1, 1)));
                diags.push(fatal(code, position, message));
                return None;
            }
        };
        let mut doc = Document {
            files: vec![File { source, root }],
            by_path: HashMap::new(),
            version,
        };
        doc.by_path.insert(canonical(path), 0);
        doc.load_referenced_files();
        Some(doc)
    }

    /// Every file read: the main document first, then the files its references reached.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|f| f.source.path.as_path())
    }

    /// The main document's root.
    pub fn root(&self) -> &Value {
        &self.files[0].root
    }

    /// The value at `loc`, if any.
    pub fn get(&self, loc: &Loc) -> Option<&Value> {
        let file = self.files.get(loc.file)?;
        harness_gen_contract::schema::resolve(&file.root, &loc.pointer)
    }

    /// A diagnostic at `loc`, with its position.
    pub fn diag(&self, code: Code, severity: Severity, loc: &Loc, message: String) -> Diagnostic {
        let file = &self.files[loc.file.min(self.files.len() - 1)];
        Diagnostic {
            code,
            severity,
            file: file.source.path.display().to_string(),
            pointer: loc.pointer.clone(),
            position: file.source.position(&loc.pointer),
            message,
        }
    }

    /// Follows `value`'s `$ref` chain (if it has one) to the value it names. Reports and
    /// returns `None` on a dangling, remote or cyclic reference.
    pub fn deref<'a>(
        &'a self,
        value: &'a Value,
        loc: &Loc,
        diags: &mut Diagnostics,
    ) -> Option<(&'a Value, Loc)> {
        let mut current = (value, loc.clone());
        let mut seen = BTreeSet::new();
        while let Some(reference) = current.0.get("$ref").and_then(Value::as_str) {
            let ref_loc = current.1.at("$ref");
            if !seen.insert(current.1.clone()) || seen.len() > MAX_HOPS {
                diags.push(self.diag(
                    Code::RefCycle,
                    Severity::Error,
                    &ref_loc,
                    "this reference leads back to itself: break the cycle".to_string(),
                ));
                return None;
            }
            match self.target(reference, current.1.file) {
                Ok(target) => match self.get(&target) {
                    Some(value) => current = (value, target),
                    None => {
                        diags.push(self.unresolved(&ref_loc));
                        return None;
                    }
                },
                Err(diagnostic) => {
                    diags.push(diagnostic(self, &ref_loc));
                    return None;
                }
            }
        }
        Some(current)
    }

    /// Where `reference`, written in file `from`, points. The error builds the diagnostic for
    /// the reference's location.
    #[allow(clippy::type_complexity)]
    pub fn target(
        &self,
        reference: &str,
        from: usize,
    ) -> Result<Loc, Box<dyn Fn(&Document, &Loc) -> Diagnostic>> {
        let (file_part, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let pointer = harness_gen_contract::schema::percent_decode(fragment);
        if !(pointer.is_empty() || pointer.starts_with('/')) {
            return Err(Box::new(|doc: &Document, at: &Loc| {
                doc.diag(
                    Code::UnresolvedRef,
                    Severity::Error,
                    at,
                    "plain-name fragments (`#name`) are not resolved: use a JSON pointer such as `#/components/schemas/Name`".to_string(),
                )
            }));
        }
        if file_part.is_empty() {
            return Ok(Loc {
                file: from,
                pointer,
            });
        }
        if is_remote(file_part) {
            return Err(Box::new(|doc: &Document, at: &Loc| {
                doc.diag(
                    Code::RemoteRef,
                    Severity::Error,
                    at,
                    "this reference needs the network, which harness-gen never uses: download the document next to this one and reference it by relative path".to_string(),
                )
            }));
        }
        let base = self.files[from]
            .source
            .path
            .parent()
            .unwrap_or(Path::new(""));
        match self.by_path.get(&canonical(&base.join(file_part))) {
            Some(&file) => Ok(Loc { file, pointer }),
            None => Err(Box::new(|doc: &Document, at: &Loc| {
                doc.diag(
                    Code::UnresolvedRef,
                    Severity::Error,
                    at,
                    "the referenced file cannot be read as JSON or YAML inside this document's folder: check the path".to_string(),
                )
            })),
        }
    }

    /// The diagnostic for a reference that names nothing.
    pub fn unresolved(&self, at: &Loc) -> Diagnostic {
        self.diag(
            Code::UnresolvedRef,
            Severity::Error,
            at,
            "this reference points at nothing: fix the JSON pointer or add the missing object"
                .to_string(),
        )
    }

    /// Loads every local file named by a `$ref` in the loaded files, transitively. Files that
    /// cannot be loaded are left out quietly: a reference is diagnosed only where it is used.
    fn load_referenced_files(&mut self) {
        let root_dir = canonical(self.files[0].source.path.parent().unwrap_or(Path::new(".")));
        let mut next = 0;
        while next < self.files.len() && self.files.len() < MAX_FILES {
            let mut wanted = Vec::new();
            collect_file_refs(&self.files[next].root, &mut wanted);
            let base = self.files[next]
                .source
                .path
                .parent()
                .unwrap_or(Path::new(""))
                .to_path_buf();
            for file_part in wanted {
                let path = base.join(&file_part);
                let key = canonical(&path);
                if self.by_path.contains_key(&key) || !key.starts_with(&root_dir) {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let source = Source::new(&path, text);
                if let Ok(root) = source.parse() {
                    self.by_path.insert(key, self.files.len());
                    self.files.push(File { source, root });
                }
            }
            next += 1;
        }
    }
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn is_remote(reference: &str) -> bool {
    reference.contains("://") || reference.starts_with("//")
}

fn collect_file_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                let file_part = reference.split('#').next().unwrap_or_default();
                if !file_part.is_empty()
                    && !is_remote(file_part)
                    && !out.iter().any(|f| f == file_part)
                {
                    out.push(file_part.to_string());
                }
            }
            for child in map.values() {
                collect_file_refs(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_file_refs(i, out)),
        _ => {}
    }
}

fn detect_version(root: &Value) -> Result<Version, (Code, String)> {
    if !root.is_object() {
        return Err((
            Code::NotOpenApi,
            "the document is not an object: an OpenAPI document starts with `openapi: 3.1.0`"
                .to_string(),
        ));
    }
    if root.get("swagger").is_some() {
        return Err((
            Code::Swagger2,
            "Swagger 2.0 is not supported: convert the document to OpenAPI 3 (for example with swagger2openapi) and generate from that".to_string(),
        ));
    }
    let Some(version) = root.get("openapi") else {
        return Err((
            Code::NotOpenApi,
            "no `openapi` field: this does not look like an OpenAPI document".to_string(),
        ));
    };
    let text = version.as_str().unwrap_or_default();
    let mut parts = text.split('.');
    match (parts.next(), parts.next()) {
        (Some("3"), Some("0")) => Ok(Version::V3_0),
        (Some("3"), Some("1")) => Ok(Version::V3_1),
        (Some("3"), Some("2")) => Ok(Version::V3_2),
        _ => Err((
            Code::UnsupportedVersion,
            "unsupported `openapi` version: harness-gen reads 3.0, 3.1 and 3.2 documents"
                .to_string(),
        )),
    }
}

//! Generator diagnostics: every problem found in an input, with a stable code, a severity, the
//! file and JSON pointer it concerns (and `line:column` when known), what is wrong and how to fix
//! it. All constructors of codes live here.

use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A decision the generator made by a documented rule, said so the user can override it
    /// (never escalated by `--strict`).
    Note,
    /// Something was lossy or tolerated; generation goes on.
    Warning,
    /// The input cannot be generated faithfully; the run fails.
    Error,
}

/// Stable diagnostic codes. A code's meaning never changes once released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Code {
    /// HG0101: the file cannot be read.
    Unreadable,
    /// HG0102: the file is not well-formed JSON or YAML.
    Syntax,
    /// HG0103: the document is not an OpenAPI document.
    NotOpenApi,
    /// HG0104: Swagger 2.0 is not supported.
    Swagger2,
    /// HG0105: an OpenAPI version this generator does not read.
    UnsupportedVersion,
    /// HG0201: a `$ref` points at nothing.
    UnresolvedRef,
    /// HG0202: a `$ref` would need the network, or leaves the document's folder.
    RemoteRef,
    /// HG0203: `$ref`s that refer to each other in a loop.
    RefCycle,
    /// HG0301: a field the OpenAPI specification does not define.
    UnknownField,
    /// HG0302: a field of the wrong type or with a value the specification forbids.
    InvalidField,
    /// HG0303: a required field is missing.
    MissingField,
    /// HG0304: fields that must not be used together.
    ConflictingFields,
    /// HG0401: an unknown key in `x-harn`.
    XHarnUnknownKey,
    /// HG0402: a bad value in `x-harn`.
    XHarnInvalid,
    /// HG0403: an `x-harn` annotation that contradicts the HTTP method.
    XHarnContradicts,
    /// HG0501: a generated name was changed to stay unique or valid.
    Renamed,
    /// HG0502: two operations claim the same explicit tool name or CLI command.
    Conflict,
    /// HG0503: a path parameter that is not declared required, or not in the path.
    PathParameter,
    /// HG0504: a construct whose meaning is partly lost (e.g. a schema keyword dropped).
    Lossy,
    /// HG0505: a schema that is not a valid JSON Schema.
    InvalidSchema,
    /// HG0506: a location-bound schema keyword (`$recursiveRef`, `$dynamicRef`) rewritten to
    /// the component reference it means, so the schema can stand alone.
    Rebound,
    /// HG0507: how operations were grouped into the generated crate's cargo features, where a
    /// rule (not a tag or `x-harn.features`) decided, or a group's name had to change.
    Grouped,
    /// HG0508: an operation found to list in pages by a rule (not `x-harn.pagination`), or one
    /// that looks paginated but is ambiguous.
    Paginated,
    /// HG0509: an operation that streams server-sent events, where a rule decided how its
    /// streaming call asks for the stream (not `x-harn.events`).
    Streamed,
    /// HG0510: the MCP listing's size (a note), and tools whose listed schemas stay over the
    /// listing budget even abbreviated (a warning).
    Listing,
    /// HG0511: a description over 1,024 characters, as MCP clients or agents would read it.
    LongDescription,
    /// HG0601: the produced catalog failed the runtime's publish-time validation.
    Catalog,
    /// HG0701: the crate name (given or derived from the title) is not one cargo accepts, or
    /// is taken by the runtime or a dependency of the generated crate.
    CrateName,
    /// HG0702: the Rust the generator made for a schema or operation does not parse (a defect
    /// of the generator); nothing is written.
    UnparsableRust,
}

impl Code {
    /// The printed code.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Unreadable => "HG0101",
            Code::Syntax => "HG0102",
            Code::NotOpenApi => "HG0103",
            Code::Swagger2 => "HG0104",
            Code::UnsupportedVersion => "HG0105",
            Code::UnresolvedRef => "HG0201",
            Code::RemoteRef => "HG0202",
            Code::RefCycle => "HG0203",
            Code::UnknownField => "HG0301",
            Code::InvalidField => "HG0302",
            Code::MissingField => "HG0303",
            Code::ConflictingFields => "HG0304",
            Code::XHarnUnknownKey => "HG0401",
            Code::XHarnInvalid => "HG0402",
            Code::XHarnContradicts => "HG0403",
            Code::Renamed => "HG0501",
            Code::Conflict => "HG0502",
            Code::PathParameter => "HG0503",
            Code::Lossy => "HG0504",
            Code::InvalidSchema => "HG0505",
            Code::Rebound => "HG0506",
            Code::Grouped => "HG0507",
            Code::Paginated => "HG0508",
            Code::Streamed => "HG0509",
            Code::Listing => "HG0510",
            Code::LongDescription => "HG0511",
            Code::Catalog => "HG0601",
            Code::CrateName => "HG0701",
            Code::UnparsableRust => "HG0702",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One located problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// The file, as given on the command line.
    pub file: String,
    /// JSON pointer into the file.
    pub pointer: String,
    /// 1-based line and column, when known.
    pub position: Option<(usize, usize)>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        write!(
            f,
            "{level}[{}]: {}\n  --> {}",
            self.code,
            printable(&self.message),
            printable(&self.file)
        )?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, " (#{})", printable(&self.pointer))
    }
}

pub use harness_gen_lang::diag::{is_unprintable, printable};

/// Diagnostics collected during one run.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Adds one.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }

    /// Adds every one of `other`, in its order.
    pub fn append(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    /// Whether any is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// All of them, in the order found.
    pub fn items(&self) -> &[Diagnostic] {
        &self.items
    }

    /// Turns every warning into an error (`--strict`); notes stay notes.
    pub fn make_strict(&mut self) {
        for item in &mut self.items {
            if item.severity == Severity::Warning {
                item.severity = Severity::Error;
            }
        }
    }

    /// Whether one has `code`.
    pub fn has(&self, code: Code) -> bool {
        self.items.iter().any(|d| d.code == code)
    }

    /// Sorts by file, position and code, and drops exact repeats.
    pub fn finish(&mut self) {
        self.items.sort_by(|a, b| {
            (&a.file, a.position, &a.pointer, a.code)
                .cmp(&(&b.file, b.position, &b.pointer, b.code))
        });
        self.items.dedup();
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for item in &self.items {
            writeln!(f, "{item}")?;
        }
        Ok(())
    }
}

//! Diagnostics of the `.harness` compiler: a stable `HL…` code, the file, line and column of
//! the offending declaration or token, and a message that says how to fix the problem.

use std::fmt::{self, Write as _};

use serde::Serialize;

/// Whether `c` must not reach a terminal as it is: a control character or a bidirectional
/// override (which reorders what is shown).
pub fn is_unprintable(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` with [unprintable](is_unprintable) characters written as `\u{…}` escapes, so a name
/// taken from a document can neither drive the terminal nor reorder what is shown.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_unprintable) {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| {
            if is_unprintable(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Stable diagnostic codes of the `.harness` language. A code's meaning never changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// HL0101: a file cannot be read.
    Unreadable,
    /// HL0201: a character or comment or string the lexer cannot read.
    Lexical,
    /// HL0202: a token where the grammar does not allow it.
    Syntax,
    /// HL0203: a v0.1 word (`plugin`, `composition`) that the language no longer has.
    Retired,
    /// HL0204: an integer or duration larger than 2^53.
    IntegerTooLarge,
    /// HL0301: a harness names a workflow that is not declared.
    UnresolvedWorkflow,
    /// HL0302: two skills, tools or MCP connections share an id.
    DuplicateCapability,
    /// HL0303: two workflows share an id.
    DuplicateWorkflow,
    /// HL0304: two runtimes share an id.
    DuplicateRuntime,
    /// HL0305: two harnesses share an id.
    DuplicateHarness,
    /// HL0306: two targets name the same runtime.
    DuplicateTarget,
    /// HL0307: two bindings for the same capability and runtime.
    DuplicateBinding,
    /// HL0308: two agents of a harness share an id.
    DuplicateAgent,
    /// HL0309: an agent requires the same capability twice.
    DuplicateRequirement,
    /// HL0310: a tool lists an input or output twice.
    DuplicateToolField,
    /// HL0311: a runtime's execution sets an option twice.
    DuplicateOption,
    /// HL0312: a harness configures a key twice.
    DuplicateSetting,
    /// HL0401: a requirement's verb does not match the capability's kind.
    VerbKindMismatch,
    /// HL0402: a requirement names a skill or MCP connection that is not declared.
    UndeclaredCapability,
    /// HL0403: a binding names a capability that is not declared.
    UnknownBindingCapability,
    /// HL0404: a skill with neither `source` nor `description`.
    EmptySkill,
    /// HL0405: an MCP connection without the `command` or `url` its transport needs.
    IncompleteMcp,
    /// HL0406: a workflow with both a `program` and graph statements.
    MixedWorkflow,
    /// HL0407: a workflow with neither a `program` nor statements.
    EmptyWorkflow,
    /// HL0408: a workflow names an agent that a harness using it does not declare.
    UndeclaredAgent,
    /// HL0409: `target X uses adapter.Y` where runtime X is declared with another adapter.
    AdapterMismatch,
    /// HL0410: a requirement's preferred strength is below its minimum.
    PreferredBelowMinimum,
    /// HL0501: a harness tool linked to a registry tool declares an input or output that the
    /// registry tool's schema does not have.
    LinkMismatch,
}

impl Code {
    /// The printed code.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Unreadable => "HL0101",
            Code::Lexical => "HL0201",
            Code::Syntax => "HL0202",
            Code::Retired => "HL0203",
            Code::IntegerTooLarge => "HL0204",
            Code::UnresolvedWorkflow => "HL0301",
            Code::DuplicateCapability => "HL0302",
            Code::DuplicateWorkflow => "HL0303",
            Code::DuplicateRuntime => "HL0304",
            Code::DuplicateHarness => "HL0305",
            Code::DuplicateTarget => "HL0306",
            Code::DuplicateBinding => "HL0307",
            Code::DuplicateAgent => "HL0308",
            Code::DuplicateRequirement => "HL0309",
            Code::DuplicateToolField => "HL0310",
            Code::DuplicateOption => "HL0311",
            Code::DuplicateSetting => "HL0312",
            Code::VerbKindMismatch => "HL0401",
            Code::UndeclaredCapability => "HL0402",
            Code::UnknownBindingCapability => "HL0403",
            Code::EmptySkill => "HL0404",
            Code::IncompleteMcp => "HL0405",
            Code::MixedWorkflow => "HL0406",
            Code::EmptyWorkflow => "HL0407",
            Code::UndeclaredAgent => "HL0408",
            Code::AdapterMismatch => "HL0409",
            Code::PreferredBelowMinimum => "HL0410",
            Code::LinkMismatch => "HL0501",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A position in one of the compiled files: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// Index of the file in the compilation's file list.
    pub file: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// One located problem. Every diagnostic of the language is an error: any means no bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable code.
    pub code: Code,
    /// Always `"error"`.
    pub severity: &'static str,
    /// What is wrong and how to fix it.
    pub message: String,
    /// The file, as given.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// The source files of one compilation, for locating and rendering diagnostics.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// `(name as given, text)` per file.
    pub files: Vec<(String, String)>,
}

impl Sources {
    /// A diagnostic at `span`.
    pub fn diagnostic(&self, code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: "error",
            message: message.into(),
            file: self
                .files
                .get(span.file)
                .map(|(name, _)| name.clone())
                .unwrap_or_default(),
            line: span.line,
            column: span.column,
        }
    }

    /// Human output: each diagnostic with its source line and a caret under the column. Text
    /// from the user's files (names, messages quoting them, the source line) goes through the
    /// same escaping as every other diagnostic ([`printable`]): control characters and bidi
    /// overrides are shown as `\u{…}` (tabs in the source line are kept, so the caret lines up).
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        let mut out = String::new();
        for d in diagnostics {
            let _ = writeln!(out, "error[{}]: {}", d.code, printable(&d.message));
            let _ = writeln!(out, "  --> {}:{}:{}", printable(&d.file), d.line, d.column);
            let text = self
                .files
                .iter()
                .find(|(name, _)| *name == d.file)
                .and_then(|(_, text)| text.lines().nth(d.line.saturating_sub(1) as usize));
            if let Some(line) = text {
                let number = d.line.to_string();
                let pad = " ".repeat(number.len());
                let shown = |c: char| match c {
                    '\t' => "\t".to_string(),
                    c if is_unprintable(c) => c.escape_unicode().to_string(),
                    c => c.to_string(),
                };
                // Tabs keep their width and escapes their length, so the caret lines up.
                let indent: String = line
                    .chars()
                    .take(d.column.saturating_sub(1) as usize)
                    .map(|c| match c {
                        '\t' => "\t".to_string(),
                        c => " ".repeat(shown(c).chars().count()),
                    })
                    .collect();
                let line: String = line.chars().map(shown).collect();
                let _ = writeln!(out, "{pad} |\n{number} | {line}\n{pad} | {indent}^");
            }
            out.push('\n');
        }
        out
    }

    /// `{"diagnostics":[…]}`.
    pub fn render_json(diagnostics: &[Diagnostic]) -> String {
        let value = serde_json::json!({ "diagnostics": diagnostics });
        format!(
            "{}\n",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        )
    }
}

//! The `.harness` lexer (spec §1): identifiers (keywords are identifiers the parser treats as
//! reserved), strings with `\t \n \r \\` escapes, integers, durations, punctuation and `->`.
//! A character it cannot read is reported and skipped, so one run reports every problem.

use crate::diag::{Code, Diagnostic, Sources, Span};

/// Words that cannot be plain identifiers.
pub const KEYWORDS: &[&str] = &[
    "harness",
    "workflow",
    "agent",
    "configure",
    "use",
    "skill",
    "require",
    "tool",
    "connect",
    "mcp",
    "preferred",
    "minimum",
    "on-degrade",
    "program",
    "on",
    "stop",
    "when",
    "source",
    "description",
    "permissions",
    "input",
    "output",
    "transport",
    "url",
    "command",
    "stdio",
    "http",
    "sse",
    "env",
    "runtime",
    "adapter",
    "execution",
    "tool-calling",
    "programmatic",
    "target",
    "uses",
    "binding",
    "for",
    "mechanism",
    "strength",
    "notes",
    "unsupported",
    "advisory",
    "wired",
    "enforced",
    "fail",
    "report",
    "workspace",
    "process",
    "network",
    "model",
    "read",
    "write",
    "allow",
    "deny",
    "true",
    "false",
];

/// Keywords that may still be a segment of a qualified name (`tool workspace.read`).
pub const SEGMENT_KEYWORDS: &[&str] = &[
    "workspace",
    "process",
    "network",
    "model",
    "read",
    "write",
    "allow",
    "deny",
    "env",
    "url",
    "command",
    "source",
    "description",
    "transport",
    "adapter",
    "execution",
    "program",
    "runtime",
    "target",
    "agent",
    "skill",
    "tool",
    "mcp",
    "workflow",
    "harness",
    "input",
    "output",
    "mechanism",
    "strength",
    "notes",
    "configure",
    "stdio",
    "http",
    "sse",
];

/// Whether `word` is reserved.
pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or keyword.
    Word,
    /// A string; `text` holds its value with escapes processed.
    Str,
    /// Digits.
    Int,
    /// Digits and a unit (`ms`, `s`, `m`, `h`).
    Duration,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `.`
    Dot,
    /// `=`
    Eq,
    /// `->`
    Arrow,
    /// End of the file.
    Eof,
}

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: Kind,
    /// Its text (a string's value).
    pub text: String,
    /// Where it starts.
    pub span: Span,
    /// The line it ends on (a string may hold line breaks).
    pub end_line: u32,
}

impl Token {
    /// Whether this is the keyword `word`.
    pub fn is(&self, word: &str) -> bool {
        self.kind == Kind::Word && self.text == word
    }

    /// How the token reads in a message.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Eof => "the end of the file".to_owned(),
            Kind::Str => format!("string \"{}\"", self.text.escape_debug()),
            Kind::Word if is_keyword(&self.text) => format!("keyword `{}`", self.text),
            _ => format!("`{}`", self.text),
        }
    }
}

struct Cursor<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
    file: usize,
    line: u32,
    column: u32,
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    fn peek2(&self) -> Option<char> {
        let mut ahead = self.chars.clone();
        ahead.next();
        ahead.next().map(|(_, c)| c)
    }

    fn offset(&mut self) -> usize {
        self.chars.peek().map_or(self.text.len(), |&(i, _)| i)
    }

    fn span(&self) -> Span {
        Span {
            file: self.file,
            line: self.line,
            column: self.column,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let (_, c) = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The tokens of one file.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// Tokens, ending with [`Kind::Eof`].
    pub tokens: Vec<Token>,
    /// Whether an unclosed string or comment ran to the end of the file (already reported),
    /// so that the parser does not report the missing end again.
    pub truncated: bool,
    /// The comments, in order, as written (`// …` without its line break, `/* … */`).
    pub comments: Vec<Comment>,
}

/// A comment: the parser never sees it; the formatter keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// Its text as written.
    pub text: String,
    /// Where it starts.
    pub span: Span,
    /// The line it ends on.
    pub end_line: u32,
}

impl Cursor<'_> {
    /// Skips a `/* … */` comment from its `/`; `false` when it never closes.
    fn block_comment(&mut self) -> bool {
        self.bump();
        self.bump();
        while let Some(c) = self.bump() {
            if c == '*' && self.peek() == Some('/') {
                self.bump();
                return true;
            }
        }
        false
    }

    /// A string literal from its opening `"`, escapes (`\\t`, `\\n`, `\\r`, `\\\\`) applied;
    /// `None` when it never closes.
    fn string(&mut self) -> Option<String> {
        self.bump();
        let mut value = String::new();
        while let Some(c) = self.bump() {
            match c {
                '"' => return Some(value),
                '\\' => match self.peek() {
                    Some(e @ ('t' | 'n' | 'r' | '\\')) => {
                        self.bump();
                        value.push(match e {
                            't' => '\t',
                            'n' => '\n',
                            'r' => '\r',
                            _ => '\\',
                        });
                    }
                    _ => value.push('\\'),
                },
                c => value.push(c),
            }
        }
        None
    }
}

/// Splits file `file` of `sources` into tokens.
pub fn lex(sources: &Sources, file: usize, diags: &mut Vec<Diagnostic>) -> Lexed {
    let text = sources.files[file].1.as_str();
    let mut cur = Cursor {
        chars: text.char_indices().peekable(),
        text,
        file,
        line: 1,
        column: 1,
    };
    let mut tokens = Vec::new();
    let mut comments = Vec::new();
    let mut truncated = false;
    let mut last_end = cur.span();
    while let Some(c) = cur.peek() {
        let span = cur.span();
        let start = cur.offset();
        let simple = |kind| (kind, c.to_string());
        let (kind, value) = match c {
            c if c.is_whitespace() => {
                cur.bump();
                continue;
            }
            '/' if cur.peek2() == Some('/') => {
                while cur.peek().is_some_and(|c| c != '\n') {
                    cur.bump();
                }
                comments.push(Comment {
                    text: text[start..cur.offset()].trim_end().to_owned(),
                    span,
                    end_line: cur.line,
                });
                continue;
            }
            '/' if cur.peek2() == Some('*') => {
                let closed = cur.block_comment();
                comments.push(Comment {
                    text: text[start..cur.offset()].to_owned(),
                    span,
                    end_line: cur.line,
                });
                if !closed {
                    truncated = true;
                    diags.push(sources.diagnostic(
                        Code::Lexical,
                        span,
                        "this `/*` comment is never closed; end it with `*/`",
                    ));
                }
                continue;
            }
            '"' => {
                let Some(value) = cur.string() else {
                    truncated = true;
                    diags.push(sources.diagnostic(
                        Code::Lexical,
                        span,
                        "this string is never closed; end it with `\"` (strings cannot contain `\"`)",
                    ));
                    break;
                };
                (Kind::Str, value)
            }
            c if c.is_ascii_digit() => {
                while cur.peek().is_some_and(|c| c.is_ascii_digit()) {
                    cur.bump();
                }
                let unit = match (cur.peek(), cur.peek2()) {
                    (Some('m'), Some('s')) => 2,
                    (Some('s' | 'm' | 'h'), _) => 1,
                    _ => 0,
                };
                for _ in 0..unit {
                    cur.bump();
                }
                let kind = if unit == 0 { Kind::Int } else { Kind::Duration };
                (kind, text[start..cur.offset()].to_owned())
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                cur.bump();
                // `a->b` reads as `a -> b`: a `-` that starts `->` ends the word.
                while cur
                    .peek()
                    .is_some_and(|c| is_word_char(c) && !(c == '-' && cur.peek2() == Some('>')))
                {
                    cur.bump();
                }
                (Kind::Word, text[start..cur.offset()].to_owned())
            }
            '-' if cur.peek2() == Some('>') => {
                cur.bump();
                cur.bump();
                (Kind::Arrow, "->".to_owned())
            }
            '{' | '}' | '[' | ']' | ',' | '.' | '=' => {
                cur.bump();
                simple(match c {
                    '{' => Kind::LBrace,
                    '}' => Kind::RBrace,
                    '[' => Kind::LBracket,
                    ']' => Kind::RBracket,
                    ',' => Kind::Comma,
                    '.' => Kind::Dot,
                    _ => Kind::Eq,
                })
            }
            other => {
                cur.bump();
                diags.push(sources.diagnostic(
                    Code::Lexical,
                    span,
                    format!(
                        "unexpected character `{}`; remove it (identifiers are letters, digits, `_` and `-`)",
                        other.escape_debug()
                    ),
                ));
                continue;
            }
        };
        tokens.push(Token {
            kind,
            text: value,
            span,
            end_line: cur.line,
        });
        last_end = cur.span();
    }
    // A missing end is reported just after the last token, where it is missing, rather than
    // after trailing comments and blank lines.
    tokens.push(Token {
        kind: Kind::Eof,
        text: String::new(),
        span: last_end,
        end_line: last_end.line,
    });
    Lexed {
        tokens,
        truncated,
        comments,
    }
}

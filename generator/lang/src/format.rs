//! `harness-gen harness fmt`: one canonical layout for `.harness` files.
//!
//! The layout: one member per line, blocks opened by ` {` at the end of their line and
//! closed by `}` on a line of its own (identifier lists stay on one line: `input { a b }`),
//! two spaces of indentation per block, single spaces
//! between words (none around `.`, none inside `[…]`, `, ` between list items), strings with
//! the escapes the lexer reads (`\t`, `\n`, `\r`, `\\`), at most one blank line where the
//! author left one (never just inside a block), and a final line break. Comments stay where
//! they were: on a line of their own, indented with the block, or after the token they
//! followed on its line.
//!
//! The grammar ignores line breaks, so where a member starts is read from the tokens with the
//! grammar's own rules per block (which keywords start a member of a skill, of a tool, …).
//! Only a file that parses is formatted (it may name what other files declare): a file with
//! syntax errors is refused with its diagnostics rather than laid out by guesswork.

use crate::diag::{Diagnostic, Sources};
use crate::lexer::{self, Comment, Kind, Token};

/// The formatted text of file `file` of `sources`, or the diagnostics that keep it from
/// being formatted (the file's own, or the program's when it does not compile).
pub fn format(sources: &Sources, file: usize) -> Result<String, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let lexed = lexer::lex(sources, file, &mut diags);
    let _ = crate::parser::parse(&lexed, sources, &mut diags);
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Printer::default().print(&lexed.tokens, &lexed.comments))
}

/// What kind of block the tokens are in: decides which tokens start a member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    /// The file: declarations.
    Top,
    /// `skill ID { … }`, `tool …`, `mcp …`, `runtime …`, `binding …`, `harness …`, an
    /// agent's requirement options: each member starts with one of its keywords.
    Keyed(&'static [&'static str]),
    /// `workflow ID { … }`: `program`, `on`, `stop`, and edges `a -> b`.
    Workflow,
    /// `permissions { … }` and `programmatic.<language> { … }`: pairs of words.
    Pairs,
    /// `input { … }`, `output { … }`: identifiers on one line, `input { a b }`.
    List,
    /// `configure { … }`: `key = value` per line.
    Settings,
}

const DECLARATIONS: &[&str] = &[
    "skill", "tool", "mcp", "workflow", "runtime", "target", "binding", "harness",
];

impl Block {
    /// The block a `{` opens, from the first word of the member (or declaration) it is in.
    fn opened_by(first: &str) -> Block {
        match first {
            "skill" => Block::Keyed(&["source", "description", "permissions"]),
            "tool" => Block::Keyed(&["description", "input", "output", "permissions"]),
            "mcp" => Block::Keyed(&["transport", "url", "command"]),
            "runtime" => Block::Keyed(&["adapter", "execution"]),
            "binding" => Block::Keyed(&["mechanism", "strength", "notes"]),
            "harness" => Block::Keyed(&["workflow", "agent", "configure"]),
            "agent" => Block::Keyed(&["use", "require", "connect"]),
            "use" | "require" | "connect" => Block::Keyed(&["preferred", "minimum", "on-degrade"]),
            "workflow" => Block::Workflow,
            "permissions" | "execution" => Block::Pairs,
            "input" | "output" => Block::List,
            "configure" => Block::Settings,
            _ => Block::Keyed(&[]),
        }
    }
}

/// Whether a blank line goes before a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blank {
    /// Never (the closing `}` of a block).
    Never,
    /// Where the source had one.
    AsWritten,
    /// Always.
    Always,
}

/// One open block: its kind, and how many tokens of it were printed (pairs alternate).
struct Open {
    block: Block,
    tokens: usize,
}

#[derive(Default)]
struct Printer {
    out: String,
    open: Vec<Open>,
    /// The first word of the member being printed (what a `{` in it opens).
    member: String,
    /// The previous token's text and kind.
    previous: Option<(Kind, String)>,
    /// The source line the last printed token or comment ended on.
    last_line: u32,
    /// A line comment was printed: what follows goes on a new line.
    must_break: bool,
    /// The last top-level declaration's keyword, and whether a comment came after it.
    declaration: Option<(String, bool)>,
}

impl Printer {
    fn print(mut self, tokens: &[Token], comments: &[Comment]) -> String {
        self.open.push(Open {
            block: Block::Top,
            tokens: 0,
        });
        let mut comments = comments.iter().peekable();
        for (i, token) in tokens.iter().enumerate() {
            while let Some(comment) = comments.next_if(|c| {
                (c.span.line, c.span.column) < (token.span.line, token.span.column)
                    || token.kind == Kind::Eof
            }) {
                self.comment(comment);
            }
            if token.kind == Kind::Eof {
                break;
            }
            let next = tokens.get(i + 1);
            self.token(token, next);
        }
        let mut out = self.out.trim_end().to_string();
        if !out.is_empty() {
            out.push('\n');
        }
        out
    }

    fn depth(&self) -> usize {
        self.open.len() - 1
    }

    /// Ends the line and indents the next; a blank line between them as `blank` says (never
    /// as the first line of a block).
    fn new_line(&mut self, line: u32, depth: usize, blank: Blank) {
        if self.out.is_empty() {
            return self.indent(depth);
        }
        let after_open = self.out.ends_with('{');
        while self.out.ends_with(' ') {
            self.out.pop();
        }
        self.out.push('\n');
        let blank = match blank {
            Blank::Never => false,
            Blank::AsWritten => line > self.last_line + 1,
            Blank::Always => true,
        };
        if blank && !after_open {
            self.out.push('\n');
        }
        self.indent(depth);
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn comment(&mut self, comment: &Comment) {
        let trailing = comment.span.line == self.last_line && !self.out.is_empty();
        if trailing {
            self.out.push(' ');
        } else {
            // A comment before a declaration takes the declaration's blank line.
            let blank = self.blank_before(None);
            self.new_line(comment.span.line, self.depth(), blank);
            let top = self.depth() == 0;
            if let Some((_, commented)) = &mut self.declaration {
                *commented |= top;
            }
        }
        self.out.push_str(&comment.text);
        self.last_line = comment.end_line;
        self.must_break |= comment.text.starts_with("//") || !trailing;
    }

    fn token(&mut self, token: &Token, next: Option<&Token>) {
        if token.kind == Kind::RBrace {
            let closed = self.open.pop();
            let depth = self.depth();
            let inline = closed.is_some_and(|c| c.block == Block::List);
            if !inline || self.must_break {
                self.new_line(token.span.line, depth, Blank::Never);
            } else if !self.out.ends_with('{') {
                self.out.push(' ');
            }
            self.out.push('}');
            self.after(token);
            self.member.clear();
            return;
        }
        let starts = self.must_break || self.starts_member(token, next);
        if starts {
            let blank = self.blank_before(Some(&token.text));
            self.new_line(token.span.line, self.depth(), blank);
            self.member = token.text.clone();
            if self.depth() == 0 {
                self.declaration = Some((token.text.clone(), false));
            }
        } else if self.spaced(token) {
            self.out.push(' ');
        }
        if let Some(open) = self.open.last_mut() {
            open.tokens += 1;
        }
        match token.kind {
            Kind::Str => self.string(&token.text),
            Kind::LBrace => {
                let block = Block::opened_by(&self.member);
                self.out.push('{');
                self.open.push(Open { block, tokens: 0 });
                self.member.clear();
            }
            _ => self.out.push_str(&token.text),
        }
        self.after(token);
    }

    fn after(&mut self, token: &Token) {
        self.previous = Some((token.kind.clone(), token.text.clone()));
        self.last_line = token.end_line;
        self.must_break = false;
    }

    /// The blank line before a line starting with a top-level declaration (`next`: its
    /// keyword) or a comment (`None`): always between declarations, except between one-line
    /// `target`s and after a comment that already took it; elsewhere as written.
    fn blank_before(&self, next: Option<&str>) -> Blank {
        match &self.declaration {
            Some((previous, false))
                if self.depth() == 0
                    && !(previous == "target" && next.is_none_or(|n| n == "target")) =>
            {
                Blank::Always
            }
            _ => Blank::AsWritten,
        }
    }

    /// Whether `token` starts a member of the block it is in.
    fn starts_member(&self, token: &Token, next: Option<&Token>) -> bool {
        let Some(open) = self.open.last() else {
            return false;
        };
        // Identifier lists stay on the line of their `{`.
        if open.block == Block::List {
            return false;
        }
        let previous = self.previous.as_ref();
        match previous {
            Some((Kind::LBrace | Kind::RBrace, _)) => return true,
            // A segment of a qualified name (`url env.command`) never starts anything.
            Some((Kind::Dot, _)) => return false,
            _ => {}
        }
        let word = token.kind == Kind::Word;
        match open.block {
            Block::Top => word && DECLARATIONS.contains(&token.text.as_str()),
            Block::Keyed(keys) => word && keys.contains(&token.text.as_str()),
            // `a -> b` starts at `a`, unless `a` is the agent of `on a.o -> b`.
            Block::Workflow => {
                word && (matches!(token.text.as_str(), "program" | "on" | "stop")
                    || (!matches!(previous, Some((_, text)) if text == "on")
                        && next.is_some_and(|n| n.kind == Kind::Arrow)))
            }
            Block::Pairs => open.tokens % 2 == 0,
            Block::List => true,
            // A setting starts after the previous one's value.
            Block::Settings => match previous {
                Some((Kind::Int | Kind::Duration | Kind::Str, _)) => true,
                Some((Kind::Word, text)) => text == "true" || text == "false",
                _ => false,
            },
        }
    }

    /// Whether a space goes between the previous token and `token` on one line.
    fn spaced(&self, token: &Token) -> bool {
        let Some((previous, _)) = &self.previous else {
            return false;
        };
        !matches!(token.kind, Kind::Dot | Kind::Comma | Kind::RBracket)
            && !matches!(previous, Kind::Dot | Kind::LBracket)
    }

    /// A string literal with the escapes the lexer reads.
    fn string(&mut self, value: &str) {
        self.out.push('"');
        for c in value.chars() {
            match c {
                '\t' => self.out.push_str("\\t"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\\' => self.out.push_str("\\\\"),
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }
}

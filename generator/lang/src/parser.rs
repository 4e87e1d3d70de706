//! Recursive-descent parser for `.harness` files (spec §2) into a located syntax tree.
//!
//! Members of a block come in the grammar's order, as in the reference implementation. A
//! declaration that fails to parse is reported once (at the offending token) and skipped up to
//! the next declaration, so later declarations are still parsed and checked; its name, when it
//! was read, is remembered so that references to it do not cascade into more errors.

use harness_gen_contract::harness::ir::{
    Access, CapabilityKind, Domain, OnDegrade, Permission, Strength, Transport,
};

use crate::diag::{Code, Diagnostic, Sources};
use crate::lexer::{Kind, Lexed, SEGMENT_KEYWORDS, Token, is_keyword};
use crate::syntax::*;

const DECLARATION_WORDS: &[&str] = &[
    "skill", "tool", "mcp", "workflow", "runtime", "target", "binding", "harness",
];

/// A parse error was reported; the declaration is abandoned.
struct Abandon;

type PResult<T> = Result<T, Abandon>;

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    sources: &'a Sources,
    diags: &'a mut Vec<Diagnostic>,
    /// The name of the declaration being parsed, once read.
    current_name: Option<String>,
    /// The lexer already reported that the file ends inside a string or comment.
    truncated: bool,
}

/// Parses the tokens of one file.
pub fn parse(lexed: &Lexed, sources: &Sources, diags: &mut Vec<Diagnostic>) -> Parsed {
    let mut parser = Parser {
        tokens: &lexed.tokens,
        pos: 0,
        sources,
        diags,
        current_name: None,
        truncated: lexed.truncated,
    };
    let mut parsed = Parsed::default();
    while parser.peek().kind != Kind::Eof {
        let start = parser.pos;
        parser.current_name = None;
        match parser.declaration() {
            Ok(decl) => parsed.decls.push(decl),
            Err(Abandon) => {
                parsed.failed_names.extend(parser.current_name.take());
                parser.recover(start);
            }
        }
    }
    parsed
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_at(&self, ahead: usize) -> &Token {
        &self.tokens[(self.pos + ahead).min(self.tokens.len() - 1)]
    }

    fn advance(&mut self) -> Token {
        let token = self.peek().clone();
        if token.kind != Kind::Eof {
            self.pos += 1;
        }
        token
    }

    fn error<T>(&mut self, token: &Token, message: String) -> PResult<T> {
        if self.truncated && token.kind == Kind::Eof {
            return Err(Abandon);
        }
        let code = if token.is("plugin") || token.is("composition") {
            Code::Retired
        } else {
            Code::Syntax
        };
        let message = if code == Code::Retired {
            format!(
                "`{}` is a v0.1 word the language no longer has; declare skills, tools or MCP connections and bind them with `binding … for <runtime>`",
                token.text
            )
        } else {
            message
        };
        self.diags
            .push(self.sources.diagnostic(code, token.span, message));
        Err(Abandon)
    }

    fn unexpected<T>(&mut self, expected: &str) -> PResult<T> {
        let token = self.peek().clone();
        let message = format!("expected {expected}, found {}", token.describe());
        self.error(&token, message)
    }

    /// Skips past the abandoned declaration that started at `start`: to the `}` closing its
    /// block, or to the next word that starts a declaration at the start of a line.
    fn recover(&mut self, start: usize) {
        let mut depth: i64 = self.tokens[start..self.pos]
            .iter()
            .map(|t| match t.kind {
                Kind::LBrace => 1,
                Kind::RBrace => -1,
                _ => 0,
            })
            .sum();
        if self.pos == start {
            self.advance();
        }
        loop {
            let token = self.peek();
            let line_start = self.pos == 0
                || self.tokens[self.pos - 1].span.line < token.span.line && token.span.column == 1;
            let is_decl =
                token.kind == Kind::Word && DECLARATION_WORDS.contains(&token.text.as_str());
            match token.kind {
                Kind::Eof => return,
                _ if is_decl && (depth <= 0 || line_start) => return,
                Kind::LBrace => depth += 1,
                Kind::RBrace => {
                    depth -= 1;
                    if depth <= 0 {
                        self.advance();
                        return;
                    }
                }
                _ => {}
            }
            self.advance();
        }
    }

    fn eat(&mut self, kind: Kind) -> bool {
        if self.peek().kind == kind {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, kind: Kind, what: &str) -> PResult<Token> {
        if self.peek().kind == kind {
            Ok(self.advance())
        } else {
            self.unexpected(what)
        }
    }

    fn at(&self, word: &str) -> bool {
        self.peek().is(word)
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.at(word) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn keyword(&mut self, word: &str) -> PResult<Token> {
        if self.at(word) {
            Ok(self.advance())
        } else {
            self.unexpected(&format!("`{word}`"))
        }
    }

    fn id(&mut self, what: &str) -> PResult<Name> {
        let token = self.peek().clone();
        if token.kind == Kind::Word && !is_keyword(&token.text) {
            self.advance();
            return Ok(Name {
                text: token.text,
                span: token.span,
            });
        }
        if token.kind == Kind::Word {
            let message = format!(
                "expected {what}, found keyword `{}`; keywords are reserved, choose another name",
                token.text
            );
            return self.error(&token, message);
        }
        self.unexpected(what)
    }

    fn segment(&mut self, what: &str) -> PResult<Name> {
        let token = self.peek().clone();
        if token.kind == Kind::Word
            && (!is_keyword(&token.text) || SEGMENT_KEYWORDS.contains(&token.text.as_str()))
        {
            self.advance();
            return Ok(Name {
                text: token.text,
                span: token.span,
            });
        }
        self.unexpected(what)
    }

    fn qname(&mut self, what: &str) -> PResult<Name> {
        let mut name = self.segment(what)?;
        while self.peek().kind == Kind::Dot {
            self.advance();
            let next = self.segment("a name segment after `.`")?;
            name.text.push('.');
            name.text.push_str(&next.text);
        }
        Ok(name)
    }

    fn string(&mut self, what: &str) -> PResult<String> {
        Ok(self.expect(Kind::Str, what)?.text)
    }

    fn declaration(&mut self) -> PResult<Decl> {
        let token = self.peek().clone();
        let decl = match token.text.as_str() {
            _ if token.kind != Kind::Word => None,
            "skill" => Some(Decl::Skill(self.skill()?)),
            "tool" => Some(Decl::Tool(self.tool()?)),
            "mcp" => Some(Decl::Mcp(self.mcp()?)),
            "workflow" => Some(Decl::Workflow(self.workflow()?)),
            "runtime" => Some(Decl::Runtime(self.runtime()?)),
            "target" => Some(Decl::Target(self.target()?)),
            "binding" => Some(Decl::Binding(self.binding()?)),
            "harness" => Some(Decl::Harness(self.harness()?)),
            _ => None,
        };
        match decl {
            Some(decl) => Ok(decl),
            None => self.unexpected(
                "a declaration (`harness`, `workflow`, `skill`, `tool`, `mcp`, `runtime`, `target` or `binding`)",
            ),
        }
    }

    fn named(&mut self, name: Name) -> Name {
        self.current_name = Some(name.text.clone());
        name
    }

    fn skill(&mut self) -> PResult<SkillDecl> {
        self.advance();
        let name = self.id("the skill's id")?;
        let name = self.named(name);
        self.expect(Kind::LBrace, "`{`")?;
        let source = if self.eat_word("source") {
            Some(self.string("the skill's source as a string")?)
        } else {
            None
        };
        let description = if self.eat_word("description") {
            Some(self.string("the skill's description as a string")?)
        } else {
            None
        };
        let permissions = self.permissions()?;
        self.close("the skill", &["source", "description", "permissions"])?;
        Ok(SkillDecl {
            name,
            source,
            description,
            permissions,
        })
    }

    /// The closing `}` of a block whose members are `members`, in that order.
    fn close(&mut self, block: &str, members: &[&str]) -> PResult<()> {
        if self.eat(Kind::RBrace) {
            return Ok(());
        }
        let token = self.peek().clone();
        let list = members
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let message = if members.contains(&token.text.as_str()) && token.kind == Kind::Word {
            format!(
                "`{}` is repeated or out of order in {block}; its members come once each, in the order {list}",
                token.text
            )
        } else {
            format!(
                "expected `}}` or a member of {block} ({list}), found {}",
                token.describe()
            )
        };
        self.error(&token, message)
    }

    fn permissions(&mut self) -> PResult<Vec<Permission>> {
        let mut grants = Vec::new();
        if !self.eat_word("permissions") {
            return Ok(grants);
        }
        self.expect(Kind::LBrace, "`{`")?;
        while !self.eat(Kind::RBrace) {
            let domain = match self.peek().text.as_str() {
                "workspace" => Domain::Workspace,
                "process" => Domain::Process,
                "network" => Domain::Network,
                "model" => Domain::Model,
                _ => {
                    return self.unexpected(
                        "a permission domain (`workspace`, `process`, `network`, `model`) or `}`",
                    );
                }
            };
            self.advance();
            let access = match self.peek().text.as_str() {
                "read" => Access::Read,
                "write" => Access::Write,
                "allow" => Access::Allow,
                "deny" => Access::Deny,
                _ => return self.unexpected("an access (`read`, `write`, `allow`, `deny`)"),
            };
            self.advance();
            grants.push(Permission { domain, access });
        }
        Ok(grants)
    }

    fn id_list(&mut self, what: &str) -> PResult<Vec<Name>> {
        self.expect(Kind::LBrace, "`{`")?;
        let mut names = Vec::new();
        while !self.eat(Kind::RBrace) {
            names.push(self.id(what)?);
        }
        Ok(names)
    }

    fn tool(&mut self) -> PResult<ToolDecl> {
        self.advance();
        let name = self.qname("the tool's id")?;
        let name = self.named(name);
        self.expect(Kind::LBrace, "`{`")?;
        let description = if self.eat_word("description") {
            Some(self.string("the tool's description as a string")?)
        } else {
            None
        };
        let inputs = if self.eat_word("input") {
            self.id_list("an input identifier or `}`")?
        } else {
            Vec::new()
        };
        let outputs = if self.eat_word("output") {
            self.id_list("an output identifier or `}`")?
        } else {
            Vec::new()
        };
        let permissions = self.permissions()?;
        self.close(
            "the tool",
            &["description", "input", "output", "permissions"],
        )?;
        Ok(ToolDecl {
            name,
            description,
            inputs,
            outputs,
            permissions,
        })
    }

    fn mcp(&mut self) -> PResult<McpDecl> {
        self.advance();
        let name = self.id("the MCP connection's id")?;
        let name = self.named(name);
        self.expect(Kind::LBrace, "`{`")?;
        self.keyword("transport")?;
        let transport = match self.peek().text.as_str() {
            "stdio" => Transport::Stdio,
            "http" => Transport::Http,
            "sse" => Transport::Sse,
            _ => return self.unexpected("a transport (`stdio`, `http` or `sse`)"),
        };
        self.advance();
        let url = if self.eat_word("url") {
            if self.eat_word("env") {
                self.expect(Kind::Dot, "`.` after `env`")?;
                Some(UrlDecl::Env(self.id("an environment variable's name")?))
            } else {
                Some(UrlDecl::Literal(
                    self.string("`env.<VARIABLE>` or the URL as a string")?,
                ))
            }
        } else {
            None
        };
        let command = if self.eat_word("command") {
            Some(self.string("the command as a string")?)
        } else {
            None
        };
        self.close("the MCP connection", &["transport", "url", "command"])?;
        Ok(McpDecl {
            name,
            transport,
            url,
            command,
        })
    }

    fn workflow(&mut self) -> PResult<WorkflowDecl> {
        self.advance();
        let name = self.id("the workflow's id")?;
        let name = self.named(name);
        self.expect(Kind::LBrace, "`{`")?;
        let program = if self.eat_word("program") {
            let language = self.id("the program's language")?;
            let entry = self.string("the program's entry point as a string")?;
            Some((language, entry))
        } else {
            None
        };
        let mut stmts = Vec::new();
        while !self.eat(Kind::RBrace) {
            let span = self.peek().span;
            let stmt = if self.eat_word("on") {
                let agent = self.id("an agent")?;
                self.expect(Kind::Dot, "`.` between agent and outcome")?;
                let outcome = self.id("an outcome")?;
                self.expect(Kind::Arrow, "`->`")?;
                let to = self.id("the agent to hand over to")?;
                Stmt::Event { agent, outcome, to }
            } else if self.eat_word("stop") {
                self.keyword("when")?;
                let agent = self.id("an agent")?;
                self.expect(Kind::Dot, "`.` between agent and outcome")?;
                let outcome = self.id("an outcome")?;
                Stmt::Stop { agent, outcome }
            } else if self.peek().kind == Kind::Word && !is_keyword(&self.peek().text) {
                let from = self.id("an agent")?;
                self.expect(Kind::Arrow, "`->` (with spaces around it: `a -> b`)")?;
                let to = self.id("the agent to hand over to")?;
                Stmt::Edge { from, to }
            } else if self.at("program") {
                let token = self.peek().clone();
                return self.error(
                    &token,
                    "`program` must come first in the workflow, before any statement".to_owned(),
                );
            } else {
                return self.unexpected(
                    "a workflow statement (`a -> b`, `on a.outcome -> b`, `stop when a.outcome`) or `}`",
                );
            };
            stmts.push((stmt, span));
        }
        Ok(WorkflowDecl {
            name,
            program,
            stmts,
        })
    }

    fn runtime(&mut self) -> PResult<RuntimeDecl> {
        self.advance();
        let name = self.id("the runtime's id")?;
        let name = self.named(name);
        self.expect(Kind::LBrace, "`{`")?;
        self.keyword("adapter")?;
        let adapter = self.string("the adapter package as a string")?;
        let execution = if self.eat_word("execution") {
            if self.eat_word("tool-calling") {
                Some(ExecDecl::ToolCalling)
            } else if self.eat_word("programmatic") {
                self.expect(Kind::Dot, "`.` and a language after `programmatic`")?;
                let language = self.id("the language")?;
                let mut options = Vec::new();
                if self.eat(Kind::LBrace) {
                    while !self.eat(Kind::RBrace) {
                        let key = self.id("an option key or `}`")?;
                        let value = self.id("the option's value (an identifier)")?;
                        options.push((key, value));
                    }
                }
                Some(ExecDecl::Programmatic { language, options })
            } else {
                return self.unexpected("`tool-calling` or `programmatic.<language>`");
            }
        } else {
            None
        };
        self.close("the runtime", &["adapter", "execution"])?;
        Ok(RuntimeDecl {
            name,
            adapter,
            execution,
        })
    }

    fn target(&mut self) -> PResult<TargetDecl> {
        self.advance();
        let name = self.id("the target runtime's id")?;
        let name = self.named(name);
        let adapter = if self.eat_word("uses") {
            self.keyword("adapter")?;
            self.expect(Kind::Dot, "`.` after `adapter`")?;
            Some(self.id("the adapter's id")?)
        } else {
            None
        };
        Ok(TargetDecl { name, adapter })
    }

    fn strength(&mut self) -> PResult<Strength> {
        let strength = match self.peek().text.as_str() {
            "unsupported" => Strength::Unsupported,
            "advisory" => Strength::Advisory,
            "wired" => Strength::Wired,
            "enforced" => Strength::Enforced,
            _ => {
                return self
                    .unexpected("a strength (`unsupported`, `advisory`, `wired` or `enforced`)");
            }
        };
        self.advance();
        Ok(strength)
    }

    fn binding(&mut self) -> PResult<BindingDecl> {
        self.advance();
        let capability = self.qname("the capability's id")?;
        self.keyword("for")?;
        let mut runtimes = Vec::new();
        if self.eat(Kind::LBracket) {
            runtimes.push(self.id("a runtime id")?);
            while self.eat(Kind::Comma) {
                runtimes.push(self.id("a runtime id")?);
            }
            self.expect(Kind::RBracket, "`,` or `]`")?;
        } else {
            runtimes.push(self.id("a runtime id or `[`")?);
        }
        self.expect(Kind::LBrace, "`{`")?;
        let mechanism = if self.eat_word("mechanism") {
            Some(self.qname("the mechanism")?)
        } else {
            None
        };
        let strength = if self.eat_word("strength") {
            Some(self.strength()?)
        } else {
            None
        };
        let notes = if self.eat_word("notes") {
            Some(self.string("the notes as a string")?)
        } else {
            None
        };
        self.close("the binding", &["mechanism", "strength", "notes"])?;
        Ok(BindingDecl {
            capability,
            runtimes,
            mechanism,
            strength,
            notes,
        })
    }

    fn harness(&mut self) -> PResult<HarnessDecl> {
        self.advance();
        let name = self.id("the harness's id")?;
        let name = self.named(name);
        self.expect(Kind::LBrace, "`{`")?;
        self.keyword("workflow")?;
        let workflow = self.id("the workflow's id")?;
        let mut agents = Vec::new();
        while self.at("agent") {
            agents.push(self.agent()?);
        }
        let mut settings = Vec::new();
        if self.eat_word("configure") {
            self.expect(Kind::LBrace, "`{`")?;
            while !self.eat(Kind::RBrace) {
                let key = self.qname("a setting key or `}`")?;
                self.expect(Kind::Eq, "`=`")?;
                let token = self.peek().clone();
                let value = match token.kind {
                    Kind::Int => ValueDecl::Int(token),
                    Kind::Duration => ValueDecl::Duration(token),
                    Kind::Str => ValueDecl::Str(token.text),
                    Kind::Word if token.text == "true" => ValueDecl::Bool(true),
                    Kind::Word if token.text == "false" => ValueDecl::Bool(false),
                    _ => {
                        return self.unexpected(
                            "a value (an integer, a duration such as `30s`, a string, `true` or `false`)",
                        );
                    }
                };
                self.advance();
                settings.push((key, value));
            }
        }
        self.close("the harness", &["workflow", "agent", "configure"])?;
        Ok(HarnessDecl {
            name,
            workflow,
            agents,
            settings,
        })
    }

    fn agent(&mut self) -> PResult<AgentDecl> {
        self.advance();
        let name = self.id("the agent's id")?;
        self.expect(Kind::LBrace, "`{`")?;
        let mut requirements = Vec::new();
        while !self.eat(Kind::RBrace) {
            let kind = match (self.peek().text.as_str(), self.peek_at(1).text.as_str()) {
                ("use", "skill") => CapabilityKind::Skill,
                ("require", "tool") => CapabilityKind::Tool,
                ("connect", "mcp") => CapabilityKind::Mcp,
                ("use" | "require" | "connect", _) => {
                    self.advance();
                    return self.unexpected(
                        "the capability kind of the verb (`use skill`, `require tool`, `connect mcp`)",
                    );
                }
                _ => {
                    return self.unexpected(
                        "a requirement (`use skill …`, `require tool …`, `connect mcp …`) or `}`",
                    );
                }
            };
            self.advance();
            self.advance();
            let capability = self.qname("the capability's id")?;
            let mut requirement = RequirementDecl {
                kind,
                capability,
                preferred: None,
                minimum: None,
                on_degrade: None,
            };
            if self.eat(Kind::LBrace) {
                if self.at("preferred") {
                    self.advance();
                    let span = self.peek().span;
                    requirement.preferred = Some((self.strength()?, span));
                }
                if self.eat_word("minimum") {
                    requirement.minimum = Some(self.strength()?);
                }
                if self.eat_word("on-degrade") {
                    requirement.on_degrade = Some(if self.eat_word("fail") {
                        OnDegrade::Fail
                    } else if self.eat_word("report") {
                        OnDegrade::Report
                    } else {
                        return self.unexpected("`fail` or `report`");
                    });
                }
                self.close("the requirement", &["preferred", "minimum", "on-degrade"])?;
            }
            requirements.push(requirement);
        }
        Ok(AgentDecl { name, requirements })
    }
}

//! The index of a workspace's names: every declaration and reference, by kind.

use super::*;

/// What a name names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `skill`.
    Skill,
    /// `tool`.
    Tool,
    /// `mcp`.
    Mcp,
    /// A capability of a binding: a skill, a tool or an MCP connection.
    Capability,
    /// `workflow`.
    Workflow,
    /// `runtime`, or the runtime a `target` names.
    Runtime,
    /// An agent of a harness.
    Agent,
    /// `harness`.
    Harness,
}

impl Kind {
    pub(super) fn word(self) -> &'static str {
        match self {
            Kind::Skill => "skill",
            Kind::Tool => "tool",
            Kind::Mcp => "MCP connection",
            Kind::Capability => "capability",
            Kind::Workflow => "workflow",
            Kind::Runtime => "runtime",
            Kind::Agent => "agent",
            Kind::Harness => "harness",
        }
    }

    /// How an editor shows a name of this kind: as a symbol, and as a completion.
    pub(super) fn shown(self) -> (lsp::SymbolKind, lsp::CompletionItemKind) {
        use lsp::{CompletionItemKind as C, SymbolKind as S};
        match self {
            Kind::Skill | Kind::Capability => (S::MODULE, C::MODULE),
            Kind::Tool => (S::FUNCTION, C::FUNCTION),
            Kind::Mcp => (S::INTERFACE, C::INTERFACE),
            Kind::Workflow => (S::EVENT, C::EVENT),
            Kind::Runtime => (S::ENUM_MEMBER, C::ENUM_MEMBER),
            Kind::Agent => (S::VARIABLE, C::VARIABLE),
            Kind::Harness => (S::CLASS, C::CLASS),
        }
    }

    /// Whether a name of kind `self` and one of kind `other` can be the same thing.
    pub(super) fn meets(self, other: Kind) -> bool {
        let capability = |k| matches!(k, Kind::Skill | Kind::Tool | Kind::Mcp);
        self == other
            || (self == Kind::Capability && capability(other))
            || (other == Kind::Capability && capability(self))
    }
}

/// One name in the workspace: declared or used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// What it names.
    pub kind: Kind,
    /// The name.
    pub name: String,
    /// Where it is written.
    pub span: Span,
    /// Whether this is its declaration.
    pub declaration: bool,
    /// For a declaration: what hover says of it.
    pub about: Option<String>,
}

/// Every name of the parsed files, declarations and uses.
pub fn index(parsed: &[Parsed]) -> Vec<Occurrence> {
    let mut out = Vec::new();
    let mut add = |kind, name: &Name, declaration, about: Option<String>| {
        out.push(Occurrence {
            kind,
            name: name.text.clone(),
            span: name.span,
            declaration,
            about,
        });
    };
    for decls in parsed.iter().map(|p| &p.decls) {
        for decl in decls {
            match decl {
                Decl::Skill(d) => add(Kind::Skill, &d.name, true, d.description.clone()),
                Decl::Tool(d) => add(Kind::Tool, &d.name, true, d.description.clone()),
                Decl::Mcp(d) => add(
                    Kind::Mcp,
                    &d.name,
                    true,
                    Some(format!("transport `{}`", transport(d.transport))),
                ),
                Decl::Workflow(d) => {
                    add(
                        Kind::Workflow,
                        &d.name,
                        true,
                        Some(format!("{} statement(s)", d.stmts.len())),
                    );
                    for (stmt, _) in &d.stmts {
                        for agent in stmt.agents() {
                            add(Kind::Agent, agent, false, None);
                        }
                    }
                }
                Decl::Runtime(d) => add(
                    Kind::Runtime,
                    &d.name,
                    true,
                    Some(format!("adapter `{}`", d.adapter)),
                ),
                Decl::Target(d) => add(
                    Kind::Runtime,
                    &d.name,
                    true,
                    Some(match &d.adapter {
                        Some(adapter) => format!("deployment target, adapter `{}`", adapter.text),
                        None => "deployment target".to_string(),
                    }),
                ),
                Decl::Binding(d) => {
                    add(Kind::Capability, &d.capability, false, None);
                    for runtime in &d.runtimes {
                        add(Kind::Runtime, runtime, false, None);
                    }
                }
                Decl::Harness(d) => {
                    let agents: Vec<&str> = d.agents.iter().map(|a| a.name.text.as_str()).collect();
                    add(
                        Kind::Harness,
                        &d.name,
                        true,
                        Some(format!(
                            "workflow `{}`; agents: {}",
                            d.workflow.text,
                            agents.join(", ")
                        )),
                    );
                    add(Kind::Workflow, &d.workflow, false, None);
                    for agent in &d.agents {
                        let needs: Vec<String> = agent
                            .requirements
                            .iter()
                            .map(|r| r.capability.text.clone())
                            .collect();
                        add(
                            Kind::Agent,
                            &agent.name,
                            true,
                            Some(format!(
                                "in harness `{}`; needs: {}",
                                d.name.text,
                                needs.join(", ")
                            )),
                        );
                        for requirement in &agent.requirements {
                            let kind = match requirement.kind {
                                CapabilityKind::Skill => Kind::Skill,
                                CapabilityKind::Tool => Kind::Tool,
                                CapabilityKind::Mcp => Kind::Mcp,
                            };
                            add(kind, &requirement.capability, false, None);
                        }
                    }
                }
            }
        }
    }
    out
}

fn transport(transport: harness_gen_contract::harness::ir::Transport) -> &'static str {
    use harness_gen_contract::harness::ir::Transport;
    match transport {
        Transport::Stdio => "stdio",
        Transport::Http => "http",
        Transport::Sse => "sse",
    }
}

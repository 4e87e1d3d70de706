//! The located syntax tree of a `.harness` file (spec §2): what the parser builds and the
//! checks and lowering read. Every name keeps the span it was written at.

use harness_gen_contract::harness::ir::{
    CapabilityKind, OnDegrade, Permission, Strength, Transport,
};

use crate::diag::Span;
use crate::lexer::Token;

/// An identifier or qualified name with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The text (`a.b` for qualified names).
    pub text: String,
    /// Where it starts.
    pub span: Span,
}

/// `skill ID { … }`
#[derive(Clone, Debug)]
pub struct SkillDecl {
    /// The id.
    pub name: Name,
    /// `source "…"`.
    pub source: Option<String>,
    /// `description "…"`.
    pub description: Option<String>,
    /// `permissions { … }`.
    pub permissions: Vec<Permission>,
}

/// `tool QNAME { … }`
#[derive(Clone, Debug)]
pub struct ToolDecl {
    /// The id.
    pub name: Name,
    /// `description "…"`.
    pub description: Option<String>,
    /// `input { … }`.
    pub inputs: Vec<Name>,
    /// `output { … }`.
    pub outputs: Vec<Name>,
    /// `permissions { … }`.
    pub permissions: Vec<Permission>,
}

/// `url env.X` or `url "…"`.
#[derive(Clone, Debug)]
pub enum UrlDecl {
    /// From the environment.
    Env(Name),
    /// Literal.
    Literal(String),
}

/// `mcp ID { … }`
#[derive(Clone, Debug)]
pub struct McpDecl {
    /// The id.
    pub name: Name,
    /// The transport.
    pub transport: Transport,
    /// `url …`.
    pub url: Option<UrlDecl>,
    /// `command "…"`.
    pub command: Option<String>,
}

/// A workflow statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `a -> b`
    Edge {
        /// From.
        from: Name,
        /// To.
        to: Name,
    },
    /// `on a.o -> b`
    Event {
        /// Agent.
        agent: Name,
        /// Outcome.
        outcome: Name,
        /// To.
        to: Name,
    },
    /// `stop when a.o`
    Stop {
        /// Agent.
        agent: Name,
        /// Outcome.
        outcome: Name,
    },
}

impl Stmt {
    /// The agents the statement names.
    pub fn agents(&self) -> Vec<&Name> {
        match self {
            Stmt::Edge { from, to } => vec![from, to],
            Stmt::Event { agent, to, .. } => vec![agent, to],
            Stmt::Stop { agent, .. } => vec![agent],
        }
    }
}

/// `workflow ID { … }`
#[derive(Clone, Debug)]
pub struct WorkflowDecl {
    /// The id.
    pub name: Name,
    /// `program <language> "<entry>"`.
    pub program: Option<(Name, String)>,
    /// Statements with the span of their first token.
    pub stmts: Vec<(Stmt, Span)>,
}

/// `execution …`
#[derive(Clone, Debug)]
pub enum ExecDecl {
    /// `tool-calling`
    ToolCalling,
    /// `programmatic.<language> { key value … }`
    Programmatic {
        /// The language.
        language: Name,
        /// Options.
        options: Vec<(Name, Name)>,
    },
}

/// `runtime ID { … }`
#[derive(Clone, Debug)]
pub struct RuntimeDecl {
    /// The id.
    pub name: Name,
    /// `adapter "…"`.
    pub adapter: String,
    /// `execution …`.
    pub execution: Option<ExecDecl>,
}

/// `target ID (uses adapter.ID)?`
#[derive(Clone, Debug)]
pub struct TargetDecl {
    /// The runtime id.
    pub name: Name,
    /// The adapter.
    pub adapter: Option<Name>,
}

/// `binding QNAME for … { … }`
#[derive(Clone, Debug)]
pub struct BindingDecl {
    /// The capability.
    pub capability: Name,
    /// The runtimes.
    pub runtimes: Vec<Name>,
    /// `mechanism QNAME`.
    pub mechanism: Option<Name>,
    /// `strength …`.
    pub strength: Option<Strength>,
    /// `notes "…"`.
    pub notes: Option<String>,
}

/// A requirement of an agent.
#[derive(Clone, Debug)]
pub struct RequirementDecl {
    /// Which verb was used.
    pub kind: CapabilityKind,
    /// The capability.
    pub capability: Name,
    /// `preferred …` and where.
    pub preferred: Option<(Strength, Span)>,
    /// `minimum …`.
    pub minimum: Option<Strength>,
    /// `on-degrade …`.
    pub on_degrade: Option<OnDegrade>,
}

/// `agent ID { … }`
#[derive(Clone, Debug)]
pub struct AgentDecl {
    /// The id.
    pub name: Name,
    /// Requirements.
    pub requirements: Vec<RequirementDecl>,
}

/// A `configure` value.
#[derive(Clone, Debug)]
pub enum ValueDecl {
    /// Digits.
    Int(Token),
    /// Digits and a unit.
    Duration(Token),
    /// A string.
    Str(String),
    /// `true` / `false`.
    Bool(bool),
}

/// `harness ID { … }`
#[derive(Clone, Debug)]
pub struct HarnessDecl {
    /// The id.
    pub name: Name,
    /// `workflow ID`.
    pub workflow: Name,
    /// Agents.
    pub agents: Vec<AgentDecl>,
    /// `configure { key = value … }`.
    pub settings: Vec<(Name, ValueDecl)>,
}

/// One top-level declaration.
#[derive(Clone, Debug)]
pub enum Decl {
    /// A skill.
    Skill(SkillDecl),
    /// A tool.
    Tool(ToolDecl),
    /// An MCP connection.
    Mcp(McpDecl),
    /// A workflow.
    Workflow(WorkflowDecl),
    /// A runtime.
    Runtime(RuntimeDecl),
    /// A target.
    Target(TargetDecl),
    /// A binding.
    Binding(BindingDecl),
    /// A harness.
    Harness(HarnessDecl),
}

/// What parsing a file gave.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// Declarations that parsed, in order.
    pub decls: Vec<Decl>,
    /// Names of declarations that failed to parse (to keep references to them quiet).
    pub failed_names: Vec<String>,
}

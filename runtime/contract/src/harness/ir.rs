//! The `.harness` IR 0.2.0: the bundle a compiler produces and the revision a resolution
//! produces, as closed records.
//!
//! Fields are declared in the order the reference implementation writes them, so pretty
//! printing reproduces its files byte for byte; hashes never depend on that order (they are
//! taken over [canonical JSON](super::canonical)). Optional fields are omitted when absent,
//! except the two mechanism fields of a [`Realization`], which are `null` when absent.

use serde::{Deserialize, Serialize};

macro_rules! marker {
    ($(#[$doc:meta])* $name:ident = $text:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            #[doc = concat!("`\"", $text, "\"`")]
            #[default]
            #[serde(rename = $text)]
            Value,
        }
    };
}

marker!(
    /// The IR version every artifact but a target carries: `"0.2.0"`.
    IrVersion = "0.2.0"
);
marker!(
    /// `kind` of a bundle.
    BundleKind = "harness-ir-bundle"
);
marker!(
    /// `kind` of a skill.
    SkillKind = "skill"
);
marker!(
    /// `kind` of a tool.
    ToolKind = "tool"
);
marker!(
    /// `kind` of an MCP connection.
    McpKind = "mcp"
);
marker!(
    /// `kind` of a workflow.
    WorkflowKind = "workflow"
);
marker!(
    /// `kind` of a runtime.
    RuntimeKind = "runtime"
);
marker!(
    /// `kind` of a harness.
    HarnessKind = "harness-spec"
);
marker!(
    /// `kind` of a capability binding.
    BindingKind = "capability-binding"
);
marker!(
    /// `kind` of a revision.
    RevisionKind = "harness-revision"
);
marker!(
    /// `kind` of a failed resolution.
    ReportKind = "resolution-report"
);
marker!(
    /// `status` of a failed resolution.
    Failed = "failed"
);

/// Every declaration of a set of `.harness` files, in declaration order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Bundle {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"harness-ir-bundle"`.
    pub kind: BundleKind,
    /// Skills.
    pub skills: Vec<Skill>,
    /// Declared tools (declaration order), then implicit ones (sorted by id).
    pub tools: Vec<Tool>,
    /// MCP connections.
    pub mcps: Vec<Mcp>,
    /// Workflows.
    pub workflows: Vec<Workflow>,
    /// Declared runtimes.
    pub runtimes: Vec<Runtime>,
    /// Harnesses.
    pub harnesses: Vec<Harness>,
    /// Deployment targets.
    pub targets: Vec<Target>,
    /// Capability bindings, one per (capability, runtime).
    pub bindings: Vec<Binding>,
}

impl Bundle {
    /// The skill `id`.
    pub fn skill(&self, id: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.id == id)
    }

    /// The tool `id` (declared or implicit).
    pub fn tool(&self, id: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.id == id)
    }

    /// The MCP connection `id`.
    pub fn mcp(&self, id: &str) -> Option<&Mcp> {
        self.mcps.iter().find(|m| m.id == id)
    }

    /// The workflow `id`.
    pub fn workflow(&self, id: &str) -> Option<&Workflow> {
        self.workflows.iter().find(|w| w.id == id)
    }
}

/// What a grant is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    /// The model.
    Model,
    /// The network.
    Network,
    /// Processes.
    Process,
    /// The workspace.
    Workspace,
}

/// What a grant allows or denies. The variants are in alphabetical order, the order
/// permissions are sorted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Allow.
    Allow,
    /// Deny (the only grant of its domain once merged).
    Deny,
    /// Read.
    Read,
    /// Write.
    Write,
}

/// One permission grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permission {
    /// The domain.
    pub domain: Domain,
    /// The access.
    pub access: Access,
}

/// A skill: prompt-level guidance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Skill {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"skill"`.
    pub kind: SkillKind,
    /// The id.
    pub id: String,
    /// Where the skill comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// What it asks of the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Grants.
    pub permissions: Vec<Permission>,
}

/// A tool, declared or implicit (required by an agent, declared nowhere).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Tool {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"tool"`.
    pub kind: ToolKind,
    /// The (qualified) id.
    pub id: String,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Declared input identifiers.
    pub inputs: Vec<String>,
    /// Declared output identifiers.
    pub outputs: Vec<String>,
    /// Grants.
    pub permissions: Vec<Permission>,
    /// Whether the tool was synthesized from a requirement.
    pub implicit: bool,
}

/// How an MCP server is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// A child process over stdio.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Server-sent events.
    Sse,
}

impl Transport {
    /// The keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }
}

/// An MCP server's URL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum McpUrl {
    /// Read from an environment variable at run time.
    Env {
        /// The variable's name.
        variable: String,
    },
    /// Written in the program.
    Literal {
        /// The URL.
        value: String,
    },
}

/// An MCP connection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Mcp {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"mcp"`.
    pub kind: McpKind,
    /// The id.
    pub id: String,
    /// The transport.
    pub transport: Transport,
    /// The URL (`http`, `sse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<McpUrl>,
    /// The command (`stdio`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// Whether a workflow is a graph or a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Edges, events and stops.
    Declarative,
    /// A program in some language drives the roles.
    Programmatic,
}

/// `from -> to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edge {
    /// The agent handing over.
    pub from: String,
    /// The agent taking over.
    pub to: String,
}

/// `on agent.outcome -> to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// The agent reporting the outcome.
    pub agent: String,
    /// The outcome.
    pub outcome: String,
    /// The agent taking over.
    pub to: String,
}

/// `stop when agent.outcome`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stop {
    /// The agent reporting the outcome.
    pub agent: String,
    /// The outcome.
    pub outcome: String,
}

/// `program <language> "<entry>"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Program {
    /// The language the program is written in.
    pub language: String,
    /// The entry point.
    pub entry: String,
}

/// A workflow between roles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Workflow {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"workflow"`.
    pub kind: WorkflowKind,
    /// The id.
    pub id: String,
    /// Programmatic exactly when `program` is present.
    pub mode: Mode,
    /// Edges.
    pub edges: Vec<Edge>,
    /// Events.
    pub events: Vec<Event>,
    /// Stops.
    pub stops: Vec<Stop>,
    /// The program of a programmatic workflow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<Program>,
}

/// A `key value` pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyValue {
    /// The key.
    pub key: String,
    /// The value.
    pub value: String,
}

/// How a runtime executes agents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "style", deny_unknown_fields)]
pub enum Execution {
    /// The model calls tools.
    #[serde(rename = "tool-calling")]
    ToolCalling,
    /// A program in `language` drives the roles.
    #[serde(rename = "programmatic")]
    Programmatic {
        /// The language.
        language: String,
        /// Options, in declaration order.
        options: Vec<KeyValue>,
    },
}

/// A runtime (host) a harness can be deployed to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Runtime {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"runtime"`.
    pub kind: RuntimeKind,
    /// The id.
    pub id: String,
    /// The adapter package.
    pub adapter: String,
    /// The execution style.
    pub execution: Execution,
}

/// The strength ladder: `unsupported < advisory < wired < enforced`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strength {
    /// Not realized.
    Unsupported,
    /// Prompt guidance.
    Advisory,
    /// Wired into the host.
    Wired,
    /// Enforced by the host.
    Enforced,
}

impl Strength {
    /// The keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Unsupported => "unsupported",
            Strength::Advisory => "advisory",
            Strength::Wired => "wired",
            Strength::Enforced => "enforced",
        }
    }
}

/// What happens when a requirement is realized below its preferred strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnDegrade {
    /// The resolution fails.
    Fail,
    /// The realization is reported as degraded.
    Report,
}

/// Which kind of capability a requirement names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CapabilityKind {
    /// `use skill`.
    Skill,
    /// `require tool`.
    Tool,
    /// `connect mcp`.
    Mcp,
}

impl CapabilityKind {
    /// The keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            CapabilityKind::Skill => "skill",
            CapabilityKind::Tool => "tool",
            CapabilityKind::Mcp => "mcp",
        }
    }
}

/// One requirement of an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Requirement {
    /// The capability.
    pub capability_id: String,
    /// Its kind.
    pub capability_kind: CapabilityKind,
    /// The preferred strength, when written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred: Option<Strength>,
    /// The minimum strength (default advisory).
    pub minimum: Strength,
    /// What a degradation does (default report).
    pub on_degrade: OnDegrade,
}

/// One role of a harness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Agent {
    /// The id.
    pub id: String,
    /// Requirements, in declaration order.
    pub requirements: Vec<Requirement>,
}

/// A configuration value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum SettingValue {
    /// An integer (at most 2^53).
    Int {
        /// The value.
        value: u64,
    },
    /// A string.
    String {
        /// The value.
        value: String,
    },
    /// `true` or `false`.
    Boolean {
        /// The value.
        value: bool,
    },
    /// A duration as written, with its milliseconds.
    Duration {
        /// As written (`"10m"`).
        value: String,
        /// Milliseconds.
        ms: u64,
    },
}

/// One `configure` entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setting {
    /// The (qualified) key.
    pub key: String,
    /// The value.
    pub value: SettingValue,
}

/// A harness: roles, their requirements, a workflow and settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Harness {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"harness-spec"`.
    pub kind: HarnessKind,
    /// The id.
    pub id: String,
    /// The workflow's id.
    pub workflow: String,
    /// Roles.
    pub agents: Vec<Agent>,
    /// Settings, in declaration order.
    pub settings: Vec<Setting>,
}

/// A deployment target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// The runtime's id.
    pub runtime: String,
    /// The adapter, from `uses adapter.<id>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter: Option<String>,
}

/// How one runtime realizes one capability.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Binding {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"capability-binding"`.
    pub kind: BindingKind,
    /// The capability.
    pub capability_id: String,
    /// The runtime.
    pub runtime: String,
    /// The mechanism (default `prompt-preamble`).
    pub mechanism: String,
    /// The declared strength (default advisory).
    pub strength: Strength,
    /// Free text, appended to degradation reasons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// An id with the content hash of the object it names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HashedRef {
    /// The id.
    pub id: String,
    /// `sha256:<hex>` of the object's canonical JSON.
    pub content_hash: String,
}

/// The runtime a revision is deployed to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevisionTarget {
    /// The runtime's id.
    pub runtime: String,
    /// The adapter package.
    pub adapter: String,
    /// The execution style.
    pub execution: Execution,
}

/// The workflow of a revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevisionWorkflow {
    /// The id.
    pub id: String,
    /// Its mode.
    pub mode: Mode,
    /// `sha256:<hex>` of its canonical JSON.
    pub content_hash: String,
}

/// A resolved capability.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolvedCapability {
    /// The id.
    pub id: String,
    /// Its kind.
    pub kind: CapabilityKind,
    /// `sha256:<hex>` of its canonical JSON.
    pub content_hash: String,
}

/// The capabilities a revision resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resolved {
    /// The union over agents, sorted by id.
    pub capabilities: Vec<ResolvedCapability>,
}

/// One role of a revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevisionAgent {
    /// The id.
    pub id: String,
    /// The capability ids it requires, sorted.
    pub capabilities: Vec<String>,
}

/// How a requirement came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Realized at least at the preferred strength.
    Satisfied,
    /// Realized between minimum and preferred, reported.
    Degraded,
    /// Realized below minimum, or degraded under `on-degrade fail`.
    Failed,
}

/// How one requirement of one agent is realized on the chosen runtime.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Realization {
    /// The agent.
    pub agent_id: String,
    /// The capability.
    pub capability_id: String,
    /// Its kind.
    pub capability_kind: CapabilityKind,
    /// The requirement's minimum.
    pub requested_minimum: Strength,
    /// The requirement's preferred strength, when written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_preferred: Option<Strength>,
    /// What the runtime's binding declares.
    pub declared_strength: Strength,
    /// The binding's mechanism (`null` when none).
    pub declared_mechanism: Option<String>,
    /// What the executor materializes.
    pub realized: Strength,
    /// The mechanism the executor uses (`null` for unsupported).
    pub materialized_mechanism: Option<String>,
    /// The outcome.
    pub action: Action,
    /// Why, for failed and degraded realizations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// An immutable resolution of one harness against one runtime. Its id is a content hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Revision {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"harness-revision"`.
    pub kind: RevisionKind,
    /// The harness.
    pub harness: HashedRef,
    /// The runtime.
    pub target: RevisionTarget,
    /// The workflow.
    pub workflow: RevisionWorkflow,
    /// The capabilities.
    pub resolved: Resolved,
    /// Roles, in declaration order.
    pub agents: Vec<RevisionAgent>,
    /// Realizations, sorted by (agent, capability).
    pub realization: Vec<Realization>,
    /// Merged grants.
    pub permissions: Vec<Permission>,
    /// The harness's settings, verbatim.
    pub settings: Vec<Setting>,
    /// `hr_` + 32 hex digits of the hash of everything above.
    pub revision_id: String,
}

/// A resolution that failed: what was realized so far and every error found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolutionReport {
    /// `"0.2.0"`.
    pub ir_version: IrVersion,
    /// `"resolution-report"`.
    pub kind: ReportKind,
    /// The harness asked for.
    pub harness_id: String,
    /// The runtime, when one was chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// `"failed"`.
    pub status: Failed,
    /// Realizations computed before failing.
    pub realizations: Vec<Realization>,
    /// Every error, each saying how to fix it.
    pub errors: Vec<String>,
}

impl ResolutionReport {
    /// The failed resolution of `harness_id`.
    pub fn failed(
        harness_id: &str,
        runtime: Option<String>,
        realizations: Vec<Realization>,
        errors: Vec<String>,
    ) -> Box<Self> {
        Box::new(Self {
            ir_version: IrVersion::Value,
            kind: ReportKind::Value,
            harness_id: harness_id.to_owned(),
            runtime,
            status: Failed::Value,
            realizations,
            errors,
        })
    }
}

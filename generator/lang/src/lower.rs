//! Checks (spec §6) and lowering to the IR 0.2.0 bundle (spec §3), across every file of one
//! compilation. Checks only see declarations that parsed; references to a declaration that
//! failed to parse are not reported again.

use std::collections::{BTreeSet, HashMap, HashSet};

use harness_gen_contract::harness::PROMPT_PREAMBLE;
use harness_gen_contract::harness::canonical::MAX_EXACT_INTEGER;
use harness_gen_contract::harness::ir::*;

use crate::diag::{Code, Diagnostic, Sources, Span};
use crate::syntax::*;

struct Checker<'a> {
    sources: &'a Sources,
    diags: Vec<Diagnostic>,
    failed: HashSet<&'a str>,
}

impl Checker<'_> {
    fn report(&mut self, code: Code, span: Span, message: String) {
        self.diags
            .push(self.sources.diagnostic(code, span, message));
    }

    /// The first of `items` for each name; every later item with a name already seen is
    /// reported at its name, with `message(later, first)`.
    fn firsts<'n, T: Copy>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        name: impl Fn(T) -> &'n Name,
        code: Code,
        message: impl Fn(T, T) -> String,
    ) -> HashMap<&'n str, T> {
        let mut seen: HashMap<&str, T> = HashMap::new();
        for item in items {
            let text = name(item).text.as_str();
            match seen.get(text) {
                Some(&first) => self.report(code, name(item).span, message(item, first)),
                None => {
                    seen.insert(text, item);
                }
            }
        }
        seen
    }

    /// [`Checker::firsts`] for declarations of one kind, with the usual message.
    fn unique<'n, T: Copy>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        name: impl Fn(T) -> &'n Name,
        code: Code,
        what: &str,
    ) -> HashMap<&'n str, T> {
        self.firsts(items, &name, code, |later, first| {
            format!(
                "{what} '{}' is declared twice (first at line {}); rename or remove one",
                name(later).text,
                name(first).span.line
            )
        })
    }

    /// Reports every name of `names` whose text came earlier in the same list.
    fn repeats<'n>(
        &mut self,
        names: impl IntoIterator<Item = &'n Name>,
        code: Code,
        message: impl Fn(&Name) -> String,
    ) {
        let mut seen = HashSet::new();
        for name in names {
            if !seen.insert(name.text.as_str()) {
                self.report(code, name.span, message(name));
            }
        }
    }
}

/// The declarations of every file that parsed, by kind, in declaration order.
struct Decls<'a> {
    all: Vec<&'a Decl>,
    skills: Vec<&'a SkillDecl>,
    tools: Vec<&'a ToolDecl>,
    mcps: Vec<&'a McpDecl>,
    workflows: Vec<&'a WorkflowDecl>,
    runtimes: Vec<&'a RuntimeDecl>,
    targets: Vec<&'a TargetDecl>,
    bindings: Vec<&'a BindingDecl>,
    harnesses: Vec<&'a HarnessDecl>,
}

impl<'a> Decls<'a> {
    fn of(files: &'a [Parsed]) -> Self {
        let all: Vec<&Decl> = files.iter().flat_map(|f| &f.decls).collect();
        macro_rules! of {
            ($variant:ident) => {
                all.iter()
                    .filter_map(|d| match d {
                        Decl::$variant(x) => Some(x),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            };
        }
        Decls {
            skills: of!(Skill),
            tools: of!(Tool),
            mcps: of!(Mcp),
            workflows: of!(Workflow),
            runtimes: of!(Runtime),
            targets: of!(Target),
            bindings: of!(Binding),
            harnesses: of!(Harness),
            all,
        }
    }
}

/// The names declared once each (the first of each name; repeats are reported).
struct Declared<'a> {
    /// Capability id → kind, across skills, tools and MCP connections.
    kinds: HashMap<&'a str, CapabilityKind>,
    workflows: HashMap<&'a str, &'a WorkflowDecl>,
    runtimes: HashMap<&'a str, &'a RuntimeDecl>,
}

/// Checks the declarations of every file and lowers them to one bundle; `Err` with every
/// problem found otherwise (`parse_diags` are the lexer's and parser's, already found).
pub fn lower(
    sources: &Sources,
    files: &[Parsed],
    parse_diags: Vec<Diagnostic>,
) -> Result<Bundle, Vec<Diagnostic>> {
    let decls = Decls::of(files);
    let mut c = Checker {
        sources,
        diags: parse_diags,
        failed: files
            .iter()
            .flat_map(|f| f.failed_names.iter().map(String::as_str))
            .collect(),
    };
    let declared = check_names(&mut c, &decls);
    check_declarations(&mut c, &decls, &declared);
    let implicit = check_harnesses(&mut c, &decls, &declared);
    check_bindings(&mut c, &decls, &declared, &implicit);
    let harnesses: Vec<Harness> = decls
        .harnesses
        .iter()
        .map(|h| lower_harness(&mut c, h))
        .collect();
    if !c.diags.is_empty() {
        let mut diags = c.diags;
        diags.sort_by_key(|d| {
            let file = sources.files.iter().position(|(name, _)| *name == d.file);
            (file, d.line, d.column, d.code)
        });
        diags.dedup();
        return Err(diags);
    }
    Ok(bundle(&decls, implicit, harnesses))
}

/// Every name is declared once in its namespace (spec §6: duplicates).
fn check_names<'a>(c: &mut Checker, decls: &Decls<'a>) -> Declared<'a> {
    // Capability ids are one namespace across skills, tools and MCP connections.
    let capabilities = decls.all.iter().filter_map(|d| match d {
        Decl::Skill(s) => Some((&s.name, CapabilityKind::Skill)),
        Decl::Tool(t) => Some((&t.name, CapabilityKind::Tool)),
        Decl::Mcp(m) => Some((&m.name, CapabilityKind::Mcp)),
        _ => None,
    });
    let kinds: HashMap<&str, CapabilityKind> = c
        .firsts(capabilities, |(name, _)| name, Code::DuplicateCapability, |(name, _), (first, kind)| {
            format!(
                "capability id '{}' is already used by the {} declared at line {}; skills, tools and MCP connections share one namespace, rename one",
                name.text,
                kind.as_str(),
                first.span.line
            )
        })
        .into_iter()
        .map(|(id, (_, kind))| (id, kind))
        .collect();
    let workflows = c.unique(
        decls.workflows.iter().copied(),
        |w| &w.name,
        Code::DuplicateWorkflow,
        "workflow",
    );
    let runtimes = c.unique(
        decls.runtimes.iter().copied(),
        |r| &r.name,
        Code::DuplicateRuntime,
        "runtime",
    );
    c.unique(
        decls.harnesses.iter().copied(),
        |h| &h.name,
        Code::DuplicateHarness,
        "harness",
    );
    c.firsts(
        decls.targets.iter().copied(),
        |t| &t.name,
        Code::DuplicateTarget,
        |target, first| {
            format!(
                "runtime '{}' is targeted twice (first at line {}); remove one `target`",
                target.name.text, first.name.span.line
            )
        },
    );

    Declared {
        kinds,
        workflows,
        runtimes,
    }
}

/// What each skill, tool, MCP connection, workflow, runtime and target must hold on its own.
fn check_declarations(c: &mut Checker, decls: &Decls, declared: &Declared) {
    for skill in &decls.skills {
        if skill.source.is_none() && skill.description.is_none() {
            let message = format!(
                "skill '{}' has neither `source` nor `description`; add `description \"…\"` (the guidance agents see) or `source \"…\"`",
                skill.name.text
            );
            c.report(Code::EmptySkill, skill.name.span, message);
        }
    }
    for tool in &decls.tools {
        for (names, what) in [(&tool.inputs, "input"), (&tool.outputs, "output")] {
            c.repeats(names, Code::DuplicateToolField, |name| {
                format!(
                    "tool '{}' lists {what} '{}' twice; remove the repeat",
                    tool.name.text, name.text
                )
            });
        }
    }
    for mcp in &decls.mcps {
        let missing = match mcp.transport {
            Transport::Stdio if mcp.command.is_none() => {
                Some(("command", "`command \"<program and arguments>\"`"))
            }
            Transport::Http | Transport::Sse if mcp.url.is_none() => {
                Some(("url", "`url \"https://…\"` or `url env.<VARIABLE>`"))
            }
            _ => None,
        };
        if let Some((field, fix)) = missing {
            let message = format!(
                "MCP connection '{}' uses transport {} but has no {field}; add {fix}",
                mcp.name.text,
                mcp.transport.as_str(),
            );
            c.report(Code::IncompleteMcp, mcp.name.span, message);
        }
    }
    for workflow in &decls.workflows {
        match (&workflow.program, workflow.stmts.is_empty()) {
            (Some(_), false) => {
                let message = format!(
                    "workflow '{}' has both a `program` and graph statements; a programmatic workflow is driven by its program alone: remove the statements or the `program`",
                    workflow.name.text
                );
                c.report(Code::MixedWorkflow, workflow.name.span, message);
            }
            (None, true) => {
                let message = format!(
                    "workflow '{}' is empty; add statements (`a -> b`, `on a.outcome -> b`, `stop when a.outcome`) or a `program <language> \"<entry>\"`",
                    workflow.name.text
                );
                c.report(Code::EmptyWorkflow, workflow.name.span, message);
            }
            _ => {}
        }
    }
    for runtime in &decls.runtimes {
        if let Some(ExecDecl::Programmatic { options, .. }) = &runtime.execution {
            c.repeats(
                options.iter().map(|(key, _)| key),
                Code::DuplicateOption,
                |key| {
                    format!(
                        "runtime '{}' sets execution option '{}' twice; keep one",
                        runtime.name.text, key.text
                    )
                },
            );
        }
    }
    for target in &decls.targets {
        let (Some(adapter), Some(runtime)) = (
            &target.adapter,
            declared.runtimes.get(target.name.text.as_str()),
        ) else {
            continue;
        };
        let conventional = format!("@harness/adapter-{}", adapter.text);
        if runtime.adapter != adapter.text && runtime.adapter != conventional {
            let message = format!(
                "target '{}' uses adapter '{}', but runtime '{}' is declared with adapter \"{}\"; drop `uses adapter.{}` or make them agree",
                target.name.text, adapter.text, runtime.name.text, runtime.adapter, adapter.text
            );
            c.report(Code::AdapterMismatch, adapter.span, message);
        }
    }
}

/// Harnesses: their workflow, agents and requirements, and settings. Returns the implicit tools:
/// those an agent requires with `tool` that nothing declares.
fn check_harnesses(c: &mut Checker, decls: &Decls, declared: &Declared) -> BTreeSet<String> {
    let mut implicit: BTreeSet<String> = BTreeSet::new();
    for harness in &decls.harnesses {
        let workflow = declared.workflows.get(harness.workflow.text.as_str());
        if workflow.is_none() && !c.failed.contains(harness.workflow.text.as_str()) {
            let known: Vec<String> = declared
                .workflows
                .keys()
                .map(|k| format!("'{k}'"))
                .collect();
            let message = format!(
                "harness '{}' uses workflow '{}', which is not declared; declare `workflow {} {{ … }}`{}",
                harness.name.text,
                harness.workflow.text,
                harness.workflow.text,
                if known.is_empty() {
                    String::new()
                } else {
                    format!(" or use one of {}", sorted_join(known))
                }
            );
            c.report(Code::UnresolvedWorkflow, harness.workflow.span, message);
        }
        let agents = c.unique(
            harness.agents.iter(),
            |a| &a.name,
            Code::DuplicateAgent,
            "agent",
        );
        if let Some(workflow) = workflow {
            let mut reported = HashSet::new();
            for (stmt, _) in &workflow.stmts {
                for agent in stmt.agents() {
                    if !agents.contains_key(agent.text.as_str())
                        && reported.insert(agent.text.as_str())
                    {
                        let message = format!(
                            "workflow '{}' names agent '{}' (line {}), which harness '{}' does not declare; add `agent {} {{ … }}` to the harness or change the workflow",
                            workflow.name.text,
                            agent.text,
                            agent.span.line,
                            harness.name.text,
                            agent.text
                        );
                        c.report(Code::UndeclaredAgent, harness.workflow.span, message);
                    }
                }
            }
        }
        for agent in &harness.agents {
            let mut seen = HashSet::new();
            for requirement in &agent.requirements {
                let id = requirement.capability.text.as_str();
                let span = requirement.capability.span;
                if !seen.insert(id) {
                    let message = format!(
                        "agent '{}' requires '{id}' twice; keep one requirement",
                        agent.name.text
                    );
                    c.report(Code::DuplicateRequirement, span, message);
                    continue;
                }
                let used = verb(requirement.kind);
                match declared.kinds.get(id) {
                    Some(&kind) if kind != requirement.kind => {
                        let message = format!(
                            "'{id}' is a {}, but agent '{}' names it with `{used}`; write `{} {id}`",
                            kind.as_str(),
                            agent.name.text,
                            verb(kind)
                        );
                        c.report(Code::VerbKindMismatch, span, message);
                    }
                    Some(_) => {}
                    None if c.failed.contains(id) => {}
                    None if requirement.kind == CapabilityKind::Tool => {
                        implicit.insert(id.to_owned());
                    }
                    None => {
                        let kind = requirement.kind.as_str();
                        let message = format!(
                            "agent '{}' uses {kind} '{id}', which is not declared; declare `{kind} {id} {{ … }}`",
                            agent.name.text
                        );
                        c.report(Code::UndeclaredCapability, span, message);
                    }
                }
                if let Some((preferred, preferred_span)) = requirement.preferred {
                    let minimum = requirement.minimum.unwrap_or(Strength::Advisory);
                    if preferred < minimum {
                        let message = format!(
                            "preferred strength '{}' is below the minimum '{}'; raise `preferred` or lower `minimum` (the ladder is unsupported < advisory < wired < enforced)",
                            preferred.as_str(),
                            minimum.as_str()
                        );
                        c.report(Code::PreferredBelowMinimum, preferred_span, message);
                    }
                }
            }
        }
        c.repeats(
            harness.settings.iter().map(|(key, _)| key),
            Code::DuplicateSetting,
            |key| {
                format!(
                    "harness '{}' configures '{}' twice; keep one",
                    harness.name.text, key.text
                )
            },
        );
    }

    implicit
}

/// Each binding names a known capability, once per runtime.
fn check_bindings(
    c: &mut Checker,
    decls: &Decls,
    declared: &Declared,
    implicit: &BTreeSet<String>,
) {
    let mut bound: HashMap<(&str, &str), &Name> = HashMap::new();
    for binding in &decls.bindings {
        let id = binding.capability.text.as_str();
        if !declared.kinds.contains_key(id) && !implicit.contains(id) && !c.failed.contains(id) {
            let message = format!(
                "binding for '{id}', which is not a declared skill, tool or MCP connection nor a tool an agent requires; declare it or fix the name"
            );
            c.report(
                Code::UnknownBindingCapability,
                binding.capability.span,
                message,
            );
        }
        for runtime in &binding.runtimes {
            if let Some(first) = bound.get(&(id, runtime.text.as_str())) {
                let message = format!(
                    "'{id}' is already bound for runtime '{}' (line {}); keep one binding per capability and runtime",
                    runtime.text, first.span.line
                );
                c.report(Code::DuplicateBinding, runtime.span, message);
            } else {
                bound.insert((id, &runtime.text), runtime);
            }
        }
    }
}

/// One harness in the IR; a setting whose number is not exact is reported and left out.
fn lower_harness(c: &mut Checker, h: &HarnessDecl) -> Harness {
    let settings = h
        .settings
        .iter()
        .filter_map(|(key, value)| {
            let value = match value {
                ValueDecl::Str(text) => SettingValue::String {
                    value: text.clone(),
                },
                ValueDecl::Bool(value) => SettingValue::Boolean { value: *value },
                ValueDecl::Int(token) => SettingValue::Int {
                    value: exact_integer(c, token, &token.text, 1)?,
                },
                ValueDecl::Duration(token) => {
                    let digits = token.text.trim_end_matches(char::is_alphabetic);
                    let unit = match &token.text[digits.len()..] {
                        "ms" => 1,
                        "s" => 1_000,
                        "m" => 60_000,
                        _ => 3_600_000,
                    };
                    SettingValue::Duration {
                        value: token.text.clone(),
                        ms: exact_integer(c, token, digits, unit)?,
                    }
                }
            };
            Some(Setting {
                key: key.text.clone(),
                value,
            })
        })
        .collect();
    Harness {
        ir_version: IrVersion::Value,
        kind: HarnessKind::Value,
        id: h.name.text.clone(),
        workflow: h.workflow.text.clone(),
        agents: h
            .agents
            .iter()
            .map(|a| Agent {
                id: a.name.text.clone(),
                requirements: a
                    .requirements
                    .iter()
                    .map(|r| Requirement {
                        capability_id: r.capability.text.clone(),
                        capability_kind: r.kind,
                        preferred: r.preferred.map(|(s, _)| s),
                        minimum: r.minimum.unwrap_or(Strength::Advisory),
                        on_degrade: r.on_degrade.unwrap_or(OnDegrade::Report),
                    })
                    .collect(),
            })
            .collect(),
        settings,
    }
}

/// The bundle of checked declarations: every kind in declaration order, implicit tools after
/// the declared ones.
fn bundle(decls: &Decls, implicit: BTreeSet<String>, harnesses: Vec<Harness>) -> Bundle {
    let mut tool_ir: Vec<Tool> = decls
        .tools
        .iter()
        .map(|t| Tool {
            ir_version: IrVersion::Value,
            kind: ToolKind::Value,
            id: t.name.text.clone(),
            description: t.description.clone(),
            inputs: t.inputs.iter().map(|n| n.text.clone()).collect(),
            outputs: t.outputs.iter().map(|n| n.text.clone()).collect(),
            permissions: t.permissions.clone(),
            implicit: false,
        })
        .collect();
    tool_ir.extend(implicit.into_iter().map(|id| Tool {
        ir_version: IrVersion::Value,
        kind: ToolKind::Value,
        id,
        description: None,
        inputs: Vec::new(),
        outputs: Vec::new(),
        permissions: Vec::new(),
        implicit: true,
    }));
    Bundle {
        ir_version: IrVersion::Value,
        kind: BundleKind::Value,
        skills: decls
            .skills
            .iter()
            .map(|s| Skill {
                ir_version: IrVersion::Value,
                kind: SkillKind::Value,
                id: s.name.text.clone(),
                source: s.source.clone(),
                description: s.description.clone(),
                permissions: s.permissions.clone(),
            })
            .collect(),
        tools: tool_ir,
        mcps: decls
            .mcps
            .iter()
            .map(|m| Mcp {
                ir_version: IrVersion::Value,
                kind: McpKind::Value,
                id: m.name.text.clone(),
                transport: m.transport,
                url: m.url.as_ref().map(|url| match url {
                    UrlDecl::Env(name) => McpUrl::Env {
                        variable: name.text.clone(),
                    },
                    UrlDecl::Literal(value) => McpUrl::Literal {
                        value: value.clone(),
                    },
                }),
                command: m.command.clone(),
            })
            .collect(),
        workflows: decls.workflows.iter().map(|w| lower_workflow(w)).collect(),
        runtimes: decls
            .runtimes
            .iter()
            .map(|r| Runtime {
                ir_version: IrVersion::Value,
                kind: RuntimeKind::Value,
                id: r.name.text.clone(),
                adapter: r.adapter.clone(),
                execution: match &r.execution {
                    None | Some(ExecDecl::ToolCalling) => Execution::ToolCalling,
                    Some(ExecDecl::Programmatic { language, options }) => Execution::Programmatic {
                        language: language.text.clone(),
                        options: options
                            .iter()
                            .map(|(k, v)| KeyValue {
                                key: k.text.clone(),
                                value: v.text.clone(),
                            })
                            .collect(),
                    },
                },
            })
            .collect(),
        harnesses,
        targets: decls
            .targets
            .iter()
            .map(|t| Target {
                runtime: t.name.text.clone(),
                adapter: t.adapter.as_ref().map(|a| a.text.clone()),
            })
            .collect(),
        bindings: decls
            .bindings
            .iter()
            .flat_map(|b| {
                b.runtimes.iter().map(|runtime| Binding {
                    ir_version: IrVersion::Value,
                    kind: BindingKind::Value,
                    capability_id: b.capability.text.clone(),
                    runtime: runtime.text.clone(),
                    mechanism: b
                        .mechanism
                        .as_ref()
                        .map_or_else(|| PROMPT_PREAMBLE.to_owned(), |m| m.text.clone()),
                    strength: b.strength.unwrap_or(Strength::Advisory),
                    notes: b.notes.clone(),
                })
            })
            .collect(),
    }
}

fn lower_workflow(w: &WorkflowDecl) -> Workflow {
    let (mut edges, mut events, mut stops) = (Vec::new(), Vec::new(), Vec::new());
    for (stmt, _) in &w.stmts {
        match stmt {
            Stmt::Edge { from, to } => edges.push(Edge {
                from: from.text.clone(),
                to: to.text.clone(),
            }),
            Stmt::Event { agent, outcome, to } => events.push(Event {
                agent: agent.text.clone(),
                outcome: outcome.text.clone(),
                to: to.text.clone(),
            }),
            Stmt::Stop { agent, outcome } => stops.push(Stop {
                agent: agent.text.clone(),
                outcome: outcome.text.clone(),
            }),
        }
    }
    Workflow {
        ir_version: IrVersion::Value,
        kind: WorkflowKind::Value,
        id: w.name.text.clone(),
        mode: if w.program.is_some() {
            Mode::Programmatic
        } else {
            Mode::Declarative
        },
        edges,
        events,
        stops,
        program: w.program.as_ref().map(|(language, entry)| Program {
            language: language.text.clone(),
            entry: entry.clone(),
        }),
    }
}

/// `digits × unit` when it is at most 2^53; reported otherwise.
fn exact_integer(
    c: &mut Checker,
    token: &crate::lexer::Token,
    digits: &str,
    unit: u64,
) -> Option<u64> {
    let value = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|n| *n <= MAX_EXACT_INTEGER);
    if value.is_none() {
        let message = format!(
            "`{}` is larger than 2^53 ({MAX_EXACT_INTEGER}{}), which other implementations cannot represent exactly; use a smaller value or a string",
            token.text,
            if unit == 1 { "" } else { " milliseconds" }
        );
        c.report(Code::IntegerTooLarge, token.span, message);
    }
    value
}

fn verb(kind: CapabilityKind) -> &'static str {
    match kind {
        CapabilityKind::Skill => "use skill",
        CapabilityKind::Tool => "require tool",
        CapabilityKind::Mcp => "connect mcp",
    }
}

fn sorted_join(mut items: Vec<String>) -> String {
    items.sort();
    items.join(", ")
}

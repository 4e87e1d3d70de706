//! The generated crate as a set of files (openapi.md §4): `Cargo.toml` and `README.md` from
//! askama templates in `templates/`, `catalog.json`, and the Rust sources.

use std::collections::BTreeMap;

use askama::Template;
use quote::quote;

use super::{Gates, Renderer, client, index, registry};
use crate::model::Api;
use harness_gen_wire::binding::Encoding;

/// What to generate.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Crate name (default: the document's title in kebab-case).
    pub crate_name: Option<String>,
    /// A path to `harness-gen-runtime` for development inside its workspace; published crates
    /// depend on it by version only.
    pub runtime_path: Option<String>,
    /// The command that regenerates the crate, recorded in headers and the README.
    pub command: String,
    /// A compiled `.harness` bundle to embed (`harness.json` and the `harness` module).
    pub harness: Option<harness_gen_contract::harness::Bundle>,
    /// What MCP listings and agent tool schemas show of each tool's schemas, when not the
    /// runtime's default (`HARNESS_LISTING_DEPTH` / `HARNESS_LISTING_BYTES` still override it).
    pub listing_budget: Option<crate::ListingBudget>,
}

/// The crate's files by relative path, and the schemas that fell back to JSON values.
pub struct Crate {
    /// Files by path relative to the output directory.
    pub files: BTreeMap<String, String>,
    /// (pointer, why) of each schema typed as `serde_json::Value`.
    pub fallbacks: Vec<(String, String)>,
    /// The files whose Rust does not parse (left empty in `files`), each with where its
    /// broken item comes from; a crate with any is not to be written.
    pub unparsable: Vec<(crate::load::Loc, super::Unparsable)>,
}

#[derive(Template)]
#[template(path = "Cargo.toml.j2", escape = "none")]
struct CargoToml<'a> {
    bin: &'a str,
    command: &'a str,
    name: String,
    version: String,
    description: String,
    license: Option<String>,
    runtime: String,
    groups: &'a [GroupLine],
}

/// One operation group as `Cargo.toml` and the README list it.
struct GroupLine {
    feature: String,
    /// Its description, one line with no control characters (a TOML comment).
    about: String,
    /// The same, for a Markdown table cell.
    about_cell: String,
    operations: usize,
}

/// The groups of `api` with their operation counts.
fn group_lines(api: &Api) -> Vec<GroupLine> {
    api.groups
        .iter()
        .enumerate()
        .map(|(at, group)| {
            let about: String = group
                .description
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            GroupLine {
                feature: group.feature.clone(),
                about_cell: about.replace('|', "\\|"),
                about,
                operations: api
                    .operations
                    .iter()
                    .filter(|op| op.groups.contains(&at))
                    .count(),
            }
        })
        .collect()
}

#[derive(Template)]
#[template(path = "README.md.j2", escape = "none")]
struct Readme<'a> {
    crate_name: &'a str,
    title: &'a str,
    api_version: &'a str,
    description: &'a str,
    /// The crate doc's quickstart as a whole program.
    program: String,
    operations: usize,
    tools: usize,
    base_url_env: String,
    base_url: &'a str,
    env: Vec<(String, Vec<String>)>,
    command: &'a str,
    groups: &'a [GroupLine],
    /// The first page-stream method, e.g. `list_pets_pages(&input)`, and how many there are.
    pages: Option<(String, usize)>,
    /// The first event-stream method and how many there are.
    events: Option<(String, usize)>,
    /// The first download method and how many there are.
    downloads: Option<(String, usize)>,
    /// The first method whose body may carry files (multipart or bytes) and how many there are.
    uploads: Option<(String, usize)>,
}

/// A valid crate name from `text` (the document's title): its words lowercased as they are
/// written (`OpenAI` stays one word), without a last `API` or `REST API` (every title of an
/// API description would end so), joined by `-` and starting with a letter: "OpenAI API" is
/// `openai`, so its key is `OPENAI_API_KEY`; "Stripe API" is `stripe`. A word left alone that
/// is a Rust keyword keeps its `API` ("Self API" is `self-api`: a crate cannot be called
/// `self`).
pub fn crate_name(text: &str) -> String {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let full = words.clone();
    for generic in ["api", "rest"] {
        if words.len() > 1 && words.last().is_some_and(|w| w == generic) {
            words.pop();
        }
    }
    if let [one] = words.as_slice()
        && crate::names::is_keyword(one)
    {
        words = match full.len() > 1 {
            true => full,
            false => vec![one.clone(), "api".into()],
        };
    }
    let name = crate::names::kebab(&words.join(" "));
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name
    } else {
        format!("api-{name}")
    }
}

/// Names a generated crate cannot take: its own dependencies (a crate cannot depend on a crate
/// of its own name), our own crates, and names the standard distribution reserves.
const TAKEN_CRATE_NAMES: &[&str] = &[
    "harness-gen-runtime",
    "harness-gen-types",
    "harness-gen-contract",
    "harness-gen",
    "serde",
    "serde-json",
    "std",
    "core",
    "alloc",
    "proc-macro",
    "test",
];

/// Why `name` cannot name the generated crate, if it cannot: cargo's rules for a publishable
/// package name (ASCII letters, digits, `-` and `_`, starting with a letter, at most 64
/// characters), not a Rust keyword, and none of [`TAKEN_CRATE_NAMES`] (`-` and `_` are the same
/// to cargo).
pub fn crate_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the crate name is empty".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_')))
    {
        return Some(format!(
            "`{}` holds {c:?}: a crate name has only ASCII letters, digits, `-` and `_`",
            crate::diag::printable(name)
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Some(format!(
            "`{name}` does not start with a letter, as a crate name must"
        ));
    }
    if name.len() > 64 {
        return Some(format!(
            "`{name}` is {} characters long: crates.io takes at most 64",
            name.len()
        ));
    }
    if crate::names::is_keyword(&name.replace('-', "_")) {
        return Some(format!(
            "`{name}` is a Rust keyword, which cargo refuses as a crate name"
        ));
    }
    let normalized = name.replace('_', "-").to_ascii_lowercase();
    if let Some(taken) = TAKEN_CRATE_NAMES.iter().find(|t| **t == normalized) {
        return Some(format!(
            "`{name}` is the name of `{taken}`, which the generated crate depends on or which is reserved"
        ));
    }
    None
}

/// `info.version` when it is semver, else `0.1.0`.
pub fn crate_version(version: &str) -> String {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    let numeric = parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        });
    let rest_ok = version[core.len()..]
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'));
    if numeric && rest_ok {
        version.to_string()
    } else {
        "0.1.0".to_string()
    }
}

/// A TOML basic string of any text: `"` and `\\` escaped, and the control characters TOML does
/// not allow in a basic string (U+0000 to U+001F and U+007F) written as escapes. (JSON's string
/// syntax is not enough: it passes U+007F through.) Hand-written rather than a `toml` dependency:
/// these few values are all the generator writes into TOML.
pub(crate) fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Generates every file of the crate from what [`crate::pipeline::assemble`] made; returned with the
/// catalog it embeds.
pub(crate) fn generate<R: Send>(
    assembled: crate::pipeline::Assembled,
    options: &Options,
    beside: impl FnOnce(&harness_gen_contract::Catalog) -> R + Send,
) -> (Crate, harness_gen_contract::Catalog, R) {
    let crate::pipeline::Assembled {
        api,
        catalog,
        name,
        mut types,
    } = assembled;
    let api = &api;
    let ident = name.replace('-', "_");
    let prefix = ident.to_ascii_uppercase();
    let gates = Gates::new(api, types.gating);
    let mut files = BTreeMap::new();
    // Building and formatting the large files is most of generation's time (GHES: the client
    // 2.9 MB, the types 2.2 MB): the client, the largest, is built and formatted on a second
    // thread while this one formats the types, builds the registry, the catalog's text and its
    // index, and does the caller's `beside` work (the listing report). Tokens are not `Send`, so
    // a file is built on the thread that formats it.
    let types_tokens = std::mem::take(&mut types.tokens);
    let mut rendered = Renderer::default();
    let (types_rs, (client_rs, catalog_json, index_rs, beside), registry_rs) =
        std::thread::scope(|scope| {
            let ops = &types.ops;
            let catalog = &catalog;
            let client = scope.spawn(|| {
                let mut rendered = Renderer::default();
                let client = rendered.file("src/client.rs", client::file(api, ops, &prefix, gates));
                (client, rendered)
            });
            let types_rs = rendered.file("src/types.rs", types_tokens);
            let catalog_source = quote!(include_str!("../catalog.json"));
            let registry_rs = rendered.file(
                "src/registry.rs",
                registry::file(api, ops, catalog_source, options.listing_budget, gates),
            );
            let text = catalog.to_json_pretty();
            let index = index::file(api, catalog, &text, gates);
            let index_rs = rendered.file("src/catalog_index.rs", index);
            let beside = beside(catalog);
            let (client_rs, other) = client
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            rendered.unparsable.extend(other.unparsable);
            (types_rs, (client_rs, text, index_rs, beside), registry_rs)
        });
    files.insert("src/types.rs".to_string(), types_rs);
    files.insert("src/client.rs".to_string(), client_rs);
    files.insert("src/registry.rs".to_string(), registry_rs);
    files.insert("src/catalog_index.rs".to_string(), index_rs);
    let with_harness = options.harness.is_some();
    files.insert(
        "src/lib.rs".to_string(),
        rendered.file("src/lib.rs", lib_rs(api, &types.ops, &name, with_harness)),
    );
    if let Some(bundle) = &options.harness {
        files.insert(
            "harness.json".to_string(),
            harness_gen_contract::harness::to_pretty_json(bundle),
        );
        let harness = rendered.file("src/harness.rs", harness_rs());
        files.insert("src/harness.rs".to_string(), harness);
    }
    let cli_doc = format!(
        " The `{name}` command-line program: every CLI tool of the registry as a subcommand."
    );
    let path = format!("src/bin/{name}.rs");
    let cli = rendered.file(&path, bin_rs(&cli_doc, Program::Cli, &ident, with_harness));
    files.insert(path, cli);
    let mcp_doc = format!(
        " The `{name}-mcp` MCP server: every MCP tool of the registry, over stdio or Streamable HTTP (and the operator dashboard beside it, with the `dashboard` feature)."
    );
    let path = format!("src/bin/{name}-mcp.rs");
    let mcp = rendered.file(&path, bin_rs(&mcp_doc, Program::Mcp, &ident, with_harness));
    files.insert(path, mcp);
    files.insert("catalog.json".to_string(), catalog_json);
    // A generated crate has operation features only when its types and client are gated by
    // them (`Gates::features`).
    let groups = if gates.features() {
        group_lines(api)
    } else {
        Vec::new()
    };
    files.insert(
        "Cargo.toml".to_string(),
        cargo_toml(api, &name, options, &groups),
    );
    files.insert(
        "README.md".to_string(),
        readme(api, &types, &name, options, &groups),
    );
    files.extend(license_files(api));
    let unparsable = rendered
        .unparsable
        .into_iter()
        .map(|broken| (types.origin_of(&broken), broken))
        .collect();
    let krate = Crate {
        files,
        fallbacks: types.fallbacks,
        unparsable,
    };
    (krate, catalog, beside)
}

/// The crate's `Cargo.toml`.
fn cargo_toml(api: &Api, name: &str, options: &Options, groups: &[GroupLine]) -> String {
    let description = api
        .info
        .description
        .as_deref()
        .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(str::to_string)
        .unwrap_or_else(|| format!("Typed client and tool registry for {}", api.info.title));
    let runtime_version = concat!("version = \"", env!("CARGO_PKG_VERSION"), "\"");
    let runtime = match &options.runtime_path {
        Some(path) => format!("{runtime_version}, path = {}", toml_string(path)),
        None => runtime_version.to_string(),
    };
    let cargo = CargoToml {
        bin: name,
        command: &options.command,
        name: toml_string(name),
        version: toml_string(&crate_version(&api.info.version)),
        description: toml_string(&description),
        license: api
            .info
            .license
            .as_deref()
            .filter(|l| is_spdx_like(l))
            .map(toml_string),
        runtime,
        groups,
    };
    render_template(&cargo)
}

/// The crate's README: how to call it, its features, the environment it reads.
fn readme(
    api: &Api,
    types: &super::Types,
    name: &str,
    options: &Options,
    groups: &[GroupLine],
) -> String {
    let ident = name.replace('-', "_");
    let prefix = ident.to_ascii_uppercase();
    let exposed = api.operations.iter().filter(|op| op.expose).count();
    let readme = Readme {
        crate_name: name,
        title: &api.info.title,
        api_version: &api.info.version,
        description: api.info.description.as_deref().unwrap_or_default(),
        program: quickstart_program(api, &types.ops, name),
        operations: api.operations.len(),
        tools: exposed,
        base_url_env: format!("{prefix}_BASE_URL"),
        base_url: api.servers.first().map(String::as_str).unwrap_or("(none)"),
        env: client::credential_env(api, &prefix),
        command: &options.command,
        groups,
        pages: first_call(
            types
                .ops
                .iter()
                .filter_map(|o| Some((o, &o.pages.as_ref()?.0))),
        ),
        events: first_call(
            types
                .ops
                .iter()
                .filter_map(|o| Some((o, &o.events.as_ref()?.0))),
        ),
        downloads: first_call(
            types
                .ops
                .iter()
                .filter_map(|o| Some((o, o.download.as_ref()?))),
        ),
        // Operations whose body may carry files (multipart or bytes).
        uploads: first_call(
            api.operations
                .iter()
                .zip(&types.ops)
                .filter(|(op, _)| {
                    op.binding.body.as_ref().is_some_and(|body| {
                        matches!(body.encoding, Encoding::Multipart | Encoding::Bytes)
                    })
                })
                .map(|(_, o)| (o, &o.method)),
        ),
    };
    render_template(&readme)
}

pub(crate) fn render_template(template: &impl Template) -> String {
    let mut text = template.render().unwrap_or_default();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// SPDX expressions are words of letters, digits, `.`, `-`, `+` joined by AND/OR/WITH.
/// The texts of the licenses the crate declares (its document's SPDX expression), for those
/// whose text this generator carries: MIT and Apache-2.0, the Rust ecosystem's usual pair. A
/// published crate ships its license's text; other licenses name theirs in `Cargo.toml` only.
fn license_files(api: &Api) -> Vec<(String, String)> {
    let Some(expression) = api.info.license.as_deref().filter(|l| is_spdx_like(l)) else {
        return Vec::new();
    };
    let ids: Vec<&str> = expression
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .collect();
    let mut files = Vec::new();
    if ids.contains(&"MIT") {
        // The MIT text after our own copyright line, under the description's authors.
        let text = include_str!("../../LICENSE-MIT");
        let terms = text.split_once("\n\n").map_or(text, |(_, terms)| terms);
        let holder = format!("Copyright (c) The authors of {}", api.info.title.trim());
        files.push(("LICENSE-MIT".to_string(), format!("{holder}\n\n{terms}")));
    }
    if ids.contains(&"Apache-2.0") {
        let text = include_str!("../../LICENSE-APACHE");
        files.push(("LICENSE-APACHE".to_string(), text.to_string()));
    }
    files
}

fn is_spdx_like(license: &str) -> bool {
    !license.is_empty()
        && license.split_whitespace().all(|w| {
            w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'(' | b')'))
        })
}

/// The first of `calls` (each an operation's types and one of its methods) as a call
/// (`list_pets_pages(&input)`), and how many there are.
fn first_call<'a>(
    mut calls: impl Iterator<Item = (&'a super::OpTypes, &'a String)>,
) -> Option<(String, usize)> {
    let (o, name) = calls.next()?;
    let input = if o.takes_input { "&input" } else { "" };
    Some((format!("{name}({input})"), 1 + calls.count()))
}

/// The programs of a generated crate.
#[derive(Clone, Copy)]
enum Program {
    /// The command-line program.
    Cli,
    /// The MCP server.
    Mcp,
}

/// A program of the crate: one call into the runtime's CLI or MCP server over the crate's
/// registry (the MCP server's dashboard also shows the embedded bundle, `with_harness`).
fn bin_rs(
    doc: &str,
    program: Program,
    ident: &str,
    with_harness: bool,
) -> proc_macro2::TokenStream {
    let krate = quote::format_ident!("{}", ident);
    // The registry of the tools a run keeps, with the base URL given on the command line.
    let registry = quote! {
        &|base_url, keep| {
            let mut builder = #krate::Client::env_builder();
            if let Some(url) = base_url {
                builder = builder.base_url(url);
            }
            let client = #krate::Client::from_builder(builder).map_err(|e| e.to_string())?;
            #krate::registry_of(client, keep).map_err(|e| e.to_string())
        }
    };
    let call = match program {
        Program::Cli => quote! {
            harness_gen_runtime::cli::main(&harness_gen_runtime::cli::Program {
                name: env!("CARGO_BIN_NAME"),
                version: env!("CARGO_PKG_VERSION"),
                index: Some(&#krate::CATALOG_INDEX),
                registry: #registry,
            })
        },
        Program::Mcp => {
            let harness = if with_harness {
                quote!(Some(#krate::harness::BUNDLE_JSON))
            } else {
                quote!(None)
            };
            quote! {
                harness_gen_runtime::mcp::main(&harness_gen_runtime::mcp::Program {
                    name: env!("CARGO_BIN_NAME"),
                    version: env!("CARGO_PKG_VERSION"),
                    registry: #registry,
                    harness: #harness,
                })
            }
        }
    };
    quote! {
        #![doc = #doc]

        #[global_allocator]
        static ALLOCATOR: harness_gen_runtime::Allocator = harness_gen_runtime::Allocator;

        #[rustfmt::skip]
        fn main() -> std::process::ExitCode {
            #call
        }
    }
}

/// The module over the embedded `.harness` bundle.
fn harness_rs() -> proc_macro2::TokenStream {
    quote! {
        //! The `.harness` bundle compiled into this crate, resolved at run time.

        use harness_gen_runtime::ToolRegistry;
        use harness_gen_runtime::harness::{Bundle, Embedded, ResolutionReport, Revision};

        /// The bundle as IR 0.2.0 JSON.
        pub const BUNDLE_JSON: &str = include_str!("../harness.json");

        static EMBEDDED: Embedded = Embedded::new(BUNDLE_JSON);

        /// The bundle, parsed on first use.
        pub fn bundle() -> Result<&'static Bundle, &'static str> {
            EMBEDDED.bundle()
        }

        /// Resolves harness `harness` against `runtime` (default: the only target, else the
        /// only declared runtime) into a revision, or the report of why it cannot be.
        pub fn resolve(
            harness: &str,
            runtime: Option<&str>,
        ) -> Result<Revision, Box<ResolutionReport>> {
            EMBEDDED.resolve(harness, runtime)
        }

        /// The agent surface of role `agent` in `revision`: the registry's agent projection
        /// restricted to the tools that role requires.
        pub fn role_registry(
            registry: &ToolRegistry,
            revision: &Revision,
            agent: &str,
        ) -> Option<ToolRegistry> {
            registry.for_role(revision, agent)
        }
    }
}

/// The compile-time check that the runtime implements the API this code is written for.
pub(crate) fn require_api() -> proc_macro2::TokenStream {
    let api = proc_macro2::Literal::u32_unsuffixed(harness_gen_wire::API_VERSION);
    let generator = env!("CARGO_PKG_VERSION");
    quote!(harness_gen_runtime::require_api!(api = #api, generator = #generator);)
}

/// The crate doc's quickstart, a doc test that compiles: a client from the environment and
/// the first three operations that take no input (each a plain call, not a download or a
/// stream), with their variables named for the crate.
fn quickstart(api: &Api, ops: &[super::OpTypes], name: &str) -> Vec<String> {
    let (from, client, calls) = quickstart_lines(api, ops, name);
    let mut lines = vec![
        "## Quickstart".to_string(),
        String::new(),
        "```no_run".to_string(),
        "# async fn quickstart() -> Result<(), Box<dyn std::error::Error>> {".to_string(),
        from,
        client,
    ];
    lines.extend(calls.iter().cloned());
    if calls.is_empty() {
        lines.push("# let _ = client;".to_string());
    }
    lines.extend([
        "# Ok(())".to_string(),
        "# }".to_string(),
        "```".to_string(),
        String::new(),
        "Every operation is a method of its resource where the command-line program groups it"
            .to_string(),
        "(`client.<group>().<command>(required…).optional(…).await`), and of `Client` itself,"
            .to_string(),
        "taking the operation's input (`…Input::new(required…).optional(…)`); the README says"
            .to_string(),
        "more.".to_string(),
    ]);
    lines
}

/// The README's program: the crate doc's quickstart (which compiles as a doc test) as a whole
/// `main` a user can paste.
fn quickstart_program(api: &Api, ops: &[super::OpTypes], name: &str) -> String {
    let (from, client, calls) = quickstart_lines(api, ops, name);
    let mut program = String::from(
        "#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {\n",
    );
    for line in [from, client].iter().chain(&calls) {
        program.push_str("    ");
        program.push_str(line);
        program.push('\n');
    }
    if calls.is_empty() {
        program.push_str("    let _ = client;\n");
    }
    program.push_str("    Ok(())\n}");
    program
}

/// The quickstart's lines: where the client's settings come from (a comment), the client, and
/// each call with its printed reply.
fn quickstart_lines(
    api: &Api,
    ops: &[super::OpTypes],
    name: &str,
) -> (String, String, Vec<String>) {
    let ident = name.replace('-', "_");
    let prefix = ident.to_ascii_uppercase();
    let credentials: Vec<String> = client::credential_env(api, &prefix)
        .into_iter()
        .flat_map(|(_, vars)| vars)
        .map(|var| format!("`{var}`"))
        .collect();
    let from = if credentials.is_empty() {
        format!("`{prefix}_BASE_URL`")
    } else {
        format!("`{prefix}_BASE_URL`, {}", credentials.join(", "))
    };
    let mut calls = Vec::new();
    for (reply, call) in quick_calls(api, ops) {
        calls.push(format!("let {reply} = {call}.await?;"));
        calls.push(format!("println!(\"{{{reply}:?}}\");"));
    }
    (
        format!("// The base URL and credentials from the environment ({from})."),
        format!("let client = {ident}::Client::from_env()?;"),
        calls,
    )
}

/// The quickstart's calls: up to three operations that read (GET first), reached by resource
/// where they can be, whose required values all have an example literal; each as (variable,
/// call expression).
fn quick_calls(api: &Api, ops: &[super::OpTypes]) -> Vec<(String, String)> {
    let by_resource = super::resources::calls(api, ops);
    let mut candidates: Vec<(bool, usize, String, String)> = Vec::new();
    for (at, ((op, types), resource)) in
        api.operations.iter().zip(ops).zip(&by_resource).enumerate()
    {
        if types.events_only || types.download.is_some() {
            continue;
        }
        let call = match (resource, &types.input_shape) {
            (Some(reach), Some(shape)) => {
                let args: Option<Vec<String>> = super::resources::arguments(op, shape)
                    .into_iter()
                    .map(|f| f.example.clone())
                    .collect();
                let Some(args) = args else { continue };
                format!(
                    "client.{}().{}({})",
                    reach.accessor,
                    reach.method,
                    args.join(", ")
                )
            }
            (Some(reach), None) if !types.takes_input => {
                format!("client.{}().{}()", reach.accessor, reach.method)
            }
            _ if !types.takes_input => format!("client.{}()", types.method),
            _ => continue,
        };
        let reads = op.binding.method == harness_gen_wire::binding::Method::Get;
        let reply = match types.method.as_str() {
            "client" => "reply".to_string(),
            method => method.to_string(),
        };
        candidates.push((!reads, at, reply, call));
    }
    candidates.sort();
    candidates
        .into_iter()
        .take(3)
        .map(|(_, _, reply, call)| (reply, call))
        .collect()
}

fn lib_rs(
    api: &Api,
    ops: &[super::OpTypes],
    name: &str,
    with_harness: bool,
) -> proc_macro2::TokenStream {
    let title = format!(
        " `{name}`: a typed client and tool registry for {}.",
        api.info.title
    );
    let description = api
        .info
        .description
        .as_deref()
        .unwrap_or_default()
        .lines()
        .map(|l| format!(" {l}"))
        .collect::<Vec<_>>();
    let quickstart = quickstart(api, ops, name).into_iter().map(|line| {
        if line.is_empty() {
            line
        } else {
            format!(" {line}")
        }
    });
    let generated = format!(
        " Generated by harness-gen from the API's OpenAPI description (version {}). Edits are lost when the crate is regenerated: change the description or the generator's options instead.",
        api.info.version
    );
    let harness_mod = with_harness.then(|| {
        quote! {
            #[cfg(feature = "registry")]
            #[rustfmt::skip]
            pub mod harness;
        }
    });
    let require_api = require_api();
    let lints = super::document_lints(true);
    let skew = super::layout::comment(
        "A runtime that implements another API than this code was generated for refuses to\n\
         compile it, saying what to do.",
        false,
    );
    let layout = super::layout::comment(
        "Generated files keep their printed layout; rustfmt leaves them alone so that `cargo fmt`\n\
         never makes a checked-in crate stale.",
        false,
    );
    let order = super::layout::comment(
        "In rustfmt's order, so that `cargo fmt` leaves the file as it is.",
        false,
    );
    quote! {
        #![doc = #title]
        #![doc = ""]
        #(#![doc = #description])*
        #![doc = ""]
        #(#![doc = #quickstart])*
        #![doc = ""]
        #![doc = #generated]
        #lints

        #skew
        #require_api

        #layout
        #[rustfmt::skip]
        pub mod client;
        #[cfg(feature = "registry")]
        #[rustfmt::skip]
        pub mod registry;
        #[cfg(feature = "registry")]
        #[rustfmt::skip]
        pub mod catalog_index;
        #[rustfmt::skip]
        pub mod types;
        #harness_mod

        #order
        #[cfg(feature = "registry")]
        pub use catalog_index::CATALOG_INDEX;
        pub use client::{Client, Error};
        #[cfg(feature = "registry")]
        pub use registry::{CATALOG_JSON, registry, registry_of};
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_crate_is_named_by_its_titles_words_without_api() {
        for (title, name) in [
            ("OpenAI API", "openai"),
            ("Stripe API", "stripe"),
            ("GitHub v3 REST API", "github-v3"),
            ("Swagger Petstore", "swagger-petstore"),
            ("API", "api"),
            ("3D Printing API", "api-3d-printing"),
        ] {
            assert_eq!(super::crate_name(title), name, "{title}");
        }
    }

    #[test]
    fn toml_strings_escape_every_control_character_toml_refuses() {
        assert_eq!(
            super::toml_string("a\u{7f}b\u{1}\u{1b}\"\\\n\té"),
            r#""a\u007Fb\u0001\u001B\"\\\n\té""#
        );
    }
}

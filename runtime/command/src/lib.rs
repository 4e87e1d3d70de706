//! `harness-gen-command`: the command-line program of a generated crate (the runtime's feature
//! `cli`), built at run time from the
//! registry's CLI-audience tools: a command tree from `cli.command` paths and the catalog's
//! parent-command metadata, options from input properties and their argument specs, the whole
//! input as JSON (`--input-json`, inline, `@file` or `-`), three output formats, the closed
//! failure envelope with one exit code per failure kind, and shell completions.
//!
//! A generated `src/bin/<name>.rs` is one call to [`main`].

mod args;
mod commands;
mod output;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{Arg, ArgMatches, Command};
use serde_json::{Map, Value};

use harness_gen_contract::{catalog, cli_names};
use harness_gen_registry::{Composer, EventOutput, Factory, ToolError, ToolRegistry, render};
use harness_gen_types::upload;
use harness_gen_wire::binding::StreamEnd;
use harness_gen_wire::{RuntimeCategory, binding, mask_serde_message};

use crate::binding::{MAX_PAGES, PageFault, PageTrail, Pagination};
use crate::catalog::index::CatalogIndex;
use crate::catalog::{Audience, CommandSpec, Entry};
use crate::cli_names::{
    BASE_URL, COMPLETIONS, INCLUDE, INPUT_JSON, OUTPUT_FILE, OUTPUT_FORMAT, PAGE_LIMIT, PAGINATE,
};
pub use crate::commands::root;
use crate::commands::{Commands, leaf, tree};
use crate::render::{cli_exit_code, cli_failure_envelope, cli_usage_envelope, exit_code};
/// The command-line parser the program is made with ([`root`]).
pub use clap;

/// A command-line program: what a generated `src/bin/<name>.rs` hands to [`main`].
pub struct Program<'a> {
    /// The program's name (`env!("CARGO_BIN_NAME")`).
    pub name: &'a str,
    /// Its version (`env!("CARGO_PKG_VERSION")`).
    pub version: &'a str,
    /// The index of the catalog the registry is read from (a generated crate's
    /// `CATALOG_INDEX`): with it, a run reads only the entry of the command it runs, and its
    /// start-up does not grow with the API. Without it every tool is read.
    pub index: Option<&'a CatalogIndex>,
    /// Builds the registry.
    pub registry: &'a Factory<'a>,
}

/// How a program that serves a composed registry makes its [`Composer`], given the
/// `--base-url` of the command line.
pub type Composing<'a> = dyn Fn(Option<String>) -> Result<Composer, String> + 'a;

/// A command-line program over a registry composed from several sources (APIs mounted with
/// [`Composer::mount_lazy`], tools written in Rust): what its `main` hands to
/// [`main_composed`]. Its commands are listed from the composition before any mounted entry is
/// read, so a run reads only the entries of the command it runs, as a generated program does.
pub struct Composed<'a> {
    /// The program's name (`env!("CARGO_BIN_NAME")`).
    pub name: &'a str,
    /// Its version (`env!("CARGO_PKG_VERSION")`).
    pub version: &'a str,
    /// Makes the composition; the program publishes it with the tools the command line names.
    pub composer: &'a Composing<'a>,
}

/// Where a program's registry comes from.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// A factory, with the index of the catalog it reads, if any.
    Factory(Option<&'a CatalogIndex>, &'a Factory<'a>),
    /// A composition.
    Composer(&'a Composing<'a>),
}

/// How a run builds its registry, once it knows which tools to read.
enum Build<'a> {
    Factory(&'a Factory<'a>),
    Composer(Box<Composer>),
}

/// Runs the program with the process arguments and standard streams; the exit code says how
/// it ended (0 success, 2 usage or invalid input, 3 application error, 4 runtime error,
/// 5 contract violation).
///
/// Logs (see `harness_gen_registry::logs`) go to standard error only when `RUST_LOG` asks for
/// them: the program's own output already says how each call ended.
pub fn main(program: &Program<'_>) -> ExitCode {
    let source = Source::Factory(program.index, program.registry);
    main_of((program.name, program.version), source)
}

/// [`main`] for a program over a composed registry.
pub fn main_composed(program: &Composed<'_>) -> ExitCode {
    main_of(
        (program.name, program.version),
        Source::Composer(program.composer),
    )
}

fn main_of(program: (&str, &str), source: Source<'_>) -> ExitCode {
    use harness_gen_registry::logs;
    match logs::LogFormat::from_env() {
        Ok(format) => logs::install("error", format, None),
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(2);
        }
    }
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let is_tty = std::io::IsTerminal::is_terminal(&stdout);
    let code = run_source(
        program,
        source,
        std::env::args_os().collect(),
        &mut stdout.lock(),
        &mut stderr.lock(),
        is_tty,
    );
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Runs the program with `args` (program name first), writing to `out` and `err`.
/// `is_tty` picks the default output format (pretty on a terminal, compact JSON otherwise).
pub fn run(
    program: &Program<'_>,
    args: Vec<OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    is_tty: bool,
) -> i32 {
    let source = Source::Factory(program.index, program.registry);
    run_source(
        (program.name, program.version),
        source,
        args,
        out,
        err,
        is_tty,
    )
}

/// [`run`] for a program over a composed registry.
pub fn run_composed(
    program: &Composed<'_>,
    args: Vec<OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    is_tty: bool,
) -> i32 {
    let source = Source::Composer(program.composer);
    run_source(
        (program.name, program.version),
        source,
        args,
        out,
        err,
        is_tty,
    )
}

fn run_source(
    (name, version): (&str, &str),
    source: Source<'_>,
    args: Vec<OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    is_tty: bool,
) -> i32 {
    // Completions describe every command; otherwise only the invoked command gets its options.
    let focus = prescan(&args, COMPLETIONS)
        .is_none()
        .then(|| path_words(&args));
    let base_url = prescan(&args, BASE_URL);
    // With an index or a composition, the commands are known before any entry is read, and
    // only the tools the command line names are read; without either, every tool is.
    let (index, build) = match source {
        Source::Factory(index, factory) => (index, Build::Factory(factory)),
        Source::Composer(make) => match make(base_url.clone()) {
            Ok(composer) => (None, Build::Composer(Box::new(composer))),
            Err(why) => {
                let _ = writeln!(err, "error: {why}");
                return exit_code::RUNTIME;
            }
        },
    };
    let listing = match &build {
        Build::Composer(composer) => Some(composer.listing()),
        Build::Factory(_) => None,
    };
    let listed = match &listing {
        Some(listing) => Some(Commands::composed(listing, None)),
        None => index.map(Commands::indexed),
    };
    let wanted: Option<Vec<&str>> = listed
        .as_ref()
        .zip(focus.as_deref())
        .map(|(commands, words)| commands.named(words));
    let keep = |tool: &str| wanted.as_ref().is_none_or(|names| names.contains(&tool));
    let built = match build {
        Build::Composer(composer) => composer.publish_kept(&keep).map_err(|e| e.to_string()),
        Build::Factory(factory) => factory(base_url, &keep),
    };
    // A one-shot process: the registry (and the command tree below) are never dropped, since
    // tearing down a 1,000-tool registry costs more than printing one help page.
    let registry = match built {
        Ok(registry) => std::mem::ManuallyDrop::new(registry),
        Err(why) => {
            let _ = writeln!(err, "error: {why}");
            return exit_code::RUNTIME;
        }
    };
    let commands = match (&listing, listed) {
        (Some(listing), _) => Commands::composed(listing, Some(&registry)),
        (None, Some(indexed)) => indexed,
        (None, None) => Commands::loaded(&registry),
    };
    let mut command = std::mem::ManuallyDrop::new(tree(
        (name, version),
        &commands,
        &registry,
        focus.as_deref(),
    ));
    let matches = match command.try_get_matches_from_mut(args) {
        Ok(matches) => matches,
        Err(error) => {
            let code = if error.use_stderr() {
                exit_code::INVALID_INPUT
            } else {
                exit_code::SUCCESS
            };
            let rendered = error.render().to_string();
            let _ = if error.use_stderr() {
                write!(err, "{rendered}")
            } else {
                write!(out, "{rendered}")
            };
            return code;
        }
    };
    if let Some(shell) = matches.get_one::<String>(COMPLETIONS) {
        return completions(
            std::mem::ManuallyDrop::into_inner(command),
            name,
            shell,
            out,
            err,
        );
    }
    let Some((tool, leaf)) = leaf(&registry, &matches) else {
        let _ = write!(out, "{}", command.render_help());
        return exit_code::INVALID_INPUT;
    };
    let format = output::Format::pick(
        matches.get_one::<String>(OUTPUT_FORMAT).map(String::as_str),
        is_tty,
    );
    let input = match input_of(tool, leaf, matches.get_one::<String>(INPUT_JSON), &registry) {
        Ok(input) => input,
        Err(why) => return refuse(tool, &why, out, err),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(_) => return exit_code::RUNTIME,
    };
    let call = Call {
        registry: &registry,
        tool,
        format,
        runtime: &runtime,
        replies: harness_gen_client::Replies::new(),
        include: matches.get_flag(INCLUDE),
    };
    let page_limit = matches.get_one::<u32>(PAGE_LIMIT).copied();
    if matches.get_flag(PAGINATE) {
        return call.paginate(input, page_limit, out, err);
    }
    if page_limit.is_some() {
        return refuse(tool, "--max-pages bounds --paginate; give both", out, err);
    }
    let destination = matches.get_one::<String>(OUTPUT_FILE).map(String::as_str);
    if tool.returns_bytes() && destination.is_none() && is_tty {
        let why = "the output is binary: give --output FILE to save it, or --output - to write it to standard output";
        return refuse(tool, why, out, err);
    }
    call.once(input, destination, out, err)
}

/// A usage error of `tool`'s command: `why` on standard error, its envelope on standard output.
fn refuse(tool: &Entry, why: &str, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let _ = writeln!(err, "error: {why}");
    let _ = writeln!(out, "{}", cli_usage_envelope(&tool.name, why));
    exit_code::INVALID_INPUT
}

/// One command's call of its tool, once its input is read.
struct Call<'a> {
    registry: &'a ToolRegistry,
    tool: &'a Entry,
    format: output::Format,
    runtime: &'a tokio::runtime::Runtime,
    /// What the API's reply said, for `--include`.
    replies: harness_gen_client::Replies,
    include: bool,
}

impl Call<'_> {
    /// `--paginate`: every page, up to `page_limit` of them.
    fn paginate(
        &self,
        input: Value,
        page_limit: Option<u32>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> i32 {
        let tool = self.tool;
        let pagination = tool
            .source
            .as_ref()
            .and_then(|s| s.openapi_binding())
            .and_then(|b| b.pagination.as_ref());
        let Some(pagination) = pagination else {
            let why = format!(
                "`{}` does not list in pages, so --paginate has nothing to follow",
                tool.cli.command
            );
            return refuse(tool, &why, out, err);
        };
        let pages = Paginated {
            registry: self.registry,
            tool,
            pagination,
            format: self.format,
            max_pages: page_limit.unwrap_or(MAX_PAGES),
        };
        let code = self
            .replies
            .recording(|| self.runtime.block_on(pages.follow(input, out, err)));
        if self.include {
            print_reply(&self.replies, err);
        }
        code
    }

    /// One call, its output written to `destination` (a file, `-` or none: standard output).
    fn once(
        &self,
        input: Value,
        destination: Option<&str>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> i32 {
        let (registry, tool, runtime) = (self.registry, self.tool, self.runtime);
        // Files the user named with `@path` are read as they are sent.
        let call = self.replies.recording(|| {
            crate::upload::with_local_files(|| {
                runtime.block_on(registry.invoke_page(Audience::Cli, &tool.name, input))
            })
        });
        if self.include {
            print_reply(&self.replies, err);
        }
        let mut output = match call {
            Ok(output) => output,
            Err(error) => return fail(&error, out, err),
        };
        if let Some(events) = output.events.take() {
            return runtime.block_on(print_events(registry, &tool.name, events, out, err));
        }
        let chunks = match output.bytes {
            Some(bytes) => bytes.chunks,
            None => {
                let text = output::render(&output.value, self.format).into_bytes();
                Box::pin(futures::stream::iter([Ok(bytes::Bytes::from(text))]))
            }
        };
        let to_file = destination.is_some_and(|path| path != "-");
        let written = match destination {
            Some(path) if to_file => runtime
                .block_on(harness_gen_client::save_chunks(
                    std::path::Path::new(path),
                    chunks,
                ))
                .map_err(|failure| match failure {
                    harness_gen_client::Unsaved::Source(category) => Written::Source(category),
                    harness_gen_client::Unsaved::Write(error) => {
                        Written::Local(format!("{path}: {error}"))
                    }
                }),
            _ => runtime.block_on(copy_chunks(chunks, out)),
        };
        match written {
            Ok(_) => exit_code::SUCCESS,
            Err(Written::Source(category)) => {
                let error = ToolError::Runtime {
                    tool: tool.name.to_string(),
                    category,
                    hint: None,
                };
                if to_file {
                    fail(&error, out, err)
                } else {
                    // Part of the output went to standard output already: no envelope after it.
                    let _ = writeln!(err, "error: {error}");
                    cli_exit_code(&error)
                }
            }
            Err(Written::Local(why)) => {
                let _ = writeln!(err, "error: cannot write the output: {why}");
                exit_code::RUNTIME
            }
        }
    }
}

/// Prints each event of a tool that returns events as one JSON line as it arrives (flushed);
/// an event that fails its check is reported on standard error and the events go on. The exit
/// code is that of the last failure, if any.
async fn print_events(
    registry: &ToolRegistry,
    tool: &str,
    mut events: crate::EventOutput,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    use futures::StreamExt;
    let mut code = exit_code::SUCCESS;
    while let Some(item) = events.items.next().await {
        match registry.event(Audience::Cli, tool, item) {
            Ok(event) => {
                let line = format!("{event}\n");
                if out
                    .write_all(line.as_bytes())
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    // Standard output is gone (a closed pipe): stop listening.
                    return exit_code::RUNTIME;
                }
            }
            Err(error) => {
                let _ = writeln!(err, "error: {error}");
                code = cli_exit_code(&error);
            }
        }
    }
    // How it ended, for whoever watches: an end marker, or a server that just stopped (with
    // an API that sends a marker, a stream cut short), or a failure said above.
    let end = match events.end.as_ref().and_then(|end| end.get()) {
        Some(StreamEnd::Sentinel) => "the server sent its end marker",
        Some(StreamEnd::Closed) => "the server closed it",
        Some(StreamEnd::Broken) => "broken off by the error above",
        None => return code,
    };
    let _ = writeln!(err, "stream ended: {end}");
    code
}

/// `--include`: the last reply's status and headers on standard error, as HTTP writes them.
fn print_reply(replies: &harness_gen_client::Replies, err: &mut dyn Write) {
    let Some(reply) = replies.last() else {
        return;
    };
    let mut text = format!("HTTP {}\n", reply.status);
    for (name, value) in &reply.headers {
        text.push_str(&format!("{name}: {value}\n"));
    }
    let _ = writeln!(err, "{text}");
}

/// Why an output was not written whole.
enum Written {
    /// Its source failed (a download broken off, a timeout).
    Source(crate::RuntimeCategory),
    /// The local file or stream could not be written.
    Local(String),
}

/// Writes `chunks` to `out` as they arrive, flushing each.
async fn copy_chunks(
    mut chunks: futures::stream::BoxStream<'static, Result<bytes::Bytes, crate::RuntimeCategory>>,
    out: &mut dyn Write,
) -> Result<u64, Written> {
    use futures::StreamExt;
    let mut written = 0;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(Written::Source)?;
        out.write_all(&chunk)
            .and_then(|()| out.flush())
            .map_err(|e| Written::Local(e.to_string()))?;
        written += chunk.len() as u64;
    }
    Ok(written)
}

/// `--paginate`: one call per page through the invocation path, each next page's arguments
/// merged into the input, until the last page (at most `--max-pages`, default [`MAX_PAGES`];
/// never a page twice). More pages than allowed is an error, not a silent end.
struct Paginated<'a> {
    registry: &'a ToolRegistry,
    tool: &'a Entry,
    pagination: &'a Pagination,
    format: output::Format,
    max_pages: u32,
}

impl Paginated<'_> {
    async fn follow(&self, mut input: Value, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
        let lines = self.format == output::Format::Jsonl;
        let mut trail = PageTrail::starting(&input, self.max_pages);
        let mut items = Vec::new();
        loop {
            let page = self
                .registry
                .invoke_page(Audience::Cli, &self.tool.name, input.clone())
                .await;
            let mut page = match page {
                Ok(page) => page,
                Err(error) => return fail(&error, out, err),
            };
            let received = self.pagination.take_items(&mut page.value);
            if lines {
                let _ = out.write_all(output::jsonl(&Value::Array(received)).as_bytes());
                let _ = out.flush();
            } else {
                items.extend(received);
            }
            let Some(next) = page.next_page else { break };
            input = match trail.next(&input, &next) {
                Ok(next) => next,
                Err(PageFault(why)) => {
                    let error = ToolError::Runtime {
                        tool: self.tool.name.to_string(),
                        category: crate::RuntimeCategory::Internal,
                        hint: None,
                    };
                    let _ = writeln!(err, "error: {why}");
                    return fail(&error, out, err);
                }
            };
        }
        if !lines {
            let _ = out.write_all(output::render(&Value::Array(items), self.format).as_bytes());
        }
        exit_code::SUCCESS
    }
}

fn fail(error: &ToolError, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let _ = writeln!(out, "{}", cli_failure_envelope(error));
    let _ = writeln!(err, "error: {error}");
    if let ToolError::Reply { reply, .. } = error
        && !reply.excerpt.is_empty()
    {
        // What the API said is what the user acts on (a wrong key, a proxy's page): its first
        // bytes, credentials already redacted, control characters escaped for the terminal.
        let _ = writeln!(err, "  the reply began: {}", terminal_safe(&reply.excerpt));
    }
    cli_exit_code(error)
}

/// `text` with its control characters (escape sequences a hostile server could send to the
/// terminal, line breaks) written as escapes.
fn terminal_safe(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_control() {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect()
}

fn completions(
    mut command: Command,
    name: &str,
    shell: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    use clap_complete::Shell;
    let shell = match shell {
        "bash" => Shell::Bash,
        "zsh" => Shell::Zsh,
        "fish" => Shell::Fish,
        "powershell" => Shell::PowerShell,
        other => {
            let _ = writeln!(
                err,
                "error: no completions for `{other}`: use bash, zsh, fish or powershell"
            );
            return exit_code::INVALID_INPUT;
        }
    };
    clap_complete::generate(shell, &mut command, name.to_string(), out);
    exit_code::SUCCESS
}

/// The value of a global option in `args` (`--name value` or `--name=value`), read before
/// parsing so the registry can be built once, with the right base URL.
fn prescan(args: &[OsString], option: &str) -> Option<String> {
    let flag = format!("--{option}");
    let mut iter = args.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(arg) = iter.next() {
        if arg == flag {
            return iter.next().map(str::to_string);
        }
        if let Some(value) = arg.strip_prefix(&format!("{flag}=")) {
            return Some(value.to_string());
        }
    }
    None
}

/// The words of `args`: the arguments that are neither options nor values of the global
/// options that take one. A command line's command path is their beginning; positional
/// arguments follow it.
fn path_words(args: &[OsString]) -> Vec<String> {
    const TAKE_VALUES: [&str; 6] = [
        INPUT_JSON,
        OUTPUT_FORMAT,
        BASE_URL,
        OUTPUT_FILE,
        PAGE_LIMIT,
        COMPLETIONS,
    ];
    let mut words = Vec::new();
    let mut iter = args.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(arg) = iter.next() {
        if arg == "--" {
            break;
        }
        match arg.strip_prefix("--") {
            Some(option) if TAKE_VALUES.contains(&option) => {
                iter.next();
            }
            Some(_) => {}
            None if arg.starts_with('-') && arg != "-" => {}
            None => words.push(arg.to_string()),
        }
    }
    words
}

/// The tool's input: `--input-json` first, then every option given on the command line.
fn input_of(
    entry: &Entry,
    matches: &ArgMatches,
    json: Option<&String>,
    registry: &ToolRegistry,
) -> Result<Value, String> {
    let mut input = match json {
        None => Map::new(),
        Some(text) => {
            let text = read_json_source(text)?;
            match serde_json::from_str(&text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => return Err("--input-json must be a JSON object".into()),
                Err(e) => {
                    return Err(format!(
                        "--input-json is not valid JSON ({})",
                        crate::mask_serde_message(&e.to_string())
                    ));
                }
            }
        }
    };
    for (property, value) in args::values(entry, matches, registry)? {
        input.insert(property, value);
    }
    let mut input = Value::Object(input);
    args::local_files(&mut input, entry.input_schema.as_value(), registry, 0);
    Ok(input)
}

fn read_json_source(text: &str) -> Result<String, String> {
    if text == "-" {
        let mut buffer = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut buffer)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(buffer);
    }
    if let Some(path) = text.strip_prefix('@') {
        return std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"));
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::path_words;

    pub(crate) fn words(args: &[&str]) -> Vec<String> {
        let args: Vec<std::ffi::OsString> = std::iter::once("cli")
            .chain(args.iter().copied())
            .map(Into::into)
            .collect();
        path_words(&args)
    }

    #[test]
    fn a_command_lines_words_leave_out_options_and_the_values_of_global_options() {
        assert_eq!(
            words(&[
                "--output",
                "out.json",
                "--base-url=http://x",
                "repos",
                "get",
                "-v",
                "o",
                "r"
            ]),
            ["repos", "get", "o", "r"]
        );
        assert_eq!(
            words(&["--input-json", "-", "pets", "add", "--", "after"]),
            ["pets", "add"]
        );
        assert_eq!(
            words(&["pets", "list", "--limit", "2"]),
            ["pets", "list", "2"]
        );
    }
}

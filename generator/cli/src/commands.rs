//! `harness-gen harness compile|resolve|preamble|materialize-pi` (spec §7), `fmt` and `diff`, as
//! functions from arguments to what the command prints and its exit status, so they are
//! tested in-process.

use std::path::{Path, PathBuf};

use harness_gen_contract::harness::{self, Bundle, Revision, canonical::canonical_json};
use serde::Serialize;

use harness_gen_lang::diag::Sources;

/// How diagnostics are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Messages with the source line and a caret, on standard error.
    #[default]
    Human,
    /// `{"diagnostics":[…]}` on standard output.
    Json,
}

/// What a command printed and how it exits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// 0 success; 1 rejected program, failed resolution or refused output.
    pub status: u8,
}

/// Options every command shares.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Common {
    /// The `.harness` files, compiled together in this order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Print JSON canonically (sorted keys, no whitespace) instead of indented.
    #[arg(long)]
    pub canonical: bool,
}

/// Which harness against which runtime.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Selection {
    /// The harness to resolve.
    #[arg(long = "harness")]
    pub harness: String,
    /// The runtime (default: the only target, else the only declared runtime).
    #[arg(long)]
    pub runtime: Option<String>,
}

fn json<T: Serialize>(value: &T, canonical: bool) -> String {
    if canonical {
        format!("{}\n", canonical_json(value))
    } else {
        harness::to_pretty_json(value)
    }
}

fn compiled(common: &Common) -> Result<Bundle, Outcome> {
    let (sources, result) = harness_gen_lang::compile_files(&common.files);
    result
        .map(|compiled| compiled.bundle)
        .map_err(|diags| match common.format {
            Format::Json => Outcome {
                stdout: Sources::render_json(&diags),
                status: 1,
                ..Outcome::default()
            },
            Format::Human => Outcome {
                stderr: format!(
                    "{}{} error{} in {} file{}; no bundle was written\n",
                    sources.render(&diags),
                    diags.len(),
                    if diags.len() == 1 { "" } else { "s" },
                    common.files.len(),
                    if common.files.len() == 1 { "" } else { "s" },
                ),
                status: 1,
                ..Outcome::default()
            },
        })
}

fn resolved(common: &Common, selection: &Selection) -> Result<(Bundle, Revision), Outcome> {
    let bundle = compiled(common)?;
    match harness::resolve(&bundle, &selection.harness, selection.runtime.as_deref()) {
        Ok(revision) => Ok((bundle, revision)),
        Err(report) => {
            let stderr = match common.format {
                Format::Json => String::new(),
                Format::Human => report
                    .errors
                    .iter()
                    .map(|e| format!("error: {e}\n"))
                    .collect(),
            };
            Err(Outcome {
                stdout: json(&report, common.canonical),
                stderr,
                status: 1,
            })
        }
    }
}

/// `harness compile`: the bundle, or the diagnostics.
pub fn compile(common: &Common) -> Outcome {
    match compiled(common) {
        Ok(bundle) => Outcome {
            stdout: json(&bundle, common.canonical),
            ..Outcome::default()
        },
        Err(outcome) => outcome,
    }
}

/// `harness resolve`: the revision, or the failed resolution report.
pub fn resolve(common: &Common, selection: &Selection) -> Outcome {
    match resolved(common, selection) {
        Ok((_, revision)) => Outcome {
            stdout: json(&revision, common.canonical),
            ..Outcome::default()
        },
        Err(outcome) => outcome,
    }
}

/// `harness preamble`: the run preamble of the resolved revision.
pub fn preamble(common: &Common, selection: &Selection) -> Outcome {
    match resolved(common, selection) {
        Ok((bundle, revision)) => Outcome {
            stdout: json(&harness::preamble(&bundle, &revision), common.canonical),
            ..Outcome::default()
        },
        Err(outcome) => outcome,
    }
}

/// Where the package for `out` is assembled: `.<name>.<pid>.staged` in the same parent (so the
/// final rename stays on one file system).
fn staging_dir(out: &Path) -> std::path::PathBuf {
    let absolute = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let name = absolute
        .file_name()
        .map_or_else(|| "pi".into(), |n| n.to_string_lossy().into_owned());
    absolute.with_file_name(format!(".{name}.{}.staged", std::process::id()))
}

/// `harness materialize-pi`: writes the Pi package of the resolved revision into `out`, which
/// must be missing or empty.
pub fn materialize_pi(common: &Common, selection: &Selection, out: &Path) -> Outcome {
    let refuse = |message: String| Outcome {
        stderr: format!("error: {message}\n"),
        status: 1,
        ..Outcome::default()
    };
    let (bundle, revision) = match resolved(common, selection) {
        Ok(resolved) => resolved,
        Err(outcome) => return outcome,
    };
    let files = match harness::pi_package(&bundle, &revision) {
        Ok(files) => files,
        Err(message) => return refuse(message),
    };
    match std::fs::read_dir(out).map(|mut entries| entries.next().is_some()) {
        Ok(true) => {
            return refuse(format!(
                "{} is not empty; materialize into a new or empty directory",
                out.display()
            ));
        }
        Ok(false) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return refuse(format!("cannot read {}: {error}", out.display())),
    }
    // The package is written into a staging directory beside `out` and renamed into place
    // whole, so a failed or interrupted run never leaves half a package behind.
    let staging = staging_dir(out);
    let _ = std::fs::remove_dir_all(&staging);
    let mut stdout = String::new();
    for file in &files {
        let path = staging.join(&file.path);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, &file.contents));
        if let Err(error) = written {
            let _ = std::fs::remove_dir_all(&staging);
            return refuse(format!("cannot write {}: {error}", path.display()));
        }
        stdout.push_str(&format!("wrote {}\n", out.join(&file.path).display()));
    }
    // `out` is missing or empty (checked above); an empty one makes way for the package.
    let placed = match std::fs::remove_dir(out) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
        _ => std::fs::rename(&staging, out),
    };
    if let Err(error) = placed {
        let _ = std::fs::remove_dir_all(&staging);
        return refuse(format!("cannot write {}: {error}", out.display()));
    }
    Outcome {
        stdout,
        ..Outcome::default()
    }
}

/// `harness fmt [--check] FILES`: each file in the canonical layout ([`harness_gen_lang::format`]),
/// written in place, or with `check` only listed when it is not. Exit status 0 when every
/// file is (or now is) formatted, 1 when `check` found one that is not, 2 when a file cannot
/// be read or does not parse (its diagnostics on standard error; it is left as it was).
pub fn fmt(files: &[PathBuf], check: bool) -> Outcome {
    let mut outcome = Outcome::default();
    for path in files {
        let name = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) => {
                outcome.stderr.push_str(&format!(
                    "error[HL0101]: {}: cannot read this file ({error}); check the path and permissions\n",
                    harness_gen::diag::printable(&name)
                ));
                outcome.status = 2;
                continue;
            }
        };
        let sources = Sources {
            files: vec![(name.clone(), text)],
        };
        let formatted = match harness_gen_lang::format::format(&sources, 0) {
            Ok(formatted) => formatted,
            Err(diags) => {
                outcome.stderr.push_str(&sources.render(&diags));
                outcome.stderr.push_str(&format!(
                    "{}: not formatted: it does not parse; fix the errors above first\n",
                    harness_gen::diag::printable(&name)
                ));
                outcome.status = 2;
                continue;
            }
        };
        if formatted == sources.files[0].1 {
            continue;
        }
        let shown = harness_gen::diag::printable(&name);
        if check {
            outcome
                .stdout
                .push_str(&format!("would reformat: {shown}\n"));
            outcome.status = outcome.status.max(1);
        } else if let Err(error) = harness_gen::output::write_atomically(path, &formatted) {
            outcome
                .stderr
                .push_str(&format!("error: cannot write {shown}: {error}\n"));
            outcome.status = 2;
        } else {
            outcome.stdout.push_str(&format!("formatted: {shown}\n"));
        }
    }
    outcome
}

/// How `harness diff` prints the changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// Grouped by harness and agent, for people.
    #[default]
    Text,
    /// `{"equal": …, "changes": […]}`, for tools.
    Json,
}

/// What `harness diff` compares.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct DiffArgs {
    /// The old program: a `.harness` file, or a compiled bundle (`.json`).
    pub old: PathBuf,
    /// The new program, likewise.
    pub new: PathBuf,
    /// Also compare this harness's resolved revisions.
    #[arg(long = "harness")]
    pub harness: Option<String>,
    /// The runtime to resolve on (default: the only target, else the only declared runtime).
    #[arg(long, requires = "harness")]
    pub runtime: Option<String>,
    /// How to print the changes.
    #[arg(long, value_enum, default_value_t)]
    pub format: DiffFormat,
    /// Also write a compare manifest (JSON) naming the harness and revision ids compared.
    #[arg(long)]
    pub manifest: Option<PathBuf>,
}

/// One side of a comparison, loaded: its bundle, or the diagnostics that kept it from
/// compiling (rendered).
fn load_side(path: &Path) -> Result<Bundle, String> {
    if path.extension().is_some_and(|e| e == "json") {
        let text = std::fs::read_to_string(path).map_err(|error| {
            format!(
                "error[HL0101]: {}: cannot read this file ({error})\n",
                path.display()
            )
        })?;
        return serde_json::from_str(&text).map_err(|error| {
            format!(
                "error: {}: not an IR 0.2.0 bundle ({}); compile it with `harness-gen harness compile`\n",
                path.display(),
                harness_gen_runtime::mask_serde_message(&error.to_string())
            )
        });
    }
    let (sources, result) = harness_gen_lang::compile_files(&[path]);
    result
        .map(|compiled| compiled.bundle)
        .map_err(|diags| sources.render(&diags))
}

/// `harness diff OLD NEW`: exit 0 when the programs (and, with `--harness`, the revisions) are
/// the same, 1 when they differ, 2 when either side does not compile or resolve.
pub fn diff(args: &DiffArgs) -> Outcome {
    let sides = (load_side(&args.old), load_side(&args.new));
    let (old, new) = match sides {
        (Ok(old), Ok(new)) => (old, new),
        (old, new) => {
            let stderr = [old.err(), new.err()].into_iter().flatten().collect();
            return Outcome {
                stderr,
                status: 2,
                ..Outcome::default()
            };
        }
    };
    let mut changes = harness_gen_lang::diff::bundles(&old, &new);
    let mut revisions = (None, None);
    if let Some(harness) = &args.harness {
        let runtime = args.runtime.as_deref();
        let resolved = (
            harness::resolve(&old, harness, runtime),
            harness::resolve(&new, harness, runtime),
        );
        match resolved {
            (Ok(a), Ok(b)) => {
                changes
                    .0
                    .extend(harness_gen_lang::diff::revisions(&a, &b).0);
                revisions = (Some(a), Some(b));
            }
            (a, b) => {
                let mut stderr = String::new();
                for (side, report) in [("old", a.err()), ("new", b.err())] {
                    for error in report.iter().flat_map(|r| &r.errors) {
                        stderr.push_str(&format!("error: {side}: {error}\n"));
                    }
                }
                return Outcome {
                    stderr,
                    status: 2,
                    ..Outcome::default()
                };
            }
        }
    }
    let equal = changes.0.is_empty();
    let stdout = match args.format {
        DiffFormat::Text if equal => String::new(),
        DiffFormat::Text => changes.text(),
        DiffFormat::Json => json(
            &serde_json::json!({"equal": equal, "changes": changes.0}),
            false,
        ),
    };
    let mut outcome = Outcome {
        stdout,
        stderr: String::new(),
        status: u8::from(!equal),
    };
    if let Some(path) = &args.manifest {
        let side = |file: &Path, bundle: &Bundle, revision: &Option<Revision>| {
            serde_json::json!({
                "source": file.display().to_string(),
                "harnessIds": bundle.harnesses.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
                "revision": revision.as_ref().map(|r| serde_json::json!({
                    "harnessId": r.harness.id,
                    "runtime": r.target.runtime,
                    "revisionId": r.revision_id,
                })),
            })
        };
        let manifest = serde_json::json!({
            "kind": "harness-compare",
            "old": side(&args.old, &old, &revisions.0),
            "new": side(&args.new, &new, &revisions.1),
            "equal": equal,
        });
        if let Err(error) = harness_gen::output::write_atomically(path, &json(&manifest, false)) {
            outcome.stderr = format!("error: cannot write {}: {error}\n", path.display());
            outcome.status = 2;
        }
    }
    outcome
}

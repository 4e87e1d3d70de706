//! A request body's fields as options of a tool's command, over real documents: every command
//! of a tool with an object request body lists each top-level field of the body as an option
//! in its `--help` (OpenAI's chat request, an `allOf`, included), renamed `--body-<name>` where
//! another option has the name, and takes the whole body as `--body` JSON whatever the shape
//! of its schema. The counts (tools, fields, renamed fields, bodies that are a choice and so
//! have no fields) are printed per document.
//!
//! The whole corpus, in CI (seconds: only `--help` and one refused or unsent call per tool).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use harness_gen_runtime::binding::Encoding;
use harness_gen_runtime::cli_names::body;
use harness_gen_runtime::{Audience, ToolRegistry};

use super::crash_sweep::{command_words, corpus, load, run_cli};
use super::wire::Sampler;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What one document's commands showed.
#[derive(Debug, Default)]
struct Counted {
    /// Tools of the CLI with an object (JSON, form or multipart) request body.
    tools: usize,
    /// Their bodies' top-level fields, each an option.
    fields: usize,
    /// Fields whose option is `--body-<name>`, another option having the name: (tool, field).
    renamed: Vec<(String, String)>,
    /// Bodies that are a choice of shapes (`oneOf`/`anyOf`), with no field every shape has.
    choices: usize,
    /// What went wrong: (command, why).
    faults: Vec<(String, String)>,
}

/// Runs the CLI of `registry` with `args` after the command's words; exit code and output.
fn run(registry: &ToolRegistry, words: &[String], args: &[String]) -> (i32, String) {
    let (code, out, err) = run_cli(registry, words.iter().chain(args).map(OsString::from));
    let text = String::from_utf8_lossy(&out).into_owned() + &String::from_utf8_lossy(&err);
    (code, text)
}

fn count(spec: &Path) -> Counted {
    let mut counted = Counted::default();
    let Some((registry, components)) = load(spec) else {
        return counted;
    };
    let sampler = Sampler {
        components: &components,
        examples: false,
        every_property: false,
    };
    let entries: Vec<_> = registry.list(Audience::Cli).cloned().collect();
    for entry in entries {
        let Some(binding) = entry
            .source
            .as_ref()
            .and_then(|s| s.openapi_binding())
            .and_then(|b| b.body.as_ref())
        else {
            continue;
        };
        if !matches!(
            binding.encoding,
            Encoding::Json | Encoding::Form | Encoding::Multipart
        ) {
            continue;
        }
        let property = binding.property.to_string();
        let Some(schema) = entry.input_schema.as_value()["properties"].get(&property) else {
            continue;
        };
        counted.tools += 1;
        let words = command_words(&entry);
        let shown = words.join(" ");
        let resolve = |name: &str| components.get(name);
        let fields = body::fields(schema, &resolve);
        let resolved = body::resolved(schema, &resolve);
        if fields.is_empty() && (resolved.get("oneOf").is_some() || resolved.get("anyOf").is_some())
        {
            counted.choices += 1;
        }
        let (code, help) = run(&registry, &words, &["--help".into()]);
        if code != 0 {
            counted
                .faults
                .push((shown.clone(), format!("--help exited {code}")));
            continue;
        }
        let options: Vec<&str> = help
            .split("Body fields:")
            .nth(1)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("--"))
            .filter_map(|l| l.split([' ', ',']).next())
            .collect();
        for field in &fields {
            let long = harness_gen_runtime::cli_names::default_long(field.name);
            if options.contains(&long.as_str()) {
                counted.fields += 1;
            } else if options.contains(&format!("body-{long}").as_str()) {
                counted.fields += 1;
                counted
                    .renamed
                    .push((entry.name.to_string(), field.name.to_string()));
            } else {
                counted.faults.push((
                    shown.clone(),
                    format!("no option for body field `{}`", field.name),
                ));
            }
        }
        // The whole body as `--body` JSON, whatever its schema's shape: read and validated as
        // the body, so the call gets as far as the (closed) network.
        let input = sampler.sample(entry.input_schema.as_value(), 0);
        let Some(body) = input.get(&property).filter(|b| b.is_object()) else {
            continue;
        };
        // An input the sampler could not make valid (a `oneOf` it cannot tell apart) says
        // nothing of `--body`: only one that passes as `--input-json` is tried.
        let (whole, _) = run(
            &registry,
            &words,
            &["--input-json".into(), input.to_string()],
        );
        if whole == 2 {
            continue;
        }
        let mut rest = input.clone();
        rest.as_object_mut().unwrap().remove(&property);
        let long = entry
            .cli
            .arguments
            .get(property.as_str())
            .and_then(|s| s.long.as_ref())
            .map_or_else(
                || harness_gen_runtime::cli_names::default_long(&property),
                |l| l.to_string(),
            );
        let positional = entry
            .cli
            .arguments
            .get(property.as_str())
            .is_some_and(|s| s.position.is_some());
        let mut args = vec!["--input-json".to_string(), rest.to_string()];
        if positional {
            args.push(body.to_string());
        } else {
            args.extend([format!("--{long}"), body.to_string()]);
        }
        let (code, out) = run(&registry, &words, &args);
        if code == 2 {
            counted
                .faults
                .push((shown, format!("--{long} JSON refused: {out}")));
        }
    }
    counted
}

fn assert_counted(documents: &[PathBuf]) {
    let mut faults = Vec::new();
    let mut total = Counted::default();
    for spec in documents {
        let counted = count(spec);
        total.tools += counted.tools;
        total.fields += counted.fields;
        total.choices += counted.choices;
        total.renamed.extend(counted.renamed.iter().cloned());
        println!(
            "{}: {} tools with an object body, {} fields as options, {} renamed {:?}, {} choices",
            spec.display(),
            counted.tools,
            counted.fields,
            counted.renamed.len(),
            counted.renamed.iter().take(5).collect::<Vec<_>>(),
            counted.choices
        );
        faults.extend(
            counted
                .faults
                .into_iter()
                .map(|(command, why)| format!("{}: `{command}`: {why}", spec.display())),
        );
    }
    println!(
        "all: {} tools with an object body, {} fields as options, {} renamed, {} choices",
        total.tools,
        total.fields,
        total.renamed.len(),
        total.choices
    );
    assert!(total.fields > 0, "no field was counted");
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn openais_chat_command_takes_its_body_fields_as_options_with_the_required_marked() {
    let spec = root().join("../shared/corpus/large/openai.openapi.2026-08-21.json");
    let (registry, _) = load(&spec).expect("OpenAI's description generates");
    let entry = registry
        .lookup(Audience::Cli, "create_chat_completion")
        .unwrap()
        .clone();
    let words = command_words(&entry);
    let (code, help) = run(&registry, &words, &["--help".into()]);
    assert_eq!(code, 0, "{help}");
    let line = |option: &str| {
        let at = help
            .find(&format!("--{option} <"))
            .unwrap_or_else(|| panic!("--{option} is listed: {help}"));
        // Its help runs to the next option.
        let rest = &help[at + 2..];
        let end = rest.find("\n      --").unwrap_or(rest.len());
        help[at..at + 2 + end].to_string()
    };
    assert!(line("model").contains("[required]"), "{}", line("model"));
    assert!(
        line("messages").contains("[required]"),
        "{}",
        line("messages")
    );
    assert!(help.contains("--stream"), "{help}");
    assert!(
        help.contains("--body <body>") && line("body").contains("(JSON object)"),
        "the allOf body is a JSON object: {}",
        line("body")
    );
    // Fields, JSON and assignments make one body, which passes validation (the call then fails
    // as transport: nothing listens).
    let (code, out) = run(
        &registry,
        &words,
        &[
            "--model".into(),
            "gpt-4o".into(),
            "--messages".into(),
            r#"[{"role":"user","content":"hi"}]"#.into(),
            "--stream".into(),
            "--field".into(),
            "temperature=0.2".into(),
        ],
    );
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("transport"), "{out}");
    let (code, out) = run(
        &registry,
        &words,
        &[
            "--body".into(),
            r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#.into(),
        ],
    );
    assert_eq!(code, 4, "{out}");
    // The whole body from a file, a field changed by its option; not with --body too.
    assert!(help.contains("--body-file <FILE>"), "{help}");
    let file = std::env::temp_dir().join(format!("chat-body-{}.json", std::process::id()));
    std::fs::write(
        &file,
        r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#,
    )
    .unwrap();
    let path = file.to_str().unwrap().to_string();
    let (code, out) = run(
        &registry,
        &words,
        &[
            "--body-file".into(),
            path.clone(),
            "--model".into(),
            "gpt-4o-mini".into(),
        ],
    );
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("transport"), "{out}");
    let (code, out) = run(
        &registry,
        &words,
        &["--body-file".into(), path, "--body".into(), "{}".into()],
    );
    assert_eq!(code, 2, "{out}");
    let (code, out) = run(
        &registry,
        &words,
        &["--body-file".into(), "/nonexistent/body.json".into()],
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--body-file") && out.contains("/nonexistent/body.json"),
        "{out}"
    );
    let _ = std::fs::remove_file(file);
}

#[test]
fn every_corpus_document_takes_body_fields_as_options() {
    let mut documents = corpus(
        &[
            "examples",
            "codegen-tests",
            "apisguru",
            "large",
            "progenitor",
            "oai-tests/pass",
            "oai-tests/fail",
        ],
        u64::MAX,
    );
    documents.push(root().join("specs/streams.yaml"));
    assert_counted(&documents);
}

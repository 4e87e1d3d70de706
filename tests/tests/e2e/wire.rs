//! The wire-conformance harness: every operation of a document called with an input built from
//! the document (its examples first, else a small valid instance of each schema), through a
//! registry whose handlers send each call with the runtime's HTTP client as the catalog's
//! binding says, against Stoplight Prism, which validates every request against the document
//! and names each violation in its `sl-violations` reply header. Any request Prism rejects fails
//! the test with the operation and Prism's violation.
//!
//! In CI: the purpose-written `specs/wire.yaml` (every parameter style × explode × location
//! Prism can parse, form and multipart bodies with `encoding`, `readOnly`/`writeOnly`, nullable,
//! binary and text bodies) and small corpus documents. The whole corpus, the large documents
//! included, runs in the heavy checks (`scripts/wire-conformance.sh`, an ignored test here),
//! which print the summary table. Byte-exact checks of every style row, including those Prism
//! cannot parse, are the unit tests of `runtime/client/src/encode.rs`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use harness_gen_runtime::http::{
    CallOptions, ClientBuilder, Credential, HttpClient, Replies, Scheme, Secret,
};
use harness_gen_runtime::{Audience, Catalog, Handler, Thrown, ToolError, ToolRegistry};
use serde_json::{Map, Value, json};

use super::prism::{prism, start};

mod excuse;
mod form_judge;
mod judge;
mod sample;

use excuse::{excuse, is_xml};
use judge::{form_mismatch, multipart_mismatch, request_violations};
use sample::schemes;
pub(crate) use sample::{Sampler, component_values};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What one document's run found.
#[derive(Debug, Default)]
pub struct Tally {
    /// The document, as given.
    pub document: String,
    /// Operations in its catalog.
    pub operations: usize,
    /// Requests Prism found conforming.
    pub accepted: usize,
    /// Requests Prism rejected: (tool, Prism's violations).
    pub rejected: Vec<(String, String)>,
    /// Calls that never left the process: (tool, why).
    pub not_sent: Vec<(String, String)>,
    /// Requests Prism rejected for a reason of its own or of the document, each violation
    /// explained by one of the rules of [`excuse`]: (tool, the rule's reason).
    pub excused: Vec<(String, String)>,
    /// Operations no judge could look at (not form bodies, without Prism).
    pub unjudged: usize,
    /// Second calls, with every optional property set, that were accepted.
    pub full: usize,
    /// Whether Prism judged the requests; without it (a document Prism cannot load) only form
    /// bodies are judged, by the form judge, and nothing is sent.
    pub prism: bool,
}

impl Tally {
    /// One row of the summary table.
    pub fn row(&self) -> String {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.document,
            self.operations,
            self.accepted,
            self.full,
            self.rejected.len(),
            self.excused.len(),
            self.not_sent.len(),
            self.unjudged,
            if self.prism {
                "Prism + form judge"
            } else {
                "form judge only (Prism could not load it)"
            }
        )
    }
}

/// What Prism said of each request, by tool: its `sl-violations` header, if any.
pub(super) type Verdicts = Arc<Mutex<BTreeMap<String, Option<String>>>>;

/// A registry of `catalog` whose handlers send each call with `client` as its binding says,
/// keeping Prism's verdict on the request.
pub(super) fn registry(
    catalog: Catalog,
    client: &HttpClient,
    verdicts: &Verdicts,
    components: &Arc<Map<String, Value>>,
    sends: bool,
) -> ToolRegistry {
    let mut handlers = BTreeMap::new();
    for entry in &catalog.tools {
        let Some(binding) = entry
            .source
            .as_ref()
            .and_then(|s| s.openapi_binding())
            .cloned()
        else {
            continue;
        };
        let (client, verdicts, components) = (client.clone(), verdicts.clone(), components.clone());
        let client_sends = sends;
        let name = entry.name.to_string();
        let body_schema = binding
            .body
            .as_ref()
            .and_then(|b| {
                entry
                    .input_schema
                    .as_value()
                    .pointer(&format!("/properties/{}", b.property))
            })
            .cloned()
            .unwrap_or(Value::Null);
        handlers.insert(
            name.clone(),
            Handler::new(move |input: Value| {
                let (client, verdicts, binding, name, components, body_schema) = (
                    client.clone(),
                    verdicts.clone(),
                    binding.clone(),
                    name.clone(),
                    components.clone(),
                    body_schema.clone(),
                );
                async move {
                    let judged = form_mismatch(&binding, &input, &components, &body_schema)
                        .or_else(|| {
                            multipart_mismatch(&binding, &input, &components, &body_schema)
                        });
                    match (judged, client_sends) {
                        (Some(Err(wrong)), _) => {
                            verdicts.lock().unwrap().insert(name, Some(wrong));
                            return Ok(Value::Null);
                        }
                        (Some(Ok(())), false) => {
                            verdicts.lock().unwrap().insert(name, None);
                            return Ok(Value::Null);
                        }
                        // Without Prism, only form bodies are judged.
                        (None, false) => return Ok(Value::Null),
                        (_, true) => {}
                    }
                    let replies = Replies::new();
                    let sent = client
                        .with(CallOptions::new().record(&replies))
                        .send(&binding, &input)
                        .await;
                    // Prism names violations in `sl-violations` (those of the request; it
                    // lists its own example reply's there too, which are the document's), and
                    // otherwise in a 4xx problem body of its own
                    // (`…/prism/errors#UNPROCESSABLE_ENTITY`, `#NO_PATH_MATCHED_ERROR`,
                    // `#UNAUTHORIZED`, …); its 5xx problems are about the document's responses.
                    let violations = replies.last().and_then(|reply| {
                        reply
                            .header("sl-violations")
                            .and_then(request_violations)
                            .or_else(|| {
                                reply.body.clone().filter(|body| {
                                    (400..500).contains(&reply.status)
                                        && body.contains("stoplight.io/prism/errors#")
                                })
                            })
                    });
                    verdicts.lock().unwrap().insert(name, violations);
                    match sent {
                        // The reply's shape is Prism's; only the request is judged here.
                        Ok(_) => Ok(Value::Null),
                        Err(error) => Err(error_thrown(error)),
                    }
                }
            }),
        );
    }
    // Replies are Prism's examples, not judged here: outputs are left unchecked.
    let mut catalog = catalog;
    for entry in &mut catalog.tools {
        entry.output_schema = None;
        entry.error_schema = None;
    }
    ToolRegistry::publish(catalog, handlers).unwrap()
}

fn error_thrown(error: harness_gen_runtime::http::Error<std::convert::Infallible>) -> Thrown {
    use harness_gen_runtime::http::Error;
    match error {
        Error::InvalidValue { pointer, .. } => {
            Thrown::InvalidInput(vec![harness_gen_runtime::Issue {
                pointer,
                keyword: "format".into(),
            }])
        }
        other => Thrown::Fault(other.category()),
    }
}

/// A registry of `catalog` whose handlers send to `base` with the runtime's client (no
/// retries), keeping no verdicts: for the checks that look at one call.
pub(super) fn sending_registry(
    catalog: Catalog,
    base: &str,
    components: &Arc<Map<String, Value>>,
) -> ToolRegistry {
    // A credential for every scheme an operation names, so each call gets as far as sending
    // (a call that needs credentials the client lacks is refused before that).
    let mut builder = ClientBuilder::new(base).max_retries(0);
    let schemes: std::collections::BTreeSet<String> = catalog
        .tools
        .iter()
        .filter_map(|entry| entry.source.as_ref()?.openapi_binding())
        .flat_map(|binding| binding.security.iter().flat_map(|a| a.iter()))
        .map(|name| name.to_string())
        .collect();
    for name in schemes {
        builder = builder
            .scheme(&name, Scheme::Bearer)
            .credential(&name, Credential::Token(Secret::new("sweep-token")));
    }
    let client = builder.build().unwrap();
    registry(catalog, &client, &Verdicts::default(), components, true)
}

/// Runs the harness over `spec` (a path under the repository or `../shared`).
pub async fn conformance(spec: &Path) -> Tally {
    conformance_with(spec, |_| {}).await
}

/// [`conformance`] with the catalog changed by `tamper` first (to show the judge has teeth).
async fn conformance_with(spec: &Path, tamper: impl FnOnce(&mut Catalog)) -> Tally {
    let prism = prism().expect("Prism is installed by scripts/test.sh");
    let mut diags = harness_gen::diag::Diagnostics::default();
    let mut catalog =
        harness_gen::generate_catalog(spec, None, &mut diags).expect("the document generates");
    tamper(&mut catalog);
    let document = harness_gen::load::Document::load(spec, &mut diags).expect("it was read");
    let components = Arc::new(component_values(
        catalog.components.as_ref().map(|c| &c.schemas),
    ));
    let judge = start(&prism, spec, std::time::Duration::from_secs(120));
    let base = judge
        .as_ref()
        .map_or("http://127.0.0.1:9".to_string(), |(_, base)| base.clone());
    let mut builder = ClientBuilder::new(&base).max_retries(0);
    for (name, scheme, credential) in schemes(document.root()) {
        builder = builder.scheme(&name, scheme).credential(&name, credential);
    }
    let client = builder.build().unwrap();
    let verdicts: Verdicts = Arc::default();
    let entries: Vec<_> = catalog.tools.clone();
    let doc = document.root();
    let sends = judge.is_some();
    let registry = registry(catalog, &client, &verdicts, &components, sends);
    let mut tally = Tally {
        document: spec
            .strip_prefix(root())
            .unwrap_or(spec)
            .display()
            .to_string(),
        operations: entries.len(),
        prism: sends,
        ..Tally::default()
    };
    for entry in entries {
        let name = entry.name.to_string();
        let schema = entry.input_schema.as_value();
        let binding = entry.source.as_ref().and_then(|s| s.openapi_binding());
        if let Some(body) = binding.and_then(|b| b.body.as_ref())
            && sends
            && is_xml(&body.content_type)
        {
            let why = format!("the harness builds no XML instance ({})", body.content_type);
            tally.not_sent.push((name, why));
            continue;
        }
        let mut outcome = None;
        // The document's examples, else a minimal instance; without Prism, then every property
        // (nested values for the form judge).
        let passes: &[(bool, bool)] = if sends {
            &[(true, false), (false, false)]
        } else {
            &[(false, true), (false, false)]
        };
        for &(examples, every_property) in passes {
            let input = Sampler {
                components: &components,
                examples,
                every_property,
            }
            .sample(schema, 0);
            verdicts.lock().unwrap().remove(&name);
            let result = registry.invoke(Audience::Catalog, &name, input).await;
            let refused = matches!(result, Err(ToolError::InvalidInput { .. }));
            outcome = Some(result);
            if !refused {
                break;
            }
        }
        let verdict = verdicts.lock().unwrap().remove(&name);
        let judged = |violations: String, tally: &mut Tally, name: String| match binding
            .and_then(|b| excuse(doc, b, &violations))
        {
            Some(reason) => tally.excused.push((name, reason)),
            None => tally.rejected.push((name, violations)),
        };
        let sent = verdict.is_some();
        match (verdict, outcome.expect("tried")) {
            (Some(None), _) => tally.accepted += 1,
            (Some(Some(violations)), _) => judged(violations, &mut tally, name.clone()),
            (None, Err(error)) => tally.not_sent.push((name.clone(), format!("{error}"))),
            (None, Ok(_)) if !sends => tally.unjudged += 1,
            (None, Ok(_)) => tally
                .not_sent
                .push((name.clone(), "no request was made".into())),
        }
        // A second call with every optional property set (nested values too), judged alike;
        // one the sampler cannot make valid is not counted.
        if sends && sent {
            let input = Sampler {
                components: &components,
                examples: false,
                every_property: true,
            }
            .sample(schema, 0);
            let _ = registry.invoke(Audience::Catalog, &name, input).await;
            match verdicts.lock().unwrap().remove(&name) {
                Some(None) => tally.full += 1,
                Some(Some(violations)) => judged(
                    violations,
                    &mut tally,
                    format!("{name} (every property set)"),
                ),
                None => {}
            }
        }
    }
    tally
}

/// Fails with every rejected request (tool and Prism's violations) and every call that was not
/// sent.
fn assert_conforms(tally: &Tally) {
    assert!(
        tally.rejected.is_empty() && tally.not_sent.is_empty() && tally.accepted > 0,
        "{}\nrejected by Prism:\n{}\nnot sent:\n{}",
        tally.row(),
        tally
            .rejected
            .iter()
            .map(|(tool, why)| format!("  {tool}: {why}"))
            .collect::<Vec<_>>()
            .join("\n"),
        tally
            .not_sent
            .iter()
            .map(|(tool, why)| format!("  {tool}: {why}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_serialization_of_the_wire_document_conforms() {
    if prism().is_none() {
        return;
    }
    let tally = conformance(&root().join("specs/wire.yaml")).await;
    assert_conforms(&tally);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_judge_rejects_a_form_body_that_ignores_its_encoding() {
    if prism().is_none() {
        return;
    }
    // The form body's encoding forgotten: `address` spreads into `city=X&line1=…`.
    let tally = conformance_with(&root().join("specs/wire.yaml"), |catalog| {
        for entry in &mut catalog.tools {
            if let Some(harness_gen_runtime::catalog::SourceBinding::OpenApi(binding)) =
                entry.source.as_mut().and_then(|s| s.binding.as_mut())
                && let Some(body) = &mut binding.body
            {
                body.parts = Default::default();
            }
        }
    })
    .await;
    let rejected: Vec<&str> = tally.rejected.iter().map(|(t, _)| t.as_str()).collect();
    // Both calls: the minimal one and the one with every property set.
    assert_eq!(
        rejected,
        ["form_body", "form_body (every property set)"],
        "{tally:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn small_corpus_documents_conform_on_the_wire() {
    if prism().is_none() {
        return;
    }
    for document in [
        "examples/oai-learn_v3.0_petstore-expanded.yaml",
        "examples/oai-learn_v3.1_tictactoe.yaml",
        "examples/readme-oas-examples_3.1_schema-encoding-style.json",
        "apisguru/xkcd.com_1.0.0.openapi.yaml",
        "apisguru/extendsclass.com_json-storage_0.1.openapi.yaml",
    ] {
        let tally = conformance(&root().join("../shared/corpus").join(document)).await;
        assert_conforms(&tally);
    }
}

/// The heavy check: every document of the corpus that generates, the large ones included, with
/// the summary table on standard output (`scripts/wire-conformance.sh`).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "heavy: the whole corpus against Prism; run by scripts/wire-conformance.sh"]
async fn every_corpus_document_conforms_on_the_wire() {
    let corpus = root().join("../shared/corpus");
    let only = std::env::var("WIRE_ONLY").ok();
    let mut documents: Vec<PathBuf> = Vec::new();
    for dir in [
        "examples",
        "apisguru",
        "codegen-tests",
        "large",
        "progenitor",
        "oai-tests/pass",
    ] {
        let Ok(read) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        for file in read.flatten() {
            let path = file.path();
            let name = path.display().to_string();
            if only.as_deref().is_some_and(|o| !name.contains(o)) {
                continue;
            }
            documents.push(path);
        }
    }
    documents.sort();
    let mut failed = Vec::new();
    println!(
        "| document | operations | accepted | accepted with every property | rejected | excused | not sent | not judged | judged by |\n|---|---|---|---|---|---|---|---|---|"
    );
    for spec in documents {
        let mut diags = harness_gen::diag::Diagnostics::default();
        let generates = harness_gen::generate_catalog(&spec, None, &mut diags)
            .is_some_and(|c| !c.tools.is_empty())
            && !diags.has_errors();
        if !generates {
            continue;
        }
        let tally = conformance(&spec).await;
        println!("{}", tally.row());
        for (kind, list) in [
            ("rejected", &tally.rejected),
            ("excused", &tally.excused),
            ("not sent", &tally.not_sent),
        ] {
            for (tool, why) in list {
                eprintln!("{}: {kind}: {tool}: {why}", tally.document);
            }
        }
        // A call the sampler could not make valid is listed, not failed: the harness, not the
        // product, lacks an instance (a regular expression, an XML body).
        if !tally.rejected.is_empty() {
            failed.push(tally.document);
        }
    }
    assert!(failed.is_empty(), "not conforming: {failed:?}");
}

/// The catalog of a corpus document and the binding of its tool `name`.
fn binding_of(document: &str, name: &str) -> harness_gen_runtime::binding::Binding {
    entry_of(&root().join("../shared/corpus").join(document), name).0
}

/// The binding of tool `name` of the document at `spec`, and its body's input schema.
fn entry_of(spec: &Path, name: &str) -> (harness_gen_runtime::binding::Binding, Value) {
    let mut diags = harness_gen::diag::Diagnostics::default();
    let catalog = harness_gen::generate_catalog(spec, None, &mut diags).expect("it generates");
    let entry = catalog
        .tools
        .iter()
        .find(|e| e.name.as_str() == name)
        .unwrap_or_else(|| panic!("{} has no tool {name}", spec.display()));
    let binding = entry
        .source
        .as_ref()
        .and_then(|s| s.openapi_binding())
        .cloned()
        .expect("an OpenAPI binding");
    let body = entry.input_schema.as_value()["properties"]["body"].clone();
    (binding, body)
}

/// The form body `value` is sent as.
fn form_text(binding: &harness_gen_runtime::binding::Binding, value: &Value) -> String {
    let body = binding.body.as_ref().expect("a body");
    let payload = harness_gen_runtime::http::encode::body(
        body,
        value,
        &Default::default(),
        binding.deep_object_arrays,
    )
    .unwrap();
    String::from_utf8(payload.in_memory().unwrap().to_vec()).unwrap()
}

#[test]
fn stripe_creates_are_sent_as_stripe_documents_them() {
    let stripe = "large/spec3.2023-09-12.yaml";
    let customers = binding_of(stripe, "post_customers");
    assert_eq!(
        form_text(
            &customers,
            &json!({
                "address": {"line1": "1 Main", "city": "X"},
                "metadata": {"k": "v"},
                "expand": ["default_source", "tax"]
            })
        ),
        "address[line1]=1%20Main&address[city]=X&metadata[k]=v&expand[0]=default_source&expand[1]=tax"
    );
    let intents = binding_of(stripe, "post_payment_intents");
    assert_eq!(
        form_text(
            &intents,
            &json!({
                "amount": 2000,
                "currency": "usd",
                "automatic_payment_methods": {"enabled": true},
                "payment_method_types": ["card", "link"],
                "metadata": {"order_id": "6735"}
            })
        ),
        "amount=2000&currency=usd&automatic_payment_methods[enabled]=true\
         &payment_method_types[0]=card&payment_method_types[1]=link&metadata[order_id]=6735"
    );
    let checkout = binding_of(stripe, "post_checkout_sessions");
    assert_eq!(
        form_text(
            &checkout,
            &json!({
                "mode": "payment",
                "success_url": "https://example.com/success?session_id={CHECKOUT_SESSION_ID}",
                "line_items": [
                    {"price": "price_1", "quantity": 2},
                    {"price_data": {"currency": "usd", "unit_amount": 500, "product_data": {"name": "T-shirt"}}, "quantity": 1}
                ]
            })
        ),
        "mode=payment&success_url=https%3A%2F%2Fexample.com%2Fsuccess%3Fsession_id%3D%7BCHECKOUT_SESSION_ID%7D\
         &line_items[0][price]=price_1&line_items[0][quantity]=2\
         &line_items[1][price_data][currency]=usd&line_items[1][price_data][unit_amount]=500\
         &line_items[1][price_data][product_data][name]=T-shirt&line_items[1][quantity]=1"
    );
}

#[test]
fn vimeo_numbers_go_into_the_path_as_given() {
    let binding = binding_of("apisguru/vimeo.com_3.4.openapi.yaml", "get_channel");
    let param = binding
        .parameters
        .iter()
        .find(|p| p.name == "channel_id")
        .expect("channel_id");
    assert_eq!(
        harness_gen_runtime::http::encode::path_value(param, &json!(927.0)).unwrap(),
        "927"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nexus_ip_range_bodies_pass_input_validation_and_are_sent() {
    let mut diags = harness_gen::diag::Diagnostics::default();
    let spec = root().join("../shared/corpus/progenitor/nexus.json");
    let catalog = harness_gen::generate_catalog(&spec, None, &mut diags).unwrap();
    // Nothing listens on port 9: a call that passes validation fails as transport.
    let registry = sending_registry(catalog, "http://127.0.0.1:9", &Arc::default());
    for (first, last) in [("10.0.0.1", "10.0.0.9"), ("fd00::1", "fd00::9")] {
        let input = json!({"pool_name": "pool", "body": {"first": first, "last": last}});
        let outcome = registry
            .invoke(Audience::Catalog, "ip_pool_range_add", input)
            .await;
        assert!(
            matches!(outcome, Err(ToolError::Runtime { .. })),
            "{first}: {outcome:?}"
        );
    }
    let outcome = registry
        .invoke(
            Audience::Catalog,
            "ip_pool_range_add",
            json!({"pool_name": "pool", "body": {"first": "nowhere", "last": "10.0.0.9"}}),
        )
        .await;
    assert!(
        matches!(outcome, Err(ToolError::InvalidInput { .. })),
        "{outcome:?}"
    );
}

/// The catalog entry `name` of `specs/wire.yaml`: its binding and its body's schema.
fn wire_entry(name: &str) -> (harness_gen_runtime::binding::Binding, Value) {
    entry_of(&root().join("specs/wire.yaml"), name)
}

#[test]
fn the_multipart_judge_reads_parts_back_and_sees_what_was_left_out() {
    let (binding, schema) = wire_entry("multipart_body");
    let components = Map::new();
    let given = json!({"body": {"file": "iVBORw0KGgo=", "note": "hi", "count": 3}});
    let judged = multipart_mismatch(&binding, &given, &components, &schema);
    assert_eq!(judged, Some(Ok(())));
    // A value the parts do not carry (a null item, left out of the wire) reads back as
    // another one.
    let lossy = json!({"body": {"file": "iVBORw0KGgo=", "note": ["a", null], "count": 3}});
    let judged = multipart_mismatch(&binding, &lossy, &components, &schema);
    assert!(matches!(judged, Some(Err(_))), "{judged:?}");
}

#[test]
fn only_violations_a_rule_explains_are_excused() {
    let (binding, _) = wire_entry("multipart_body");
    let doc: Value = yaml_doc(&root().join("specs/wire.yaml"));
    let body = json!([{"location": ["request", "body", "count"], "severity": "Error",
                       "code": "type", "message": "Request body property count must be object"}]);
    let excused = excuse(&doc, &binding, &body.to_string());
    assert!(excused.is_some_and(|why| why.contains("multipart judge")));
    // A violation no rule explains leaves the request rejected, even beside an explained one.
    let (json_binding, _) = wire_entry("json_body");
    let unexplained = json!([{"location": ["request", "body", "name"], "severity": "Error",
                              "code": "type", "message": "Request body property name must be string"}]);
    assert_eq!(excuse(&doc, &json_binding, &unexplained.to_string()), None);
    let header = json!([
        {"location": ["request", "header"], "severity": "Error", "code": "required",
         "message": "Request header must have required property 'x-unknown'"}
    ]);
    assert_eq!(excuse(&doc, &json_binding, &header.to_string()), None);
}

fn yaml_doc(path: &Path) -> Value {
    let mut diags = harness_gen::diag::Diagnostics::default();
    harness_gen::load::Document::load(path, &mut diags)
        .unwrap()
        .root()
        .clone()
}

//! Every operation of the generated sample crates, called through their tool registries against
//! Stoplight Prism (`prism mock`), a spec-driven server written by others that validates each
//! request against the document and answers 422 to any request that does not conform.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use harness_gen_runtime::http::{ClientBuilder, Credential, Secret};
use harness_gen_runtime::{Audience, ToolError, ToolRegistry};
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Prism binary installed by `.ci/run` (`npm ci --prefix tools/prism`).
pub(super) fn prism() -> Option<PathBuf> {
    harness_e2e::tools::tool("the Prism tests", "tools/prism/node_modules/.bin/prism")
}

pub(super) struct Mock(Child);

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Prism serving the train travel API (the corpus's `train-travel.openapi.yaml`) on a free
/// loopback port; `None` when Prism is not installed (and allowed to be missing).
pub(super) fn train_travel_mock() -> Option<(Mock, String)> {
    let prism = prism()?;
    // The document's `x-topics` reference a Markdown file that is not in the corpus; Prism
    // insists on reading it, so the test serves a copy with a stand-in beside it.
    let dir = std::env::temp_dir().join(format!("harness-prism-train-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/getting-started.md"), "# Getting started\n").unwrap();
    let spec = dir.join("openapi.yaml");
    std::fs::copy(
        root().join("../shared/corpus/examples/train-travel.openapi.yaml"),
        &spec,
    )
    .unwrap();
    Some(mock(&prism, &spec))
}

/// Starts `prism mock spec` on a free loopback port and waits until it accepts connections.
pub(super) fn mock(prism: &Path, spec: &Path) -> (Mock, String) {
    start(prism, spec, Duration::from_secs(60)).expect("prism did not start")
}

/// [`mock`], or `None` when Prism exits or does not listen within `wait` (it cannot read every
/// document: it never finishes loading Stripe's).
pub(super) fn start(prism: &Path, spec: &Path, wait: Duration) -> Option<(Mock, String)> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(prism)
        .args(["mock", "--host", "127.0.0.1", "--port", &port.to_string()])
        .arg(spec)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut mock = Mock(child);
    let deadline = Instant::now() + wait;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline || mock.0.try_wait().ok().flatten().is_some() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Some((mock, format!("http://127.0.0.1:{port}")))
}

/// Calls every tool of `registry` with a sample input; each must be answered as conforming.
async fn call_every_tool(registry: &ToolRegistry) -> usize {
    let components = super::wire::component_values(registry.components());
    let sampler = super::wire::Sampler {
        components: &components,
        examples: true,
        every_property: false,
    };
    let mut called = 0;
    for entry in registry
        .list(Audience::Catalog)
        .cloned()
        .collect::<Vec<_>>()
    {
        let input = sampler.sample(entry.input_schema.as_value(), 0);
        match registry
            .invoke(Audience::Catalog, &entry.name, input.clone())
            .await
        {
            Ok(_) => {}
            Err(error) => panic!("{}: {input} → {error:?}", entry.name.as_str()),
        }
        called += 1;
    }
    called
}

fn credentials(builder: ClientBuilder) -> ClientBuilder {
    builder
        .credential("bearerAuth", Credential::Token(Secret::new("t")))
        .credential("apiKey", Credential::ApiKey(Secret::new("k")))
        .credential("OAuth2", Credential::Token(Secret::new("t")))
}

#[tokio::test(flavor = "multi_thread")]
async fn every_petstore_operation_conforms_to_the_document() {
    let Some(prism) = prism() else { return };
    let (_mock, base) = mock(&prism, &root().join("specs/petstore.yaml"));
    let client =
        petstore::Client::from_builder(credentials(petstore::Client::builder().base_url(&base)))
            .unwrap();
    let registry = petstore::registry(client.clone()).unwrap();
    assert_eq!(
        call_every_tool(&registry).await,
        6,
        "the catalog-audience tools"
    );
    // Operations that are not tools are still SDK methods.
    assert!(client.store_report().await.is_ok());
    // A request the document forbids is refused by Prism (422): the check has teeth. Through
    // the registry it never leaves the process; the raw client sends it.
    let bad = registry
        .invoke(Audience::Catalog, "list_pets", json!({"limit": 500}))
        .await;
    assert!(
        matches!(bad, Err(ToolError::InvalidInput { .. })),
        "{bad:?}"
    );
    let input = petstore::types::ListPetsInput::new().limit(500);
    let refused = client.list_pets(&input).await;
    assert!(
        matches!(
            refused,
            Err(harness_gen_runtime::http::Error::Api(
                petstore::types::ListPetsError::HttpDefault { status: 422, .. }
            ))
        ),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_train_travel_operation_conforms_to_the_document() {
    let Some((_mock, base)) = train_travel_mock() else {
        return;
    };
    let client = train_travel::Client::from_builder(credentials(
        train_travel::Client::builder().base_url(&base),
    ))
    .unwrap();
    let registry = train_travel::registry(client).unwrap();
    assert!(call_every_tool(&registry).await >= 7);
}

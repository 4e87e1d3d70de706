//! `readOnly` and `writeOnly` by direction, through every projection of `specs/directions.yaml`
//! (one `Widget` schema for the create request and its reply, `id` and `createdAt` read-only
//! and required, `secret` write-only and required, `additionalProperties: false`): the CLI and
//! the registry send `{name, secret}` and Prism, which judges requests by the document,
//! accepts it; the reply without `secret` validates; a read-only value given is refused at its
//! pointer; the SDK builds the request without an `id`; MCP lists the request view.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};

use directions::types::{AssemblyRequest, CreateWidgetInput, PartRequest, WidgetRequest};
use harness_gen_runtime::{Audience, ToolError, ToolRegistry};
use serde_json::{Value, json};

fn spec() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/directions.yaml")
}

fn registry(base: &str) -> ToolRegistry {
    let client =
        directions::Client::from_builder(directions::Client::builder().base_url(base)).unwrap();
    directions::registry(client).unwrap()
}

/// Runs the crate's command-line program with `args` against `base`; (exit code, standard
/// output, standard error).
fn cli(base: &str, args: &[&str]) -> (i32, String, String) {
    let factory = |base_url: Option<String>, keep: &dyn Fn(&str) -> bool| {
        let builder = directions::Client::builder().base_url(base_url.unwrap_or(base.into()));
        let client = directions::Client::from_builder(builder).map_err(|e| e.to_string())?;
        directions::registry_of(client, keep).map_err(|e| e.to_string())
    };
    let (code, out, err) = super::run_cli(
        ("directions", "1.0.0"),
        &directions::CATALOG_INDEX,
        factory,
        args,
        false,
    );
    (code, String::from_utf8(out).unwrap(), err)
}

#[test]
fn the_cli_asks_only_for_what_a_request_carries_and_prism_accepts_what_it_sends() {
    let Some(prism) = super::prism::prism() else {
        return;
    };
    let (_mock, base) = super::prism::mock(&prism, &spec());
    let (code, help, _) = cli(&base, &["widgets", "create", "--help"]);
    assert_eq!(code, 0, "{help}");
    assert!(
        help.contains("--name") && help.contains("--secret"),
        "{help}"
    );
    assert!(
        !help.contains("--id") && !help.contains("--created-at"),
        "{help}"
    );
    let (code, out, err) = cli(
        &base,
        &["widgets", "create", "--name", "a", "--secret", "s"],
    );
    assert_eq!(
        code, 0,
        "Prism refused the request or the reply failed: {out}{err}"
    );
    let reply: Value = serde_json::from_str(&out).unwrap();
    for server_assigned in ["id", "createdAt", "name"] {
        assert!(reply.get(server_assigned).is_some(), "{reply}");
    }
}

#[test]
fn a_read_only_value_given_is_refused_at_its_pointer_before_anything_is_sent() {
    // Nothing listens here: a call that got as far as sending would fail as transport.
    let registry = registry("http://127.0.0.1:9");
    let refused = futures::executor::block_on(registry.invoke(
        Audience::Catalog,
        "create_widget",
        json!({"body": {"name": "a", "secret": "s", "id": "chosen"}}),
    ));
    let Err(ToolError::InvalidInput { issues, .. }) = &refused else {
        panic!("{refused:?}")
    };
    assert_eq!(issues[0].pointer, "/body/id", "{refused:?}");
    // Nested: a part's read-only `id` inside the assembly's array, and the read-only
    // `revision` its `allOf` brings.
    for (body, at) in [
        (
            json!({"name": "n", "parts": [{"label": "l", "id": 1}]}),
            "/body/parts/0/id",
        ),
        (json!({"name": "n", "revision": 2}), "/body/revision"),
    ] {
        let refused = futures::executor::block_on(registry.invoke(
            Audience::Catalog,
            "replace_parts",
            json!({"id": "w", "body": body}),
        ));
        let Err(ToolError::InvalidInput { issues, .. }) = &refused else {
            panic!("{refused:?}")
        };
        assert!(issues.iter().any(|i| i.pointer == at), "{at}: {refused:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_sends_a_request_without_server_assigned_values_and_reads_a_reply_without_secrets()
{
    let Some(prism) = super::prism::prism() else {
        return;
    };
    let (_mock, base) = super::prism::mock(&prism, &spec());
    let request = WidgetRequest::new("a", "s");
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        json!({"name": "a", "secret": "s"})
    );
    let client =
        directions::Client::from_builder(directions::Client::builder().base_url(&base)).unwrap();
    let created = client
        .create_widget(&CreateWidgetInput::new(request))
        .await
        .unwrap();
    assert!(!created.id.is_empty());
    let assembly = AssemblyRequest::new("n").parts(vec![PartRequest::new("l")]);
    let replaced = client.widgets().replace_parts("w", assembly).await.unwrap();
    assert!(
        replaced
            .parts
            .iter()
            .flatten()
            .all(|part| !part.label.is_empty())
    );
    // Through the registry too: Prism accepts the request, the reply validates.
    let registry = registry(&base);
    let reply = registry
        .invoke(
            Audience::Catalog,
            "create_widget",
            json!({"body": {"name": "a", "secret": "s"}}),
        )
        .await
        .unwrap();
    assert!(reply.get("id").is_some(), "{reply}");
}

#[test]
fn mcp_lists_the_request_view() {
    let registry = registry("http://127.0.0.1:9");
    let server = harness_gen_runtime::mcp::McpServer::new(&registry, "directions", "1.0.0");
    let tools = server.tools().unwrap();
    let create = tools.iter().find(|t| t.name == "create_widget").unwrap();
    let listed = serde_json::to_value(&*create.input_schema).unwrap();
    let text = listed.to_string();
    // However the listing lays the body out (inline or by reference), what it requires is
    // what a request carries.
    let mut required = Vec::new();
    harness_gen_runtime::schema::visit(&listed, &mut |_, map| {
        if let Some(Value::Array(names)) = map.get("required") {
            required.extend(names.iter().filter_map(Value::as_str).map(str::to_string));
        }
    });
    assert!(required.contains(&"secret".to_string()), "{text}");
    for server_assigned in ["id", "createdAt"] {
        assert!(!required.contains(&server_assigned.to_string()), "{text}");
    }
}

//! Replies outside an operation's contract, told as what they are in every projection: a
//! success reply that is not the declared media type (a proxy's HTML page where JSON is
//! declared) is a runtime failure `unexpected_reply`, a status the operation does not declare
//! (a 401) a runtime failure `http_status`, each with the reply's status, content type and
//! first bytes; neither is the API's declared application error.

use super::*;

fn input(model: &str) -> Value {
    json!({"body": {"model": model, "messages": []}})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_success_reply_of_another_media_type_is_an_unexpected_reply_with_its_content_type() {
    let (base, _) = server::serve().await;
    let error = registry(&base)
        .invoke(Audience::Mcp, "create_completion", input("behind-proxy"))
        .await
        .unwrap_err();
    let harness_gen_runtime::ToolError::Reply {
        category, reply, ..
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(category.as_str(), "unexpected_reply");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type.as_deref(), Some("text/html"));
    assert!(reply.excerpt.contains("502 Bad Gateway"), "{reply:?}");
    assert_eq!(
        error.to_string(),
        "tool `create_completion` failed: unexpected_reply (HTTP 200, text/html)"
    );

    let body = json!({"model": "behind-proxy", "messages": []}).to_string();
    let run = cli(
        &base,
        &["chat", "create-completion", "--body", &body],
        false,
    );
    assert_eq!(run.code, 4, "a runtime failure: {}", run.err);
    let envelope: Value = serde_json::from_slice(&run.out).unwrap();
    assert_eq!(envelope["error"]["kind"], "runtime");
    assert_eq!(envelope["error"]["category"], "unexpected_reply");
    assert_eq!(envelope["error"]["reply"]["contentType"], "text/html");
    assert_eq!(envelope["error"]["reply"]["status"], 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_undeclared_status_is_an_http_failure_with_the_servers_message() {
    let (base, _) = server::serve().await;
    let body = json!({"model": "no-key", "messages": []}).to_string();
    let run = cli(
        &base,
        &["chat", "create-completion", "--body", &body],
        false,
    );
    assert_eq!(run.code, 4, "{}", run.err);
    let envelope: Value = serde_json::from_slice(&run.out).unwrap();
    assert_eq!(envelope["error"]["kind"], "runtime");
    assert_eq!(envelope["error"]["category"], "http_status");
    assert_eq!(envelope["error"]["reply"]["status"], 401);
    assert!(
        envelope["error"]["reply"]["excerpt"]
            .as_str()
            .unwrap()
            .contains("Incorrect API key provided"),
        "{envelope}"
    );
    assert!(
        !run.err.contains("declared application error"),
        "{}",
        run.err
    );
    // MCP says the same in the failure it attaches to the `isError` result.
    let server = McpServer::new(&registry(&base), "streams", "1.0.0");
    let result = server
        .call("create_completion", input("no-key").as_object().cloned())
        .await
        .unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result["isError"], true, "{result}");
    let failure = &result["_meta"]["com.harnlang/toolContract"]["failure"];
    assert_eq!(failure["category"], "http_status", "{result}");
    assert_eq!(failure["reply"]["status"], 401, "{result}");
}

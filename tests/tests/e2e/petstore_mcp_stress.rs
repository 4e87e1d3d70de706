//! The generated MCP server under stress on stdio: 100 concurrent calls, malformed JSON-RPC,
//! unknown methods and oversized messages are each answered (with a result or an error), and
//! the server keeps serving until its client goes away.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::collections::BTreeMap;

use harness_e2e::{McpStdio, serve};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_concurrent_calls_are_each_answered() {
    let base = serve().await;
    let mut session = McpStdio::initialized(&base, &[]).await;
    for id in 1..=100 {
        let pet = if id % 2 == 0 { 1 } else { 2 };
        session
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "get_pet_name", "arguments": {"pet_id": pet}}}))
            .await;
    }
    let mut answers = BTreeMap::new();
    while answers.len() < 100 {
        let reply = session.receive().await;
        answers.insert(reply["id"].as_i64().unwrap(), reply);
    }
    assert_eq!(
        answers.keys().copied().collect::<Vec<_>>(),
        (1..=100).collect::<Vec<_>>()
    );
    for (id, reply) in &answers {
        let result = &reply["result"];
        if id % 2 == 0 {
            // The initialize era: a string output travels as its JSON text.
            assert_eq!(result["content"][0]["text"], "\"Rex\"", "{reply}");
        } else {
            // Pet 2 has no name route: an undeclared 404, answered as an error result.
            assert_eq!(result["isError"], true, "{reply}");
        }
    }
    session.still_serving(1000).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_unknown_and_oversized_messages_get_errors_and_serving_goes_on() {
    let base = serve().await;
    let mut session = McpStdio::initialized(&base, &[]).await;

    session.send_line(b"{this is not json").await;
    let reply = session.receive().await;
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].as_i64()),
        (Value::Null, Some(-32700))
    );
    session.still_serving(1).await;

    session
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/lost"}))
        .await;
    let reply = session.receive().await;
    assert_eq!(
        (reply["id"].as_i64(), reply["error"]["code"].as_i64()),
        (Some(2), Some(-32601))
    );
    session.still_serving(3).await;

    session
        .send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": "x"}))
        .await;
    let reply = session.receive().await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    session.still_serving(5).await;

    let huge = "x".repeat(harness_gen_runtime::mcp::MAX_MESSAGE_BYTES + 1);
    let oversized = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": {"name": "get_pet_name", "arguments": {"pet_id": huge}}});
    session.send(&oversized).await;
    let reply = session.receive().await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    session.still_serving(7).await;

    // The client goes away: the server ends cleanly.
    let (success, _, stderr) = session.finish().await;
    assert!(success, "{stderr}");
}

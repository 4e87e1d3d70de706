//! The generated MCP server under stress on stdio: 100 concurrent calls, malformed JSON-RPC,
//! unknown methods and oversized messages are each answered (with a result or an error), and
//! the server keeps serving until its client goes away.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use harness_e2e::{TOKEN, petstore_binary, serve};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

struct Session {
    child: Child,
    input: ChildStdin,
    output: Lines<BufReader<ChildStdout>>,
}

impl Session {
    async fn start(base: &str) -> Session {
        let mut child = tokio::process::Command::new(petstore_binary("petstore-mcp", "mcp"))
            .env("PETSTORE_BASE_URL", base)
            .env("PETSTORE_TOKEN", TOKEN)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut session = Session {
            child,
            input,
            output,
        };
        session
            .send(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "stress", "version": "1"}}}),
            )
            .await;
        assert_eq!(session.receive().await["id"], 0);
        session
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
    }

    async fn send_line(&mut self, line: &[u8]) {
        self.input.write_all(line).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
        self.input.flush().await.unwrap();
    }

    async fn send(&mut self, message: &Value) {
        self.send_line(message.to_string().as_bytes()).await;
    }

    async fn receive(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.output.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server is still there");
        serde_json::from_str(&line).unwrap()
    }

    /// Pings and expects the pong: the server still serves.
    async fn still_serving(&mut self, id: i64) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .await;
        let pong = self.receive().await;
        assert_eq!(
            (pong["id"].as_i64(), pong["result"].is_object()),
            (Some(id), true),
            "{pong}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_concurrent_calls_are_each_answered() {
    let base = serve().await;
    let mut session = Session::start(&base).await;
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
    let mut session = Session::start(&base).await;

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

    let huge = "x".repeat(harness_runtime::mcp::MAX_MESSAGE_BYTES + 1);
    let oversized = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": {"name": "get_pet_name", "arguments": {"pet_id": huge}}});
    session.send(&oversized).await;
    let reply = session.receive().await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    session.still_serving(7).await;

    // The client goes away: the server ends cleanly.
    drop(session.input);
    let status = tokio::time::timeout(Duration::from_secs(10), session.child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
}

//! An operation that answers JSON or, when its body's `stream` flag is set, server-sent events
//! (the way OpenAI's chat completions do), through every projection of the `streams` crate: the
//! tool's output is either, the CLI prints each event as a JSON line as it arrives, `invoke`
//! collects them, and MCP reports each as progress with the result holding them all.

use super::*;

/// The chunks the stand-in streams for model `tidy`, as the tool returns each.
fn tidy_chunks() -> [Value; 3] {
    [
        json!({"id": "c1", "delta": "Hel"}),
        json!({"id": "c1", "delta": "lo"}),
        json!({"id": "c1", "delta": "!"}),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_flag_in_the_body_chooses_between_the_json_reply_and_the_events() {
    let (base, seen) = server::serve().await;
    let registry = registry(&base);
    let schema = registry
        .lookup(Audience::Mcp, "create_completion")
        .unwrap()
        .output_schema
        .clone()
        .unwrap();
    // The output schema says either: the reply, or the array of events.
    assert_eq!(schema.as_value()["anyOf"][1]["type"], "array", "{schema:?}");
    let call = |stream: Option<bool>| {
        let mut body = json!({"model": "tidy", "messages": []});
        if let Some(stream) = stream {
            body["stream"] = json!(stream);
        }
        registry.invoke(Audience::Mcp, "create_completion", json!({"body": body}))
    };
    assert_eq!(
        call(None).await.unwrap(),
        json!({"id": "c1", "content": "Hello!"})
    );
    assert_eq!(
        call(Some(false)).await.unwrap(),
        json!({"id": "c1", "content": "Hello!"})
    );
    assert_eq!(
        call(Some(true)).await.unwrap(),
        Value::Array(tidy_chunks().to_vec())
    );
    assert_eq!(
        *seen.stream_flags.lock().unwrap(),
        [None, Some(false), Some(true)],
        "the body is sent as given"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_prints_a_json_reply_whole_and_a_requested_stream_event_by_event() {
    let (base, _) = server::serve().await;
    let body =
        |stream: bool| json!({"model": "tidy", "messages": [], "stream": stream}).to_string();
    let whole = cli(
        &base,
        &["chat", "create-completion", "--body", &body(false)],
        false,
    );
    assert_eq!(whole.code, 0, "{}", whole.err);
    let reply: Value = serde_json::from_slice(&whole.out).unwrap();
    assert_eq!(reply, json!({"id": "c1", "content": "Hello!"}));

    let streamed = cli(
        &base,
        &["chat", "create-completion", "--body", &body(true)],
        false,
    );
    assert_eq!(streamed.code, 0, "{}", streamed.err);
    let lines: Vec<Value> = String::from_utf8(streamed.out)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines, tidy_chunks());
    // `[DONE]` ended it (the event sent after it is never read).
    assert_eq!(
        streamed.err, "stream ended: the server sent its end marker\n",
        "how the stream ended, and nothing else, on standard error"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_with_an_event_that_is_not_json_reports_it_and_goes_on() {
    let (base, _) = server::serve().await;
    let body = json!({"model": "m", "messages": [], "stream": true}).to_string();
    let run = cli(
        &base,
        &["chat", "create-completion", "--body", &body],
        false,
    );
    // The data that is not JSON is the API breaking its contract, where it did; the events
    // around it are printed, and the exit code says the stream was not clean.
    assert_eq!(run.code, 5, "{}", run.err);
    let lines: Vec<Value> = String::from_utf8(run.out)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines, tidy_chunks());
    assert!(run.err.contains("broke its contract"), "{}", run.err);
    assert!(
        !run.err.contains("not JSON"),
        "no data repeated: {}",
        run.err
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_a_requested_stream_is_reported_as_progress_and_returned_whole() {
    let body = |stream: bool| json!({"body": {"model": "tidy", "messages": [], "stream": stream}});
    let script = json!([
        {"call": "create_completion", "arguments": body(true), "progress": true},
        {"call": "create_completion", "arguments": body(false), "progress": true},
    ]);
    let Some(runs) = over_mcp(script).await else {
        return;
    };
    for (mode, steps) in runs {
        let notes: Vec<Value> = steps[0]["progress"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| serde_json::from_str(n["message"].as_str().unwrap()).unwrap())
            .collect();
        assert_eq!(notes, tidy_chunks(), "{mode}");
        let result = &steps[0]["result"];
        assert_ne!(result["isError"], true, "{mode}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            Value::Array(tidy_chunks().to_vec()),
            "{mode}"
        );
        // The JSON reply is one value, with no progress.
        assert_eq!(steps[1]["progress"], json!([]), "{mode}");
        let text = steps[1]["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            json!({"id": "c1", "content": "Hello!"}),
            "{mode}"
        );
    }
}

/// The news the stand-in sends for `topic`, as `list_news`'s events.
fn news(topic: &str) -> Vec<Value> {
    server::NEWS
        .iter()
        .map(|t| json!({"title": format!("{topic}: {t}")}))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_operation_the_server_answers_by_accept_takes_stream_to_ask_for_the_events() {
    let (base, _) = server::serve().await;
    let registry = registry(&base);
    let tool = registry.lookup(Audience::Mcp, "list_news").unwrap();
    // No body flag: the tool's input has `stream` of its own, and its output is either.
    assert_eq!(
        tool.input_schema.as_value()["properties"]["stream"]["type"],
        "boolean"
    );
    assert_eq!(
        tool.output_schema.clone().unwrap().as_value()["anyOf"][1]["type"],
        "array"
    );
    let call = |input: Value| registry.invoke(Audience::Mcp, "list_news", input);
    assert_eq!(
        call(json!({"topic": "t"})).await.unwrap(),
        json!({"items": news("t")})
    );
    assert_eq!(
        call(json!({"topic": "t", "stream": true})).await.unwrap(),
        Value::Array(news("t"))
    );

    // The CLI: `--stream` prints each event as a line; without it, the page.
    let streamed = cli(
        &base,
        &["chat", "list-news", "--topic", "t", "--stream"],
        false,
    );
    assert_eq!(streamed.code, 0, "{}", streamed.err);
    let lines: Vec<Value> = String::from_utf8(streamed.out)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines, news("t"));
    let whole = cli(&base, &["chat", "list-news", "--topic", "t"], false);
    assert_eq!(whole.code, 0, "{}", whole.err);
    let page: Value = serde_json::from_slice(&whole.out).unwrap();
    assert_eq!(page, json!({"items": news("t")}));
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_stream_true_asks_the_server_by_accept_and_reports_each_event() {
    let script = json!([
        {"call": "list_news", "arguments": {"topic": "t", "stream": true}, "progress": true},
    ]);
    let Some(runs) = over_mcp(script).await else {
        return;
    };
    for (mode, steps) in runs {
        let notes: Vec<Value> = steps[0]["progress"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| serde_json::from_str(n["message"].as_str().unwrap()).unwrap())
            .collect();
        assert_eq!(notes, news("t"), "{mode}");
        let text = steps[0]["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            Value::Array(news("t")),
            "{mode}"
        );
    }
}

//! A program written against the SDK generated from OpenAI's description, as a user would
//! (copied into the generated crate's `examples/` by `tests/tests/e2e/openai.rs`, which reads
//! what it prints): chat plain and streamed, a streamed response, a file upload, the model list,
//! a wrong key and a rate limit against the loopback stand-in named by `OPENAI_BASE_URL`. Each
//! step prints one JSON line.

use futures::StreamExt;
use harness_gen_runtime::http::{Credential, Error, Secret};
use openai::Client;
use openai::types::*;
use serde_json::{Value, json};

fn say(step: &str, outcome: Value) {
    println!("{}", json!({"step": step, "outcome": outcome}));
}

/// What an error says, for the test to compare.
fn failure<E: std::fmt::Debug>(error: &Error<E>) -> Value {
    match error {
        Error::Status(reply) => json!({"status": reply.status, "excerpt": reply.excerpt}),
        Error::Api(declared) => json!({"declared": format!("{declared:?}")}),
        other => json!({"other": format!("{other:?}")}),
    }
}

fn client(key: &str) -> Client {
    let base = std::env::var("OPENAI_BASE_URL").expect("the test sets OPENAI_BASE_URL");
    let builder = Client::builder()
        .base_url(base)
        .max_retries(1)
        .credential("ApiKeyAuth", Credential::Token(Secret::new(key)));
    Client::from_builder(builder).expect("the client builds")
}

fn chat_request(model: &str, stream: bool) -> CreateChatCompletionRequest {
    serde_json::from_value(json!({
        "model": model,
        "messages": [{"role": "user", "content": "Say hello"}],
        "stream": stream,
        "stream_options": if stream { json!({"include_usage": true}) } else { Value::Null },
    }))
    .expect("the request is one the description allows")
}

#[tokio::main]
async fn main() {
    let key = std::env::var("STANDIN_KEY").expect("the test sets STANDIN_KEY");
    let api = client(&key);

    // The client by resource, as the CLI groups the operations (`chat create-completion`).
    let reply = api
        .chat()
        .create_completion(chat_request("gpt-4o", false))
        .await
        .expect("chat answers");
    let message = &reply.choices[0].message;
    say(
        "chat",
        json!({"content": message.content, "model": reply.model, "usage": reply.usage.map(|u| u.total_tokens)}),
    );

    let mut events = api
        .chat()
        .create_completion(chat_request("gpt-4o", true))
        .events()
        .await
        .expect("the chat stream starts");
    let (mut text, mut usage, mut chunks) = (String::new(), None, 0);
    while let Some(event) = events.next().await {
        let chunk = event.expect("each chunk fits the description").data;
        chunks += 1;
        if let Some(choice) = chunk.choices.first() {
            text.extend(choice.delta.content.clone().flatten());
        }
        usage = usage.or(chunk.usage.flatten().map(|u| u.total_tokens));
    }
    say(
        "chat stream",
        json!({"text": text, "chunks": chunks, "usage": usage}),
    );

    let request: CreateResponse = serde_json::from_value(json!({
        "model": "gpt-4.1", "input": "Say hi", "stream": true
    }))
    .expect("the request is one the description allows");
    let mut events = api
        .responses()
        .create(request)
        .events()
        .await
        .expect("the response stream starts");
    let mut names = Vec::new();
    while let Some(event) = events.next().await {
        let event = event.expect("each event fits the description");
        names.push(event.event.unwrap_or_default());
    }
    say("response stream", json!({"events": names}));

    let file = formats::Upload::bytes(b"{\"prompt\": \"p\"}\n".to_vec())
        .file_name("train.jsonl")
        .content_type("application/jsonl");
    let body: CreateFileRequest = CreateFileRequest::new(file, CreateFileRequestPurpose::FineTune);
    let uploaded = api
        .files()
        .create(body)
        .await
        .expect("the upload is taken");
    say(
        "upload",
        json!({"id": uploaded.id, "bytes": uploaded.bytes, "filename": uploaded.filename}),
    );

    let models = api.models().list().await.expect("models are listed");
    let ids: Vec<&str> = models.data.iter().map(|m| m.id.as_str()).collect();
    say("models", json!({"ids": ids}));

    // The flat methods stay, one index for generic code.
    let wrong = client("sk-wrong-key-0000").list_models().await;
    say("wrong key", failure(&wrong.expect_err("a wrong key is refused")));

    let busy = api
        .create_chat_completion(&CreateChatCompletionInput::new(chat_request(
            "gpt-busy", false,
        )))
        .await;
    say("rate limit", failure(&busy.expect_err("the model is busy")));
}

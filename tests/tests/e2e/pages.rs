//! Pagination end to end (`specs/pages.yaml` against the loopback server of `src/pages.rs`):
//! the SDK's page and item streams for each recognised shape and a declared one, the stops
//! (last page, repeated cursor, page bound), the CLI's `--paginate` and `jsonl`, and tools that
//! return one page with the next page's arguments, in process and over MCP.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use ::pages::client::Client;
use ::pages::types::*;
use futures::{StreamExt, TryStreamExt};
use harness_e2e::{McpStdio, pages as server, pages_binary};
use harness_gen_runtime::Audience;
use harness_gen_runtime::http::Error;
use serde_json::json;

fn client(base: &str) -> Client {
    Client::from_builder(Client::builder().base_url(base)).unwrap()
}

#[tokio::test]
async fn link_header_pages_are_followed_over_three_pages_keeping_the_page_size() {
    let (base, seen) = server::serve().await;
    let toys: Vec<Toy> = client(&base)
        .list_toys_pages(&ListToysInput::new().per_page(3))
        .items()
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<i64> = toys.iter().map(|t| t.id).collect();
    assert_eq!(ids, [1, 2, 3, 4, 5, 6, 7]);
    let asked: Vec<_> = seen
        .to("/toys")
        .iter()
        .map(|q| (q.get("page").cloned(), q["per_page"].clone()))
        .collect();
    assert_eq!(
        asked,
        [
            (None, "3".to_string()),
            (Some("2".into()), "3".into()),
            (Some("3".into()), "3".into())
        ],
        "the page size travels with every page; the link's other path is not followed"
    );
}

#[tokio::test]
async fn stripe_style_pages_are_followed_by_the_last_items_id_without_x_harn() {
    let (base, seen) = server::serve().await;
    let pages: Vec<ListCustomersOutput> = client(&base)
        .list_customers_pages(&ListCustomersInput::new().limit(2))
        .into_stream()
        .try_collect()
        .await
        .unwrap();
    let sizes: Vec<usize> = pages.iter().map(|p| p.data.len()).collect();
    assert_eq!(sizes, [2, 2, 1]);
    let after: Vec<Option<String>> = seen
        .to("/customers")
        .iter()
        .map(|q| q.get("starting_after").cloned())
        .collect();
    assert_eq!(after, [None, Some("cus_2".into()), Some("cus_4".into())]);
}

#[tokio::test]
async fn openai_style_pages_are_followed_by_last_id_without_x_harn() {
    let (base, seen) = server::serve().await;
    let files: Vec<FileListDataItem> = client(&base)
        .list_files_pages(&ListFilesInput::new().limit(3))
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(files.len(), 4);
    assert_eq!(files[3].id, "file-4");
    assert_eq!(seen.to("/files").len(), 2, "has_more false ends the pages");
}

#[tokio::test]
async fn svix_style_pages_follow_the_iterator_until_done_without_x_harn() {
    let (base, seen) = server::serve().await;
    let messages: Vec<ListMessagesOutputDataItem> = client(&base)
        .list_messages_pages(&ListMessagesInput::new().limit(2))
        .items()
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<&str> = messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["msg_0", "msg_1", "msg_2", "msg_3", "msg_4"]);
    let iterators: Vec<Option<String>> = seen
        .to("/messages")
        .iter()
        .map(|q| q.get("iterator").cloned())
        .collect();
    assert_eq!(
        iterators,
        [None, Some("it-2".into()), Some("it-4".into())],
        "`done` ends the pages though the last one carries an iterator"
    );
}

#[tokio::test]
async fn declared_offset_pages_grow_by_the_items_read_and_end_on_an_empty_page() {
    let (base, seen) = server::serve().await;
    let events: Vec<Event> = client(&base)
        .list_events_pages(&ListEventsInput::new().limit(2))
        .items()
        .try_collect()
        .await
        .unwrap();
    let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3, 4]);
    let skips: Vec<Option<String>> = seen
        .to("/events")
        .iter()
        .map(|q| q.get("skip").cloned())
        .collect();
    assert_eq!(
        skips,
        [None, Some("2".into()), Some("4".into()), Some("5".into())]
    );
}

#[tokio::test]
async fn a_repeated_cursor_ends_the_pages_with_an_error_instead_of_looping() {
    let (base, seen) = server::serve().await;
    let read: Vec<Result<String, Error<ListReportsError>>> = client(&base)
        .list_reports_pages(&ListReportsInput::new())
        .items()
        .collect()
        .await;
    let (items, errors): (Vec<_>, Vec<_>) = read.into_iter().partition(Result::is_ok);
    let items: Vec<String> = items.into_iter().map(Result::unwrap).collect();
    assert_eq!(items, ["a", "b", "c"]);
    assert_eq!(errors.len(), 1);
    let error = errors.into_iter().next().unwrap().unwrap_err().to_string();
    assert!(error.contains("repeated cursor"), "{error}");
    assert_eq!(
        seen.to("/reports").len(),
        2,
        "the repeated page is never asked for"
    );
}

#[tokio::test]
async fn more_pages_than_allowed_is_an_error_not_a_silent_end() {
    let (base, _) = server::serve().await;
    let mut pages = client(&base)
        .list_toys_pages(&ListToysInput::new().per_page(2))
        .max_pages(2);
    assert!(pages.next_page().await.unwrap().is_ok());
    assert_eq!(pages.next_arguments().unwrap()["page"], "2");
    assert!(pages.next_page().await.unwrap().is_ok());
    let third = pages.next_page().await.unwrap().unwrap_err().to_string();
    assert!(third.contains("more than 2 pages"), "{third}");
    assert!(pages.next_page().await.is_none());
}

#[tokio::test]
async fn a_tool_returns_one_page_and_the_next_pages_arguments_typed_by_its_input_schema() {
    let (base, seen) = server::serve().await;
    let registry = ::pages::registry::registry(client(&base)).unwrap();
    let first = registry
        .invoke_page(Audience::Agent, "list_toys", json!({"per_page": 3}))
        .await
        .unwrap();
    assert_eq!(first.value.as_array().unwrap().len(), 3);
    assert_eq!(
        first.next_page.unwrap(),
        json!({"page": 2, "per_page": 3})
            .as_object()
            .cloned()
            .unwrap(),
        "numbers read from the link are numbers where the schema says so"
    );
    let last = registry
        .invoke_page(
            Audience::Agent,
            "list_toys",
            json!({"per_page": 3, "page": 3}),
        )
        .await
        .unwrap();
    assert_eq!(last.next_page, None);
    assert_eq!(seen.to("/toys").len(), 2, "one request per call");
    let customers = registry
        .invoke_page(Audience::Agent, "list_customers", json!({"limit": 2}))
        .await
        .unwrap();
    assert_eq!(customers.next_page.unwrap()["starting_after"], "cus_2");
}

/// Runs the `pages` CLI against `base` (off the test's runtime, which serves the API): its
/// standard output, standard error and exit code.
async fn cli(base: &str, args: &[&str]) -> (String, String, i32) {
    let base = base.to_string();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(pages_binary("pages"))
            .args(&args)
            .env("PAGES_BASE_URL", &base)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[tokio::test]
async fn the_cli_follows_every_page_with_paginate_as_one_array_or_json_lines() {
    let (base, seen) = server::serve().await;
    let (out, err, code) = cli(
        &base,
        &["catalogue", "list-customers", "--limit", "2", "--paginate"],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let all: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["cus_1", "cus_2", "cus_3", "cus_4", "cus_5"]);
    assert_eq!(seen.to("/customers").len(), 3);

    let (out, err, code) = cli(
        &base,
        &[
            "catalogue",
            "list-toys",
            "--per-page",
            "3",
            "--paginate",
            "--output-format",
            "jsonl",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 7, "{out}");
    assert_eq!(lines[6], json!({"id": 7, "name": "toy 7"}));

    // Seven toys, three a page: three pages, one more than allowed.
    let (out, err, code) = cli(
        &base,
        &[
            "catalogue",
            "list-toys",
            "--per-page",
            "3",
            "--paginate",
            "--max-pages",
            "2",
            "--output-format",
            "jsonl",
        ],
    )
    .await;
    assert_eq!(code, 4, "{out}");
    assert!(err.contains("more than 2 pages"), "{err}");
    assert_eq!(
        out.lines().filter(|l| l.contains("toy ")).count(),
        6,
        "{out}"
    );
    let (_, err, code) = cli(&base, &["catalogue", "list-toys", "--max-pages", "2"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give both"), "{err}");

    let (out, err, code) = cli(&base, &["catalogue", "list-history", "--paginate"]).await;
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("does not list in pages"), "{err}");
}

#[tokio::test]
async fn over_mcp_a_call_returns_one_page_and_says_how_to_ask_for_the_next() {
    let (base, seen) = server::serve().await;
    let program = tokio::task::spawn_blocking(|| pages_binary("pages-mcp"))
        .await
        .unwrap();
    let mut session = McpStdio::handshake(McpStdio::spawn_program(
        &program,
        &[("PAGES_BASE_URL", &base)],
    ))
    .await;
    let reply = session
        .request(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "list_customers", "arguments": {"limit": 2}}}),
        )
        .await;
    let result = &reply["result"];
    assert_eq!(result["structuredContent"]["data"][1]["id"], "cus_2");
    assert_eq!(
        result["_meta"]["com.harnlang/nextPage"],
        json!({"starting_after": "cus_2"})
    );
    let said = result["content"][1]["text"].as_str().unwrap();
    assert!(said.contains(r#"{"starting_after":"cus_2"}"#), "{said}");
    let last = session
        .request(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "list_customers", "arguments": {"limit": 2, "starting_after": "cus_4"}}}),
        )
        .await;
    assert!(last["result"].get("_meta").is_none(), "{last}");
    assert_eq!(last["result"]["content"].as_array().unwrap().len(), 1);
    assert_eq!(seen.to("/customers").len(), 2);
    let (ok, _, stderr) = session.finish().await;
    assert!(ok, "{stderr}");
}

//! The generated `streams` crate (`specs/streams.yaml`) against a loopback server that streams
//! server-sent events: typed events through the `_events` calls, the JSON call beside them,
//! declared errors before the stream, and hanging up; downloads read as they arrive.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::sync::atomic::Ordering;
use std::time::Duration;

use futures::StreamExt;
use harness_e2e::streams as server;
use harness_gen_runtime::http::Error;
use streams::types::*;

fn client(base: &str) -> streams::Client {
    streams::Client::from_builder(
        streams::Client::builder()
            .base_url(base)
            .timeout(Duration::from_secs(5)),
    )
    .unwrap()
}

fn request(model: &str) -> CreateCompletionInput {
    CreateCompletionInput::new(CompletionRequest::new(
        model,
        vec![Message::new(MessageRole::User, "Hi")],
    ))
}

#[tokio::test]
async fn events_are_typed_across_split_lines_comments_and_names_and_end_at_the_sentinel() {
    let (base, seen) = server::serve().await;
    let events: Vec<_> = client(&base)
        .create_completion_events(&request("small"))
        .await
        .unwrap()
        .collect()
        .await;
    assert_eq!(events.len(), 4, "{events:?}");
    let first = events[0].as_ref().unwrap();
    assert_eq!(
        first.data.delta, "Hel",
        "data over two lines, one JSON value"
    );
    assert_eq!(
        (first.event.as_deref(), first.id.as_deref()),
        (Some("chunk"), Some("1"))
    );
    let second = events[1].as_ref().unwrap();
    assert_eq!(second.data.delta, "lo");
    assert_eq!(
        (second.event.as_deref(), second.id.as_deref()),
        (None, Some("1")),
        "the last id carries over, the name does not"
    );
    // Data that is not the event type is an error item, and the stream goes on.
    assert!(
        matches!(&events[2], Err(Error::InvalidResponse { .. })),
        "{:?}",
        events[2]
    );
    let third = events[3].as_ref().unwrap();
    assert_eq!(third.data.delta, "!");
    assert_eq!(third.retry, Some(Duration::from_millis(2500)));
    // Nothing after `[DONE]` is read; the streaming call asked for the stream.
    assert_eq!(*seen.stream_flags.lock().unwrap(), [Some(true)]);
}

#[tokio::test]
async fn the_json_call_stays_beside_the_streaming_one() {
    let (base, seen) = server::serve().await;
    let whole = client(&base)
        .create_completion(&request("small"))
        .await
        .unwrap();
    assert_eq!(whole.content, "Hello!");
    assert_eq!(*seen.stream_flags.lock().unwrap(), [None]);
}

#[tokio::test]
async fn a_declared_error_comes_before_any_event() {
    let (base, _) = server::serve().await;
    let error = client(&base)
        .create_completion_events(&request("missing"))
        .await
        .err()
        .unwrap();
    let Error::Api(CreateCompletionError::Http400 { status, body }) = error else {
        panic!("{error:?}")
    };
    assert_eq!((status, body.title.as_str()), (400, "no such model"));
}

#[tokio::test]
async fn the_stream_tells_how_it_ended_sentinel_closed_or_broken() {
    use harness_gen_runtime::http::StreamEnd;
    let (base, _) = server::serve().await;
    let mut completion = client(&base)
        .create_completion_events(&request("small"))
        .await
        .unwrap();
    assert_eq!(completion.ended(), None, "not before it has");
    while completion.next().await.is_some() {}
    assert_eq!(completion.ended(), Some(StreamEnd::Sentinel));

    let mut ticks = client(&base)
        .watch_ticks_events(&WatchTicksInput::new().every_ms(1).count(2))
        .await
        .unwrap();
    while ticks.next().await.is_some() {}
    assert_eq!(ticks.ended(), Some(StreamEnd::Closed), "no sentinel came");

    let impatient = streams::Client::from_builder(
        streams::Client::builder()
            .base_url(&base)
            .timeout(Duration::from_millis(200)),
    )
    .unwrap();
    let mut slow = impatient
        .watch_ticks_events(&WatchTicksInput::new().every_ms(2_000))
        .await
        .unwrap();
    let last = slow.next().await;
    assert!(matches!(last, Some(Err(Error::Timeout))), "{last:?}");
    assert_eq!(slow.ended(), Some(StreamEnd::Broken));
}

#[tokio::test]
async fn dropping_the_stream_hangs_up() {
    let (base, seen) = server::serve().await;
    let mut ticks = client(&base)
        .watch_ticks_events(&WatchTicksInput::new().every_ms(10))
        .await
        .unwrap();
    for expected in 0..3 {
        let tick = ticks.next().await.unwrap().unwrap();
        assert_eq!(tick.data.seq, expected);
    }
    drop(ticks);
    let started = std::time::Instant::now();
    while !seen.hung_up.load(Ordering::SeqCst) {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the server still streams ({} ticks)",
            seen.ticks.load(Ordering::SeqCst)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Whether `bytes`, starting at offset `at`, are the server's pattern.
fn is_pattern(bytes: &[u8], at: u64) -> bool {
    bytes
        .iter()
        .enumerate()
        .all(|(i, b)| *b == server::byte_at(at + i as u64))
}

#[tokio::test]
async fn a_download_arrives_in_chunks_with_its_type_and_length() {
    let (base, _) = server::serve().await;
    let size: u64 = 5 << 20;
    let mut download = client(&base)
        .download_file_stream(&DownloadFileInput::new("report").size(size as i64))
        .await
        .unwrap();
    assert_eq!(download.content_type(), Some("application/octet-stream"));
    assert_eq!(download.length(), Some(size));
    let (mut received, mut chunks, mut largest) = (0u64, 0, 0);
    while let Some(chunk) = download.chunk().await {
        let chunk = chunk.unwrap();
        assert!(is_pattern(&chunk, received));
        received += chunk.len() as u64;
        largest = largest.max(chunk.len());
        chunks += 1;
    }
    assert_eq!(received, size);
    assert!(
        chunks > 1 && largest < (1 << 20),
        "{chunks} chunks, largest {largest}"
    );
}

#[tokio::test]
async fn a_saved_download_is_whole_or_not_there() {
    let (base, _) = server::serve().await;
    let dir = std::env::temp_dir().join(format!("hg-download-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("report.bin");
    let written = client(&base)
        .download_file_stream(&DownloadFileInput::new("report").size(3_000_000))
        .await
        .unwrap()
        .save(&path)
        .await
        .unwrap();
    assert_eq!(written, 3_000_000);
    let saved = std::fs::read(&path).unwrap();
    assert!(saved.len() == 3_000_000 && is_pattern(&saved, 0));

    // Cut off halfway: an error, the earlier file untouched, no partial file left.
    let cut = client(&base)
        .download_file_stream(&DownloadFileInput::new("cut").size(3_000_000))
        .await
        .unwrap()
        .save(&path)
        .await;
    assert!(matches!(cut, Err(Error::Transport)), "{cut:?}");
    assert_eq!(std::fs::read(&path).unwrap().len(), 3_000_000);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["report.bin"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_declared_error_comes_instead_of_the_download() {
    let (base, _) = server::serve().await;
    let error = client(&base)
        .download_file_stream(&DownloadFileInput::new("missing"))
        .await
        .unwrap_err();
    let Error::Api(DownloadFileError::Http404 { body, .. }) = error else {
        panic!("{error:?}")
    };
    assert_eq!(body.title, "no such file");
}

#[tokio::test]
async fn an_operation_the_server_answers_by_accept_streams_through_events_and_refuses_stream_in_the_plain_call()
 {
    let (base, _) = server::serve().await;
    let client = client(&base);
    let page = client.chat().list_news().topic("t").await.unwrap();
    assert_eq!(page.items.len(), 3);
    assert_eq!(page.items[0].title, "t: Rust 2024 ships");
    let titles: Vec<String> = client
        .chat()
        .list_news()
        .topic("t")
        .events()
        .await
        .unwrap()
        .map(|event| event.unwrap().data.title)
        .collect()
        .await;
    assert_eq!(
        titles,
        ["t: Rust 2024 ships", "t: Streams everywhere", "t: The end"]
    );
    // `stream: true` asks for what the plain call does not read: refused, not ignored.
    let refused = client.chat().list_news().stream(true).await.unwrap_err();
    assert!(
        matches!(&refused, Error::InvalidValue { pointer, .. } if pointer == "/stream"),
        "{refused:?}"
    );
}

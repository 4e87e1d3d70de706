//! Uploads from the generated `streams` crate (`specs/streams.yaml`) to a loopback server that
//! reads multipart bodies with an independent parser and reports each part's name, file name,
//! media type, length and SHA-256: files from disk, bytes and streams, arrays of files, text
//! and JSON parts, a whole octet-stream body, retries that send a file again, a stream sent once,
//! and a file that cannot be read failing before anything is sent.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::sync::atomic::Ordering;
use std::time::Duration;

use harness_e2e::streams as server;
use harness_gen_runtime::formats::Upload;
use harness_gen_runtime::http::{Error, RetryPolicy};
use sha2::Digest;
use streams::types::*;

fn client(base: &str) -> streams::Client {
    let retry = RetryPolicy {
        initial_backoff: Duration::from_millis(10),
        ..RetryPolicy::DEFAULT
    };
    streams::Client::from_builder(
        streams::Client::builder()
            .base_url(base)
            .timeout(Duration::from_secs(10))
            .retry_policy(retry),
    )
    .unwrap()
}

/// A received part: name, file name, media type, length and SHA-256.
type Part = (String, Option<String>, Option<String>, i64, String);

fn sha256(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A file of `size` pattern bytes in a folder of this test's own; returns its path and bytes.
fn scratch_file(test: &str, name: &str, size: usize) -> (std::path::PathBuf, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("hg-upload-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bytes: Vec<u8> = (0..size).map(|i| (i * 7 % 256) as u8).collect();
    let path = dir.join(name);
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

fn chunks(bytes: &[u8]) -> impl futures::Stream<Item = std::io::Result<bytes::Bytes>> + use<> {
    let pieces: Vec<_> = bytes
        .chunks(1000)
        .map(|c| Ok(bytes::Bytes::copy_from_slice(c)))
        .collect();
    futures::stream::iter(pieces)
}

#[tokio::test]
async fn a_multipart_upload_sends_files_texts_and_json_parts_byte_for_byte() {
    let (base, _) = server::serve().await;
    let (path, file) = scratch_file("multipart", "train.jsonl", 3 << 20);
    let cover = b"\x89PNG\r\n\x1a\n not really".to_vec();
    let request = UploadRequest::new("fine-tune", Upload::path(&path))
        .extras(vec![
            Upload::bytes(b"first".to_vec()),
            Upload::bytes(b"second".to_vec())
                .file_name("two.csv")
                .content_type("text/csv"),
        ])
        .cover(Upload::stream(chunks(&cover), Some(cover.len() as u64)).file_name("cover.png"))
        .attributes(std::collections::BTreeMap::from([(
            "owner".to_string(),
            "ana".to_string(),
        )]))
        .tags(vec!["a".to_string(), "b".to_string()]);
    let received = client(&base)
        .upload_file(&UploadFileInput::new(request))
        .await
        .unwrap();
    let parts: Vec<Part> = received
        .parts
        .iter()
        .map(|p| {
            let name = p.name.clone();
            (
                name,
                p.file_name.clone(),
                p.content_type.clone(),
                p.length,
                p.sha256.clone(),
            )
        })
        .collect();
    let part = |name: &str, file: Option<&str>, kind: &str, bytes: &[u8]| {
        let owned = |s: &str| s.to_string();
        (
            owned(name),
            file.map(owned),
            Some(owned(kind)),
            bytes.len() as i64,
            sha256(bytes),
        )
    };
    assert_eq!(
        parts,
        [
            // Parts go in the order of the document's properties.
            part("purpose", None, "text/plain; charset=utf-8", b"fine-tune"),
            part(
                "file",
                Some("train.jsonl"),
                "application/octet-stream",
                &file
            ),
            // Without a name of its own a file part is named after its field.
            part(
                "extras",
                Some("extras"),
                "application/octet-stream",
                b"first"
            ),
            part("extras", Some("two.csv"), "text/csv", b"second"),
            // A declared range (`image/*`) gives way to what the file name says.
            part("cover", Some("cover.png"), "image/png", &cover),
            part(
                "attributes",
                None,
                "application/json",
                br#"{"owner":"ana"}"#
            ),
            part("tags", None, "text/plain; charset=utf-8", b"a"),
            part("tags", None, "text/plain; charset=utf-8", b"b"),
        ]
    );
}

#[tokio::test]
async fn an_octet_stream_body_is_read_from_its_file_again_for_a_retry() {
    let (base, seen) = server::serve().await;
    let (path, file) = scratch_file("retry", "photo.jpg", 1 << 20);
    let input = PutFileBytesInput::new("flaky", Upload::path(&path));
    let received = client(&base).put_file_bytes(&input).await.unwrap();
    assert_eq!(
        seen.puts.load(Ordering::SeqCst),
        2,
        "the first attempt got a 503"
    );
    let part = &received.parts[0];
    assert_eq!(
        (part.length, &part.sha256),
        (file.len() as i64, &sha256(&file))
    );
    // The declared `application/octet-stream` names one type, so it is sent as declared.
    assert_eq!(
        part.content_type.as_deref(),
        Some("application/octet-stream")
    );
}

#[tokio::test]
async fn a_stream_is_sent_once_and_its_call_not_retried() {
    let (base, seen) = server::serve().await;
    let input = PutFileBytesInput::new("flaky", Upload::stream(chunks(b"once only"), None));
    let error = client(&base).put_file_bytes(&input).await.unwrap_err();
    // The 503 the operation does not declare is not retried for a stream sent once.
    assert!(
        matches!(&error, Error::Status(reply) if reply.status == 503),
        "{error}"
    );
    assert_eq!(seen.puts.load(Ordering::SeqCst), 1);
    // The same stream sent again is an error of its own, not an empty body.
    let again = client(&base).put_file_bytes(&input).await.unwrap_err();
    assert!(
        matches!(&again, Error::Read(why) if why.contains("/body") && why.contains("sent already")),
        "{again}"
    );
    assert_eq!(seen.puts.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_upload_without_a_length_goes_chunked_and_arrives_whole() {
    let (base, seen) = server::serve().await;
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 13) as u8).collect();
    let input = PutFileBytesInput::new("f1", Upload::stream(chunks(&bytes), None));
    let received = client(&base).put_file_bytes(&input).await.unwrap();
    assert_eq!(seen.puts.load(Ordering::SeqCst), 1);
    assert_eq!(received.parts[0].sha256, sha256(&bytes));
}

#[tokio::test]
async fn a_file_that_cannot_be_read_fails_the_call_before_anything_is_sent() {
    let (base, seen) = server::serve().await;
    let missing = std::env::temp_dir().join("hg-upload-no-such-dir/none.bin");
    let request = UploadRequest::new("x", Upload::bytes(b"ok".to_vec()))
        .extras(vec![Upload::bytes(b"ok".to_vec()), Upload::path(&missing)]);
    let error = client(&base)
        .upload_file(&UploadFileInput::new(request))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, Error::Read(why) if why.contains("/body/extras/1") && why.contains("none.bin")),
        "{error}"
    );
    let input = PutFileBytesInput::new("f1", Upload::path(&missing));
    let error = client(&base).put_file_bytes(&input).await.unwrap_err();
    assert!(matches!(error, Error::Read(_)), "{error}");
    assert_eq!(seen.puts.load(Ordering::SeqCst), 0);
}

/// `count` chunks of `bytes`, one every `every`, then (with `stall`) silence.
fn trickle(
    count: usize,
    every: Duration,
    stall: bool,
) -> impl futures::Stream<Item = std::io::Result<bytes::Bytes>> + use<> {
    futures::stream::unfold(0, move |sent| async move {
        if sent == count {
            if stall {
                futures::future::pending::<()>().await;
            }
            return None;
        }
        tokio::time::sleep(every).await;
        Some((Ok(bytes::Bytes::from_static(b"0123456789")), sent + 1))
    })
}

#[tokio::test]
async fn a_streamed_upload_is_bounded_by_silence_not_by_its_length() {
    let (base, _) = server::serve().await;
    let client = streams::Client::from_builder(
        streams::Client::builder()
            .base_url(&base)
            .timeout(Duration::from_millis(300)),
    )
    .unwrap();
    // Ten chunks a tenth of a second apart: a second in all, three times the timeout.
    let slow = PutFileBytesInput::new(
        "f1",
        Upload::stream(trickle(10, Duration::from_millis(100), false), None),
    );
    let received = client.put_file_bytes(&slow).await.unwrap();
    assert_eq!(received.parts[0].length, 100);
    // A body that stops coming is a timeout, not a hang.
    let stalled = PutFileBytesInput::new(
        "f1",
        Upload::stream(trickle(2, Duration::from_millis(10), true), None),
    );
    let error = client.put_file_bytes(&stalled).await.unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error}");
}

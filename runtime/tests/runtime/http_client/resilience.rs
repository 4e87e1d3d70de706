//! Retries (which calls, how often, honouring `Retry-After`), timeouts and bodies cut short.

use super::*;

#[tokio::test]
async fn idempotent_calls_retry_on_503_honouring_retry_after() {
    let (base, seen) = serve().await;
    let reply = client(&base)
        .send(&binding("GET", "/busy", json!({})), &json!({}))
        .await
        .unwrap();
    assert_eq!(reply, Reply::Success(json!({"ok": true})));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn non_idempotent_calls_are_not_retried() {
    let (base, seen) = serve().await;
    let reply = client(&base)
        .send(&binding("POST", "/busy", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(&reply, Reply::Status(r) if r.status == 503));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_server_that_does_not_answer_times_out() {
    let (base, _) = serve().await;
    let error = client(&base)
        .send(&binding("POST", "/slow", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error:?}");
}

#[tokio::test]
async fn an_oversized_response_is_refused() {
    let (base, _) = serve().await;
    let error = client(&base)
        .send(&binding("GET", "/huge", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::TooLarge));
}

#[tokio::test]
async fn a_refused_connection_is_a_transport_error_after_bounded_retries() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let error = client(&base)
        .send(&binding("GET", "/x", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Transport));
}

#[tokio::test]
async fn a_persistent_503_is_retried_a_bounded_number_of_times() {
    let (base, seen) = serve().await;
    let reply = client(&base)
        .send(&binding("GET", "/down", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(&reply, Reply::Status(r) if r.status == 503));
    assert_eq!(
        seen.hits.load(Ordering::SeqCst),
        3,
        "one try and two retries"
    );
}

#[tokio::test]
async fn a_500_is_retried_for_idempotent_calls_then_an_undeclared_reply() {
    let (base, seen) = serve().await;
    let reply = client(&base)
        .send(&binding("GET", "/crash", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(&reply, Reply::Status(r) if r.status == 500));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_retry_after_beyond_the_time_budget_returns_the_reply_at_once() {
    let (base, seen) = serve().await;
    let started = std::time::Instant::now();
    let reply = client(&base)
        .send(&binding("GET", "/later", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(&reply, Reply::Status(r) if r.status == 503));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 1, "an hour is past 30 s");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_post_with_an_idempotency_key_is_retried() {
    let (base, seen) = serve().await;
    let keyed = binding(
        "POST",
        "/busy",
        json!({"idempotencyKey": "Idempotency-Key"}),
    );
    let reply = client(&base).send(&keyed, &json!({})).await.unwrap();
    assert_eq!(reply, Reply::Success(json!({"ok": true})));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_429_is_retried_for_idempotent_calls_only() {
    let (base, seen) = serve().await;
    let get = client(&base)
        .send(&binding("GET", "/limited", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(&get, Reply::Status(r) if r.status == 429));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 3);
    let post = client(&base)
        .send(&binding("POST", "/limited", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(&post, Reply::Status(r) if r.status == 429));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_malformed_success_body_is_an_unexpected_reply_with_its_first_bytes() {
    let (base, _) = serve().await;
    let reply = client(&base)
        .send(&binding("GET", "/malformed", json!({})), &json!({}))
        .await
        .unwrap();
    assert_eq!(
        reply,
        Reply::Unexpected(ReplyExcerpt {
            status: 200,
            content_type: Some("application/json".into()),
            excerpt: "{\"pets\": [1, 2".into(),
        })
    );
}

/// A server speaking raw HTTP/1.1 that answers every connection with `head` and `body`, then
/// keeps the connection open for `stall` before closing it.
async fn raw_server(head: &'static str, body: &'static str, stall: Duration) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
                tokio::time::sleep(stall).await;
            });
        }
    });
    base
}

#[tokio::test]
async fn a_body_cut_short_is_a_transport_error() {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n";
    let base = raw_server(head, "{\"pets\": [1", Duration::ZERO).await;
    let error = client(&base)
        .send(&binding("GET", "/pets", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Transport), "{error:?}");
}

#[tokio::test]
async fn a_body_that_stalls_midway_times_out() {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n";
    let base = raw_server(head, "{\"pets\": [1", Duration::from_secs(30)).await;
    let started = std::time::Instant::now();
    let error = client(&base)
        .send(&binding("GET", "/pets", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "no hang");
}

#[tokio::test]
async fn a_server_that_accepts_and_never_answers_times_out() {
    let base = raw_server("", "", Duration::from_secs(30)).await;
    let error = client(&base)
        .send(&binding("POST", "/pets", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error:?}");
}

/// A server that reads each request, then resets the connection (no reply); returns its URL
/// and how many connections it took.
async fn resetting_server() -> (String, Arc<AtomicUsize>) {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let taken = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&taken);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut request = [0u8; 4096];
            let _ = socket.read(&mut request).await;
            // Closing with a zero linger sends a reset, not a graceful close. (Tokio deprecates
            // `set_linger` because a positive linger blocks the thread on drop; zero does not.)
            #[allow(deprecated)]
            let _ = socket.set_linger(Some(Duration::ZERO));
            drop(socket);
        }
    });
    (base, taken)
}

/// Calls `method /pets` on a server that resets every connection; returns the error and how
/// many attempts reached the server.
async fn call_until_reset(method: &str) -> (Error<std::convert::Infallible>, usize) {
    let (base, taken) = resetting_server().await;
    let error = client(&base)
        .send(&binding(method, "/pets", json!({})), &json!({}))
        .await
        .unwrap_err();
    (error, taken.load(Ordering::SeqCst))
}

#[tokio::test]
async fn a_reset_before_the_reply_is_retried_for_a_call_safe_to_repeat_then_a_transport_error() {
    let (error, attempts) = call_until_reset("GET").await;
    assert!(matches!(error, Error::Transport), "{error:?}");
    // The first attempt and the default policy's two retries.
    assert_eq!(attempts, 3);
}

#[tokio::test]
async fn a_reset_before_the_reply_is_not_retried_for_a_call_that_may_have_done_its_work() {
    let (error, attempts) = call_until_reset("POST").await;
    assert!(matches!(error, Error::Transport), "{error:?}");
    assert_eq!(attempts, 1);
}

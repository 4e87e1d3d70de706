//! Credentials: never printed, redacted from replies, replaced per call, and never sent to
//! another host by a redirect.

use super::*;

#[test]
fn credentials_never_show_in_debug_output() {
    let builder = ClientBuilder::new("http://127.0.0.1:1")
        .scheme("token", Scheme::Bearer)
        .credential("token", Credential::Token(Secret::new(TOKEN)));
    assert!(!format!("{builder:?}").contains(TOKEN));
    assert!(!format!("{:?}", builder.build().unwrap()).contains(TOKEN));
}

#[tokio::test]
async fn a_credential_the_server_echoes_is_redacted_from_every_reply() {
    let (base, _) = serve().await;
    let basic = ClientBuilder::new(&base)
        .scheme("basic", Scheme::Basic)
        .scheme(
            "key",
            Scheme::ApiKey {
                location: harness_gen_runtime::binding::ParamIn::Header,
                name: "X-Key".into(),
            },
        )
        .credential(
            "basic",
            Credential::Basic {
                username: "ada".into(),
                password: Secret::new("pw_9d41c0"),
            },
        )
        .credential("key", Credential::ApiKey(Secret::new("key_77f3aa")))
        .build()
        .unwrap();
    let mut b = binding("GET", "/echo-error", json!({}));
    b.security = vec![vec!["basic".into(), "key".into()].into()].into();
    let reply = basic.send(&b, &json!({})).await.unwrap();
    let Reply::Declared { body, .. } = &reply else {
        panic!("{reply:?}")
    };
    let text = body.to_string();
    for secret in ["pw_9d41c0", "key_77f3aa", "YWRhOnB3XzlkNDFjMA=="] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert_eq!(body["title"], format!("rejected Basic {REDACTED}"));
    assert_eq!(body["seen"][0]["key"], REDACTED);
    assert_eq!(body[format!("Basic {REDACTED}")], REDACTED);
    let bearer = client(&base)
        .send(&binding("GET", "/echo-error", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(!format!("{bearer:?}").contains(TOKEN), "{bearer:?}");
}

#[tokio::test]
async fn credentials_too_short_to_be_secret_are_not_searched_for() {
    let (base, _) = serve().await;
    let c = ClientBuilder::new(&base)
        .scheme("token", Scheme::Bearer)
        .credential("token", Credential::Token(Secret::new("a")))
        .build()
        .unwrap();
    let Reply::Success(echo) = c
        .send(&binding("POST", "/echo", json!({})), &json!({}))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["auth"], "Bearer a");
}

#[tokio::test]
async fn credentials_given_with_a_call_replace_the_clients_for_the_schemes_they_name() {
    let (base, _) = serve().await;
    let echo = binding("GET", "/echo", json!({}));
    let client = client(&base);
    let auth_of = |reply: Reply| match reply {
        Reply::Success(echo) => echo["auth"].clone(),
        other => panic!("{other:?}"),
    };
    // A call's own token is sent instead of the client's (one too short to be searched for
    // shows which), and a long one is redacted like the client's.
    let mut given = CallCredentials::new();
    given.set("token", Some("Bearer abc".into()));
    let reply = given
        .clone()
        .scope(client.send(&echo, &json!({})))
        .await
        .unwrap();
    assert_eq!(auth_of(reply), "Bearer abc");
    given.set("token", Some("call_token_41c9".into()));
    let reply = given.scope(client.send(&echo, &json!({}))).await.unwrap();
    assert_eq!(auth_of(reply), format!("Bearer {REDACTED}"));
    // A scheme named without a value sends nothing: no fallback to the client's token (the
    // binding allows an anonymous call).
    let mut none = CallCredentials::new();
    none.set("token", None);
    let reply = none.scope(client.send(&echo, &json!({}))).await.unwrap();
    assert_eq!(auth_of(reply), Value::Null);
    // Schemes the call does not name keep the client's; outside a scope, the client's own.
    let mut other = CallCredentials::new();
    other.set("elsewhere", Some("x".into()));
    let reply = other.scope(client.send(&echo, &json!({}))).await.unwrap();
    assert_eq!(auth_of(reply), format!("Bearer {REDACTED}"));
    let reply = client.send(&echo, &json!({})).await.unwrap();
    assert_eq!(auth_of(reply), format!("Bearer {REDACTED}"));
}

/// What a server received: each request's path, query and headers, as text (replies redact
/// credentials, so what reached the server is read here).
type Received = Arc<std::sync::Mutex<Vec<String>>>;

/// A server that answers `/to?url=U&status=S` with a redirect to `U`, and anything else with
/// the request's method, path, query and headers; and what it received.
async fn redirecting() -> (String, Received) {
    async fn answer(State(received): State<Received>, request: Request) -> Response {
        received
            .lock()
            .unwrap()
            .push(format!("{} {:?}", request.uri(), request.headers()));
        let uri = request.uri().clone();
        if uri.path() == "/to" {
            let axum::extract::Query(pairs) = axum::extract::Query::<
                std::collections::HashMap<String, String>,
            >::try_from_uri(&uri)
            .unwrap();
            let status: u16 = pairs["status"].parse().unwrap();
            return (
                StatusCode::from_u16(status).unwrap(),
                [("location", pairs["url"].clone())],
            )
                .into_response();
        }
        let headers: serde_json::Map<String, Value> = request
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v.to_str().unwrap())))
            .collect();
        axum::Json(json!({
            "method": request.method().as_str(),
            "path": uri.path(),
            "query": uri.query(),
            "headers": headers,
        }))
        .into_response()
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let received = Received::default();
    let app = Router::new()
        .fallback(any(answer))
        .with_state(received.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), received)
}

/// A client with one credential of every kind a security scheme can send: bearer, basic, and
/// API keys in a header, a cookie and the query.
fn every_scheme(base: &str, redirects: harness_gen_runtime::http::Redirects) -> HttpClient {
    use harness_gen_runtime::binding::ParamIn;
    let key = |location, name: &str| Scheme::ApiKey {
        location,
        name: name.into(),
    };
    ClientBuilder::new(base)
        .scheme("bearer", Scheme::Bearer)
        .scheme("header", key(ParamIn::Header, "X-Zoo-Key"))
        .scheme("cookie", key(ParamIn::Cookie, "zoo_session"))
        .scheme("query", key(ParamIn::Query, "api_key"))
        .credential("bearer", Credential::Token(Secret::new("tok_bearer_1f2e")))
        .credential("header", Credential::ApiKey(Secret::new("key_header_3c4d")))
        .credential("cookie", Credential::ApiKey(Secret::new("key_cookie_5a6b")))
        .credential("query", Credential::ApiKey(Secret::new("key_query_7e8f")))
        .redirects(redirects)
        .max_retries(0)
        .build()
        .unwrap()
}

fn redirected_binding(method: &str, target: &str, status: u16) -> (Binding, Value) {
    let mut b = binding(
        method,
        "/to",
        json!({"parameters": [
            {"property": "url", "in": "query", "name": "url", "required": true,
             "style": "form", "explode": true},
            {"property": "status", "in": "query", "name": "status", "required": true,
             "style": "form", "explode": true}
        ]}),
    );
    b.security = vec![
        vec![
            "bearer".into(),
            "header".into(),
            "cookie".into(),
            "query".into(),
        ]
        .into(),
    ]
    .into();
    (b, json!({"url": target, "status": status.to_string()}))
}

#[tokio::test]
async fn a_redirect_to_another_origin_carries_no_credential_of_any_scheme() {
    use harness_gen_runtime::http::Redirects;
    let ((home, _), (elsewhere, received)) = (redirecting().await, redirecting().await);
    let secrets = [
        "tok_bearer_1f2e",
        "key_header_3c4d",
        "key_cookie_5a6b",
        "key_query_7e8f",
    ];
    for status in [301, 302, 303, 307, 308] {
        let client = every_scheme(&home, Redirects::DEFAULT);
        let (b, input) = redirected_binding("GET", &format!("{elsewhere}/stolen"), status);
        let Reply::Success(seen) = client.send(&b, &input).await.unwrap() else {
            panic!("{status}: not followed")
        };
        assert_eq!(seen["path"], "/stolen", "{status}");
        let text = received.lock().unwrap().join("\n");
        assert!(text.contains("/stolen"), "{text}");
        for secret in secrets {
            assert!(!text.contains(secret), "{status}: {secret} reached {text}");
        }
        // The same origin is trusted with every credential the request carried.
        let (b, input) = redirected_binding("GET", "/same", status);
        let Reply::Success(seen) = client.send(&b, &input).await.unwrap() else {
            panic!("{status}: not followed")
        };
        assert_eq!(seen["path"], "/same", "{status}");
        for header in ["authorization", "x-zoo-key", "cookie"] {
            assert!(
                seen["headers"][header].as_str().unwrap().contains(REDACTED),
                "{status}: {header} did not reach the same origin: {seen}"
            );
        }
    }
    // Refusing to follow: the redirect is the reply, and the other origin is never asked.
    let refusing = every_scheme(
        &home,
        Redirects {
            cross_origin: false,
            ..Redirects::DEFAULT
        },
    );
    let (b, input) = redirected_binding("GET", &format!("{elsewhere}/stolen"), 302);
    let asked = received.lock().unwrap().len();
    let reply = refusing.send(&b, &input).await.unwrap();
    assert_eq!(received.lock().unwrap().len(), asked);
    assert!(
        matches!(&reply, Reply::Status(r) if r.status == 302),
        "{reply:?}"
    );
}

#[tokio::test]
async fn a_post_redirected_with_303_becomes_a_get_and_307_keeps_its_method_and_body() {
    use harness_gen_runtime::http::Redirects;
    let (home, _) = redirecting().await;
    let client = every_scheme(&home, Redirects::DEFAULT);
    let (b, input) = redirected_binding("POST", "/after", 303);
    let Reply::Success(seen) = client.send(&b, &input).await.unwrap() else {
        panic!("not followed")
    };
    assert_eq!(seen["method"], "GET");
    let (b, input) = redirected_binding("POST", "/after", 307);
    let Reply::Success(seen) = client.send(&b, &input).await.unwrap() else {
        panic!("not followed")
    };
    assert_eq!(seen["method"], "POST");
}

/// An operation that needs credentials the client lacks is refused before anything is sent,
/// naming the schemes and the variables `from_env` reads; one that also allows anonymous
/// calls goes out without.
#[tokio::test]
async fn a_call_that_needs_credentials_the_client_lacks_is_refused_before_sending() {
    let (base, seen) = serve().await;
    let bare = ClientBuilder::new(&base)
        .scheme("token", Scheme::Bearer)
        .from_env(
            "HG_TEST_NEVER_SET",
            &[("token", &["HG_TEST_NEVER_SET_API_KEY"])],
        )
        .build()
        .unwrap();
    let mut needs = binding("GET", "/busy", json!({}));
    needs.security = vec![vec!["token".into()].into()].into();
    let refused = bare.send(&needs, &json!({})).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the operation needs credentials and none are configured (scheme token): set HG_TEST_NEVER_SET_API_KEY"
    );
    assert!(matches!(refused, Error::MissingCredentials { .. }));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 0, "nothing was sent");
    // The test binding's security also allows anonymous calls (`[]`).
    let anonymous = bare
        .send(&binding("GET", "/busy", json!({})), &json!({}))
        .await;
    assert!(anonymous.is_ok(), "{anonymous:?}");
    assert!(seen.hits.load(Ordering::SeqCst) > 0);
}

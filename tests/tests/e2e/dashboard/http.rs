//! The dashboard's HTTP rules spoken to directly: its own hosts and sessions, no cross-site
//! calls, credentials mapped from the request only.

use harness_e2e::TOKEN;

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_cross_site_post_is_refused_and_calls_nothing() {
    let Some((_turn, _driver, browser)) = browser().await else {
        return;
    };
    let (server, home) = dashboard().await;
    // The operator's browser has a dashboard session (its cookie)...
    open(&browser, &home, "#tools").await;
    // ...and visits another site's page, which posts to the dashboard (a form needs no CORS).
    let target = format!("{home}/tools/delete_pet");
    let page = format!(
        "<!doctype html><title>elsewhere</title><form method=post action='{target}' enctype='text/plain'><input name='{{\"input\":{{\"pet_id\":1}},\"confirmed\":true,\"x\":\"' value='\"}}'><button id=go>go</button></form>"
    );
    let elsewhere = harness_e2e::listen(axum::Router::new().route(
        "/",
        axum::routing::get(move || async move { axum::response::Html(page) }),
    ))
    .await;
    open(&browser, &elsewhere, "#go")
        .await
        .click()
        .await
        .unwrap();
    // The browser shows the dashboard's answer once it has navigated to it.
    for _ in 0..300 {
        if browser.current_url().await.unwrap().as_str() == target {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(browser.current_url().await.unwrap().as_str(), target);
    let answer = wait_for(&browser, "body").await.text().await.unwrap();
    assert!(answer.contains("forbidden"), "{answer}");
    let calls = open(&browser, &format!("{home}/calls"), "main")
        .await
        .text()
        .await
        .unwrap();
    assert!(calls.contains("No calls yet"), "{calls}");
    browser.close().await.unwrap();
    drop(server);
}

async fn json_of(response: reqwest::Response) -> Value {
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

/// A session as a script gets one: the cookie and the page's token.
async fn session(http: &reqwest::Client, home: &str) -> (String, String) {
    let page = http.get(home).send().await.unwrap();
    let cookie = page.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let token = page_token(&page.text().await.unwrap());
    (cookie, token)
}

/// The call token a dashboard page holds for its session.
pub(crate) fn page_token(html: &str) -> String {
    html.split("name=\"harness-token\" content=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_dashboard_answers_its_own_sessions_on_its_own_hosts_only() {
    let (_server, home) = dashboard().await;
    let http = reqwest::Client::new();
    let (cookie, token) = session(&http, &home).await;
    let call = |tool: &str, headers: Vec<(&'static str, String)>, body: Value| {
        let mut request = http
            .post(format!("{home}/tools/{tool}"))
            .header("content-type", "application/json")
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(name, value);
        }
        request.send()
    };
    let own = || {
        vec![
            ("cookie", cookie.clone()),
            ("x-harness-token", token.clone()),
        ]
    };

    // Its own session calls; the answer is the CLI's envelope.
    let answer = call("get_pet", own(), json!({"input": {"pet_id": 1}}))
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let answer = json_of(answer).await;
    assert_eq!(answer["ok"], true);
    assert_eq!(answer["output"]["name"], "Rex");
    assert_eq!(answer["call"]["id"], 1);
    // A reply that breaks the tool's own output schema is its contract violation.
    let answer = json_of(
        call("get_pet", own(), json!({"input": {"pet_id": 7}}))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(answer["error"]["kind"], "contract_violation", "{answer}");
    assert_eq!(answer["error"]["phase"], "output", "{answer}");

    // Without the token, with another session's, or from another origin: refused.
    let mut without = own();
    without.pop();
    for headers in [
        without,
        vec![("x-harness-token", token.clone())],
        [own(), vec![("origin", "http://evil.example".into())]].concat(),
    ] {
        let answer = call("get_pet", headers, json!({"input": {"pet_id": 1}}))
            .await
            .unwrap();
        assert_eq!(answer.status(), 403);
        let answer = json_of(answer).await;
        assert_eq!(answer["error"]["kind"], "forbidden");
    }
    // A Host the server does not serve (DNS rebinding) is refused for pages too.
    let rebound = http
        .get(&home)
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403);

    // A tool outside the dashboard audience is as absent as an unknown one.
    for tool in ["get_inventory", "no_such_tool"] {
        let page = http
            .get(format!("{home}/tools/{tool}"))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 404, "{tool}");
        let answer = call(tool, own(), json!({"input": {}})).await.unwrap();
        assert_eq!(answer.status(), 404, "{tool}");
        let answer = json_of(answer).await;
        assert_eq!(answer["error"]["kind"], "unknown_tool", "{tool}");
    }
    // Each declared schema on a page of its own, standalone; others are absent.
    let schema = |path: &str| http.get(format!("{home}/tools/{path}")).send();
    let output = schema("get_pet/schemas/output").await.unwrap();
    assert_eq!(output.status(), 200);
    let output = json_of(output).await;
    assert_eq!(output["$ref"], "#/$defs/Pet", "{output}");
    assert!(!output.to_string().contains("#/components/"), "{output}");
    for absent in [
        "get_inventory/schemas/input",
        "delete_pet/schemas/output",
        "get_pet/schemas/other",
    ] {
        assert_eq!(schema(absent).await.unwrap().status(), 404, "{absent}");
    }
    let index = http.get(&home).send().await.unwrap().text().await.unwrap();
    assert!(index.contains("list_pets") && !index.contains("get_inventory"));

    // A destructive tool's call must say it was confirmed.
    let answer = call("delete_pet", own(), json!({"input": {"pet_id": 1}}))
        .await
        .unwrap();
    assert_eq!(answer.status(), 409);
    let answer = json_of(answer).await;
    assert_eq!(answer["error"]["kind"], "confirmation_required");

    // Every page sets the policy: this server's script, styles and requests only.
    let page = http
        .get(format!("{home}/tools/get_pet"))
        .send()
        .await
        .unwrap();
    let policy = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        policy.contains("default-src 'none'") && policy.contains("script-src 'self'"),
        "{policy}"
    );
    assert!(
        !page.text().await.unwrap().contains(TOKEN),
        "credentials never reach a page"
    );

    // Another session sees that a call was made, not what went in or came out.
    let (other, _) = session(&http, &home).await;
    let calls = http
        .get(format!("{home}/calls"))
        .header("cookie", &other)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        calls.contains("get_pet") && calls.contains("another session"),
        "{calls}"
    );
    let details = |cookie: &str| {
        http.get(format!("{home}/calls/1"))
            .header("cookie", cookie.to_owned())
            .send()
    };
    assert_eq!(details(&other).await.unwrap().status(), 404);
    let mine = details(&cookie).await.unwrap();
    assert_eq!(mine.status(), 200);
    let mine = mine.text().await.unwrap();
    assert!(mine.contains("&#34;pet_id&#34;: 1"), "{mine}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dashboard_call_takes_mapped_credentials_from_its_request_only() {
    let base = serve().await;
    // The server's environment holds the token; the mapping says it comes from each request.
    let (_server, mcp) = start_mcp_http_with(
        &base,
        &[
            "--dashboard",
            "--credential-header",
            "bearerAuth=X-Petstore-Token",
        ],
        &[],
    );
    let home = format!("{}/dashboard", mcp.trim_end_matches("/mcp"));
    let http = reqwest::Client::new();
    let (cookie, token) = session(&http, &home).await;
    let call = |credential: Option<&str>| {
        let mut request = http
            .post(format!("{home}/tools/list_pets"))
            .header("cookie", &cookie)
            .header("x-harness-token", &token)
            .header("content-type", "application/json")
            .body(json!({"input": {"limit": 1}}).to_string());
        if let Some(credential) = credential {
            request = request.header("x-petstore-token", credential);
        }
        request.send()
    };
    let refused = call(None).await.unwrap();
    assert_eq!(refused.status(), 401);
    let refused = json_of(refused).await;
    assert_eq!(refused["error"]["kind"], "unauthenticated", "{refused}");
    assert!(
        refused.to_string().contains("x-petstore-token"),
        "{refused}"
    );
    assert!(!refused.to_string().contains(TOKEN));
    let answer = json_of(call(Some(TOKEN)).await.unwrap()).await;
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(
        answer["output"].as_array().map(Vec::len),
        Some(1),
        "{answer}"
    );
}

/// A tool that returns events (the `streams` crate's `watch_ticks`) answers one JSON line per
/// event as it arrives, then the call's answer with every event as its output.
#[tokio::test(flavor = "multi_thread")]
async fn a_tool_that_returns_events_answers_each_as_a_line_as_it_arrives_then_the_call() {
    let (base, _) = harness_e2e::streams::serve().await;
    let (_server, home) =
        tokio::task::spawn_blocking(move || harness_e2e::start_streams_dashboard(&base))
            .await
            .unwrap();
    let http = reqwest::Client::new();
    let (cookie, token) = session(&http, &home).await;
    let mut response = http
        .post(format!("{home}/tools/watch_ticks"))
        .header("cookie", &cookie)
        .header("x-harness-token", &token)
        .header("content-type", "application/json")
        .body(json!({"input": {"every_ms": 300, "count": 3}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    // The first event comes alone, long before the stream ends.
    let first = response.chunk().await.unwrap().unwrap();
    assert_eq!(first.as_ref(), b"{\"event\":{\"seq\":0}}\n");
    let rest = response.text().await.unwrap();
    let lines: Vec<Value> = rest
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        lines[..2],
        [json!({"event": {"seq": 1}}), json!({"event": {"seq": 2}})]
    );
    let answer = &lines[2];
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(
        answer["output"],
        json!([{"seq": 0}, {"seq": 1}, {"seq": 2}])
    );
    assert!(answer["call"]["id"].is_u64(), "{answer}");
}

//! The operator dashboard (`petstore-mcp --http ADDR --dashboard`) in a real headless Chromium
//! (Debian's `chromium` and `chromium-driver`, installed by `.ci/run` / `scripts/test.sh`),
//! driven over WebDriver with fantoccini, backed by the axum pet store on loopback; and its
//! HTTP rules spoken to directly. Screenshots of the main views are written to
//! `target/dashboard-screenshots/`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};
use harness_e2e::{McpHttp, TOKEN, root, serve, start_mcp_http_with};
use serde_json::{Value, json};

/// `petstore-mcp --http --dashboard` against a fresh pet store; returns the process and the
/// dashboard's URL.
async fn dashboard() -> (McpHttp, String) {
    let base = serve().await;
    let (server, mcp) = start_mcp_http_with(&base, &["--dashboard"], &[]);
    let origin = mcp.trim_end_matches("/mcp").to_owned();
    (server, format!("{origin}/dashboard"))
}

/// A ChromeDriver process on a free port in a process group of its own, killed with the
/// browsers it started when dropped (a failing test leaves no Chromium behind), and the
/// browser's profile directory, removed then.
struct Driver(std::process::Child, u16, PathBuf);

impl Drop for Driver {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &group])
            .status();
        let _ = self.0.wait();
        let _ = std::fs::remove_dir_all(&self.2);
    }
}

const HOW: &str = "install Debian's chromium and chromium-driver (`apt-get install chromium chromium-driver`; `.ci/run` does)";

/// One browser at a time: on a 2-core CI machine, several Chromiums beside the other tests make
/// every wait long.
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Starts ChromeDriver and a headless Chromium session with a fresh profile, once the other
/// browser tests are done (the guard is the turn), or `None` (the tests are skipped, saying so)
/// when they are not installed outside CI.
async fn browser() -> Option<(tokio::sync::MutexGuard<'static, ()>, Driver, Client)> {
    let driver = harness_e2e::tools::system_tool(
        "the dashboard's browser tests",
        "/usr/bin/chromedriver",
        HOW,
    )?;
    let chromium =
        harness_e2e::tools::system_tool("the dashboard's browser tests", "/usr/bin/chromium", HOW)?;
    let turn = TURN.lock().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new(driver)
        .arg(format!("--port={port}"))
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let profile = root().join(format!("target/dashboard-profile-{port}"));
    let _ = std::fs::remove_dir_all(&profile);
    let driver = Driver(child, port, profile.clone());
    // Headless as root in a closed network: no sandbox, no background connections.
    let args = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1000",
    ]
    .map(String::from)
    .into_iter()
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect::<Vec<_>>();
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({"binary": chromium, "args": args}),
    );
    let url = format!("http://127.0.0.1:{}", driver.1);
    let mut tries = 0;
    let client = loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(&url)
            .await
        {
            Ok(client) => break client,
            Err(error) if tries < 300 => {
                tries += 1;
                let _ = error;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("ChromeDriver does not start a session: {error}"),
        }
    };
    Some((turn, driver, client))
}

fn screenshots() -> PathBuf {
    let dir = root().join("target/dashboard-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn screenshot(browser: &Client, name: &str) {
    let png = browser.screenshot().await.unwrap();
    std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
}

/// Goes to `url` and waits for the element `css` matches there.
async fn open(browser: &Client, url: &str, css: &str) -> fantoccini::elements::Element {
    browser.goto(url).await.unwrap();
    wait_for(browser, css).await
}

/// Waits (at most 30 s) for the element `css` matches.
async fn wait_for(browser: &Client, css: &str) -> fantoccini::elements::Element {
    browser
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}` appeared: {e}"))
}

/// The outcome the result section shows once a call answered.
async fn outcome(browser: &Client) -> (String, String) {
    let result = wait_for(browser, "#result[data-outcome]").await;
    let kind = result.attr("data-outcome").await.unwrap().unwrap();
    (kind, result.text().await.unwrap())
}

/// Submits the form and returns the text of its outcome, which must be of kind `kind`.
async fn called(browser: &Client, kind: &str) -> String {
    submit(browser).await;
    let (shown, text) = outcome(browser).await;
    assert_eq!(shown, kind, "{text}");
    text
}

/// Clears the result, so the next call's outcome is waited for, not the last one's.
async fn forget_result(browser: &Client) {
    browser
        .execute(
            "const r = document.getElementById('result'); delete r.dataset.outcome; r.hidden = true;",
            vec![],
        )
        .await
        .unwrap();
}

async fn fill(browser: &Client, css: &str, text: &str) {
    let input = browser.find(Locator::Css(css)).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
}

async fn click(browser: &Client, css: &str) {
    let element = browser.find(Locator::Css(css)).await;
    let element = element.unwrap_or_else(|e| panic!("no `{css}`: {e}"));
    element.click().await.unwrap();
}

/// Chooses the option labelled `label` of the select `css` matches.
async fn choose(browser: &Client, css: &str, label: &str) {
    let select = browser.find(Locator::Css(css)).await.unwrap();
    select.select_by_label(label).await.unwrap();
}

async fn submit(browser: &Client) {
    click(browser, "#call-button").await;
}

/// The JSON value the result shows as raw JSON.
async fn raw_output(browser: &Client) -> Value {
    let raw = browser
        .find(Locator::Css("#result .raw pre"))
        .await
        .unwrap();
    serde_json::from_str(&raw.prop("textContent").await.unwrap().unwrap()).unwrap()
}

/// Switches the form to its JSON editor and returns the JSON it starts from.
async fn json_mode(browser: &Client) -> Value {
    click(browser, "input[name='mode'][value='json']").await;
    let editor = wait_for(browser, "#input-json").await;
    serde_json::from_str(&editor.prop("value").await.unwrap().unwrap()).unwrap()
}

/// Every form control of the page that is shown has a label.
async fn unlabelled(browser: &Client) -> Vec<String> {
    let found = browser
        .execute(
            "return Array.from(document.querySelectorAll('input, select, textarea'))
               .filter((e) => e.type !== 'hidden' && !(e.labels && e.labels.length) && !e.closest('[hidden]'))
               .map((e) => e.id || e.name || e.outerHTML);",
            vec![],
        )
        .await
        .unwrap();
    serde_json::from_value(found).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_operator_finds_a_tool_fills_its_form_and_reads_each_kind_of_outcome() {
    let Some((_turn, _driver, browser)) = browser().await else {
        return;
    };
    let (server, home) = dashboard().await;

    index_lists_the_tools_and_the_filter_finds_one(&browser, &home).await;
    a_form_from_the_schema_refuses_then_calls(&browser, &home).await;
    errors_and_objects_render_by_kind(&browser, &home).await;
    a_nested_object_is_a_fieldset(&browser, &home).await;
    a_destructive_tool_asks_first(&browser, &home).await;
    recent_calls_and_the_bundle(&browser, &home).await;
    phone_width_and_a_runtime_failure(&browser, &home).await;
    browser.close().await.unwrap();
    drop(server);
}

/// The index lists the dashboard-audience tools only; the filter finds one.
async fn index_lists_the_tools_and_the_filter_finds_one(browser: &Client, home: &str) {
    // The index lists the dashboard-audience tools only; the filter finds one.
    open(browser, home, "#tools").await;
    let tools: Vec<String> = serde_json::from_value(
        browser
            .execute(
                "return Array.from(document.querySelectorAll('[data-tool]')).map((e) => e.dataset.tool);",
                vec![],
            )
            .await
            .unwrap(),
    )
    .unwrap();
    assert!(tools.contains(&"list_pets".to_owned()), "{tools:?}");
    assert!(tools.contains(&"delete_pet".to_owned()), "{tools:?}");
    assert!(!tools.contains(&"get_inventory".to_owned()), "{tools:?}");
    assert_eq!(unlabelled(browser).await, Vec::<String>::new());
    screenshot(browser, "index").await;
    fill(browser, "#tool-filter", "name").await;
    let shown = browser
        .find(Locator::Css("[data-tool='get_pet_name']"))
        .await
        .unwrap();
    assert!(shown.is_displayed().await.unwrap());
    let hidden = browser
        .find(Locator::Css("[data-tool='list_pets']"))
        .await
        .unwrap();
    assert!(!hidden.is_displayed().await.unwrap());
    click(browser, "[data-tool='get_pet_name'] a").await;
    wait_for(browser, "#fields input").await;
    assert!(
        browser
            .current_url()
            .await
            .unwrap()
            .path()
            .ends_with("/tools/get_pet_name")
    );
}

/// A form from the input schema refuses what the schema refuses, then calls; an array of objects is a table.
async fn a_form_from_the_schema_refuses_then_calls(browser: &Client, home: &str) {
    // A form from the input schema: a number with its bounds and default, a multiple choice
    // of an enum; the result, an array of objects, as a table.
    let limit = open(
        browser,
        &format!("{home}/tools/list_pets"),
        "input[name='/limit']",
    )
    .await;
    assert_eq!(limit.prop("value").await.unwrap().as_deref(), Some("20"));
    assert_eq!(limit.attr("min").await.unwrap().as_deref(), Some("1"));
    assert_eq!(limit.attr("max").await.unwrap().as_deref(), Some("100"));
    assert_eq!(unlabelled(browser).await, Vec::<String>::new());
    // A value the schema refuses is refused before any call.
    fill(browser, "input[name='/limit']", "0").await;
    submit(browser).await;
    let error = wait_for(browser, "[data-pointer='/limit'] .error:not([hidden])").await;
    assert_eq!(error.text().await.unwrap(), "At least 1.");
    assert_eq!(
        limit.attr("aria-invalid").await.unwrap().as_deref(),
        Some("true")
    );
    assert!(
        !browser
            .find(Locator::Css("#result"))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap()
    );
    fill(browser, "input[name='/limit']", "3").await;
    // species: one item, a choice of the enum.
    click(browser, "[data-pointer='/species'] > button").await;
    wait_for(browser, "select[name='/species/0']").await;
    choose(browser, "select[name='/species/0']", "dog").await;
    let text = called(browser, "ok").await;
    let rows = browser
        .find_all(Locator::Css("#result table.output tbody tr"))
        .await
        .unwrap();
    assert_eq!(rows.len(), 1, "{text}");
    assert!(text.contains("Rex"), "{text}");
    screenshot(browser, "tool-table-result").await;
}

/// A declared error, an object output and invalid input, each rendered as what it is.
async fn errors_and_objects_render_by_kind(browser: &Client, home: &str) {
    // A declared error renders as such, with its typed data.
    open(
        browser,
        &format!("{home}/tools/get_pet"),
        "input[name='/pet_id']",
    )
    .await;
    fill(browser, "input[name='/pet_id']", "3").await;
    let text = called(browser, "application").await;
    assert!(text.contains("declared error"), "{text}");
    assert!(text.contains("no such pet"), "{text}");
    screenshot(browser, "tool-declared-error").await;
    // An object output as a tree.
    forget_result(browser).await;
    fill(browser, "input[name='/pet_id']", "1").await;
    let text = called(browser, "ok").await;
    assert!(
        browser
            .find(Locator::Css("#result ul.tree details"))
            .await
            .is_ok()
    );
    assert!(text.contains("\"Rex\""), "{text}");
    screenshot(browser, "tool-tree-result").await;

    // Invalid input, written as JSON past the form's checks, is the server's invalid_input
    // with its pointer.
    forget_result(browser).await;
    assert_eq!(
        json_mode(browser).await,
        json!({"pet_id": 1}),
        "the JSON editor starts from the form's input"
    );
    fill(browser, "#input-json", r#"{"pet_id": "three"}"#).await;
    let text = called(browser, "invalid_input").await;
    assert!(text.contains("/pet_id fails type"), "{text}");
    screenshot(browser, "tool-invalid-input").await;
}

/// A nested object (the request body) as a fieldset of its properties.
async fn a_nested_object_is_a_fieldset(browser: &Client, home: &str) {
    // A nested object (the request body) as a fieldset of its properties, an enum among them.
    open(
        browser,
        &format!("{home}/tools/pets.create"),
        "fieldset[data-pointer='/body']",
    )
    .await;
    fill(browser, "input[name='/body/name']", "Whiskers").await;
    choose(browser, "select[name='/body/species']", "cat").await;
    assert_eq!(unlabelled(browser).await, Vec::<String>::new());
    let text = called(browser, "ok").await;
    assert!(text.contains("\"Whiskers\""), "{text}");
    screenshot(browser, "tool-nested-form").await;
}

/// A destructive tool asks first: cancelled, nothing is called; confirmed, it is.
async fn a_destructive_tool_asks_first(browser: &Client, home: &str) {
    // A destructive tool asks first: cancelled, nothing is called; confirmed, it is.
    open(
        browser,
        &format!("{home}/tools/delete_pet"),
        "input[name='/pet_id']",
    )
    .await;
    fill(browser, "input[name='/pet_id']", "2").await;
    submit(browser).await;
    let dialog = wait_for(browser, "dialog#confirm[open]").await;
    assert!(dialog.text().await.unwrap().contains("may destroy"));
    screenshot(browser, "tool-destructive-confirmation").await;
    click(browser, "#confirm-cancel").await;
    assert!(
        browser
            .find(Locator::Css("dialog#confirm[open]"))
            .await
            .is_err()
    );
    assert!(
        !browser
            .find(Locator::Css("#result"))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap()
    );
    submit(browser).await;
    wait_for(browser, "dialog#confirm[open]").await;
    click(browser, "#confirm-yes").await;
    let (kind, text) = outcome(browser).await;
    assert_eq!(kind, "ok", "{text}");
}

/// Recent calls with their outcomes, then the embedded bundle's roles.
async fn recent_calls_and_the_bundle(browser: &Client, home: &str) {
    // Recent calls: each with its outcome; this session sees its inputs.
    let table = open(browser, &format!("{home}/calls"), "#calls")
        .await
        .text()
        .await
        .unwrap();
    for expected in [
        "list_pets",
        "get_pet",
        "delete_pet",
        "application",
        "invalid_input",
    ] {
        assert!(table.contains(expected), "{expected}: {table}");
    }
    assert!(!table.contains(TOKEN));
    screenshot(browser, "recent-calls").await;
    click(
        browser,
        "#calls tbody tr:first-child a[href^='/dashboard/calls/']",
    )
    .await;
    let details = wait_for(browser, "main pre").await;
    assert!(details.text().await.unwrap().contains("\"pet_id\": 2"));
    screenshot(browser, "call-details").await;

    // The embedded bundle: each role's agent surface and its realizations.
    let page = open(browser, &format!("{home}/harness"), "main")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("pet-store"), "{page}");
    assert!(page.contains("hr_"), "{page}");
    assert!(page.contains("clerk") && page.contains("keeper"), "{page}");
    assert!(
        page.contains("list_pets") && page.contains("pets.create"),
        "{page}"
    );
    screenshot(browser, "harness").await;
}

/// Phone width, then a runtime failure shown by its category only.
async fn phone_width_and_a_runtime_failure(browser: &Client, home: &str) {
    // Phone width: one column, nothing wider than the screen.
    browser.set_window_size(390, 844).await.unwrap();
    open(browser, &format!("{home}/tools/list_pets"), "#fields input").await;
    let overflow = browser
        .execute(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(overflow, json!(0));
    screenshot(browser, "tool-phone").await;

    // A runtime failure (here the API cannot be reached) is shown by its category only.
    browser.set_window_size(1280, 1000).await.unwrap();
    let (unreachable, elsewhere) = unreachable_dashboard();
    open(
        browser,
        &format!("{elsewhere}/tools/get_pet"),
        "input[name='/pet_id']",
    )
    .await;
    fill(browser, "input[name='/pet_id']", "1").await;
    let text = called(browser, "runtime").await;
    assert!(text.contains("Category: transport"), "{text}");
    screenshot(browser, "tool-runtime-error").await;
    drop(unreachable);
}

/// A dashboard whose API is a closed port on loopback.
fn unreachable_dashboard() -> (McpHttp, String) {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (server, mcp) = start_mcp_http_with(&base, &["--dashboard"], &[]);
    (
        server,
        format!("{}/dashboard", mcp.trim_end_matches("/mcp")),
    )
}

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
pub(super) fn page_token(html: &str) -> String {
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

/// A tool whose input schema uses what forms are made of; its handler answers with its input.
fn echo_registry() -> harness_gen_runtime::ToolRegistry {
    let doc = json!({
        "schema_version": "harn-tools/2.0",
        "tools": [{
            "name": "echo",
            "title": "Echo",
            "description": "<p>Answers with its input; see [the docs](https://example.com/docs), `echo` and [no link](javascript:alert(1)).</p><p>HTML as Stripe writes it: <a href=\"https://example.com/more\">more</a>.</p>",
            "inputSchema": {
                "type": "object",
                "required": ["name", "when", "size", "kind", "enabled", "owner"],
                "properties": {
                    "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$", "description": "Lower-case letters."},
                    "when": {"type": "string", "format": "date"},
                    "size": {"type": "integer", "minimum": 1, "maximum": 9},
                    "ratio": {"type": "number", "exclusiveMaximum": 1},
                    "kind": {"$ref": "#/components/schemas/Kind"},
                    "enabled": {"type": "boolean"},
                    "verbose": {"type": "boolean"},
                    "title": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                    "count": {"type": ["integer", "null"], "default": 3},
                    "owner": {"allOf": [{"$ref": "#/components/schemas/Person"}], "description": "Who owns it."},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                    "extra": {"type": "object", "additionalProperties": true},
                    "either": {"oneOf": [{"$ref": "#/components/schemas/Person"}, {"type": "string"}]},
                    "limit": {"anyOf": [
                        {"type": "object", "properties": {"max": {"type": "integer"}}},
                        {"type": "string", "enum": [""]}
                    ]}
                }
            },
            "governance": {"audiences": ["dashboard"]},
            "cli": {"command": ["echo"], "hidden": false},
            "deferLoading": false
        }],
        "components": {"schemas": {
            "Kind": {"type": "string", "enum": ["small", "large"]},
            "Person": {
                "type": "object",
                "required": ["login"],
                "properties": {
                    "login": {"type": "string"},
                    "email": {"type": "string", "format": "email"},
                    "age": {"type": "integer", "minimum": 0}
                }
            }
        }}
    });
    let catalog = harness_gen_runtime::Catalog::from_value(doc).unwrap();
    let handlers = [(
        "echo".to_owned(),
        harness_gen_runtime::Handler::new(|input| async move { Ok(input) }),
    )]
    .into_iter()
    .collect();
    harness_gen_runtime::ToolRegistry::publish(catalog, handlers).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_form_builds_exactly_the_input_its_schema_describes_and_checks_it_first() {
    let Some((_turn, _driver, browser)) = browser().await else {
        return;
    };
    let dashboard = harness_gen_runtime::dashboard::Dashboard::new(
        &echo_registry(),
        "echo-mcp",
        "1.0.0",
        None,
        harness_gen_runtime::mcp::Access::new(&[], &[]),
    )
    .unwrap();
    let home = format!(
        "{}/dashboard",
        harness_e2e::listen(std::sync::Arc::new(dashboard).router()).await
    );
    descriptions_and_defaults(&browser, &home).await;
    every_check_before_calling(&browser).await;
    let echoed = filled_in_right(&browser).await;
    the_json_editor_and_the_form_agree(&browser, echoed).await;
    browser.close().await.unwrap();
}

/// The tool's page: its description's Markdown (links to the web and code only), its fields
/// with their defaults and input types.
async fn descriptions_and_defaults(browser: &Client, home: &str) {
    open(
        browser,
        &format!("{home}/tools/echo"),
        "input[name='/name']",
    )
    .await;
    assert_eq!(unlabelled(browser).await, Vec::<String>::new());
    // Markdown in descriptions: links to the web and code, nothing else as markup.
    let link = browser
        .find(Locator::Css(
            ".description a[href='https://example.com/docs']",
        ))
        .await
        .unwrap();
    assert_eq!(link.text().await.unwrap(), "the docs");
    assert!(
        browser
            .find(Locator::Css(".description code"))
            .await
            .is_ok()
    );
    let description = browser.find(Locator::Css(".description")).await.unwrap();
    let description = description.text().await.unwrap();
    assert!(
        description.contains("[no link](javascript:alert(1))"),
        "{description}"
    );
    assert!(!description.contains("<p>"), "{description}");
    let more = browser
        .find(Locator::Css(
            ".description a[href='https://example.com/more']",
        ))
        .await;
    assert!(more.is_ok());
    let count = browser
        .find(Locator::Css("input[name='/count']"))
        .await
        .unwrap();
    assert_eq!(
        count.prop("value").await.unwrap().as_deref(),
        Some("3"),
        "defaults are filled in"
    );
    assert_eq!(
        browser
            .find(Locator::Css("input[name='/when']"))
            .await
            .unwrap()
            .attr("type")
            .await
            .unwrap()
            .as_deref(),
        Some("date")
    );
}

/// Each check the schema makes, made before calling, on its field.
async fn every_check_before_calling(browser: &Client) {
    // Each check the schema makes is made before calling, on its field.
    fill(browser, "input[name='/name']", "X1").await;
    fill(browser, "input[name='/size']", "12").await;
    fill(browser, "input[name='/ratio']", "1").await;
    fill(browser, "input[name='/owner/email']", "nobody").await;
    submit(browser).await;
    let mut problems = Vec::new();
    for pointer in [
        "/name",
        "/when",
        "/size",
        "/ratio",
        "/kind",
        "/owner/login",
        "/owner/email",
    ] {
        let error = browser
            .find(Locator::Css(&format!(
                "[data-pointer='{pointer}'] > .error"
            )))
            .await
            .unwrap();
        problems.push((pointer, error.text().await.unwrap()));
    }
    assert_eq!(
        problems,
        [
            ("/name", "Does not match the pattern ^[a-z]+$.".to_owned()),
            ("/when", "Required.".to_owned()),
            ("/size", "At most 9.".to_owned()),
            ("/ratio", "Less than 1.".to_owned()),
            ("/kind", "Required.".to_owned()),
            ("/owner/login", "Required.".to_owned()),
            ("/owner/email", "Not a valid email.".to_owned()),
        ]
    );
    assert!(
        !browser
            .find(Locator::Css("#result"))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap()
    );
    screenshot(browser, "form-checks").await;
}

/// Filled in right, the input is exactly what the fields say (absent ones left out); what the
/// tool echoed.
async fn filled_in_right(browser: &Client) -> Value {
    // Filled in right, the input is exactly what the fields say (absent ones left out).
    fill(browser, "input[name='/name']", "box").await;
    browser
        .execute(
            "const d = document.querySelector(\"input[name='/when']\"); d.value = '2026-12-03';",
            vec![],
        )
        .await
        .unwrap();
    fill(browser, "input[name='/size']", "4").await;
    fill(browser, "input[name='/ratio']", "0.5").await;
    choose(browser, "select[name='/kind']", "large").await;
    click(browser, "input[name='/enabled']").await;
    choose(browser, "select[name='/verbose']", "false").await;
    fill(browser, "input[name='/title']", "42").await;
    fill(browser, "input[name='/owner/login']", "ada").await;
    fill(browser, "input[name='/owner/email']", "ada@example.com").await;
    for tag in ["red", "blue"] {
        click(browser, "[data-pointer='/tags'] > button").await;
        let index = if tag == "red" { 0 } else { 1 };
        fill(browser, &format!("input[name='/tags/{index}']"), tag).await;
    }
    fill(browser, "textarea[name='/extra']", r#"{"a": [1, 2]}"#).await;
    // A union of an object and a string: a choice of the two, then the chosen one's field.
    choose(browser, "select[name='/either#kind']", "string").await;
    fill(browser, "input[name='/either']", "plain").await;
    called(browser, "ok").await;
    let echoed = raw_output(browser).await;
    assert_eq!(
        echoed,
        json!({
            "name": "box", "when": "2026-12-03", "size": 4, "ratio": 0.5, "kind": "large",
            "enabled": true, "verbose": false, "title": "42", "count": 3,
            "owner": {"login": "ada", "email": "ada@example.com"},
            "tags": ["red", "blue"], "extra": {"a": [1, 2]}, "either": "plain"
        })
    );
    screenshot(browser, "form-echo").await;
    echoed
}

/// The JSON editor starts from the form's input, and the form takes back what was edited.
async fn the_json_editor_and_the_form_agree(browser: &Client, echoed: Value) {
    // The JSON editor starts from the form's input, and the form takes back what was edited.
    forget_result(browser).await;
    assert_eq!(json_mode(browser).await, echoed);
    let mut edited = echoed.clone();
    edited["size"] = json!(7);
    edited["tags"] = json!(["green"]);
    edited["limit"] = json!({"max": 5});
    fill(browser, "#input-json", &edited.to_string()).await;
    click(browser, "input[name='mode'][value='form']").await;
    let size = browser
        .find(Locator::Css("input[name='/size']"))
        .await
        .unwrap();
    assert_eq!(size.prop("value").await.unwrap().as_deref(), Some("7"));
    // A value of a union is shown in the branch it fits.
    let kind = browser
        .find(Locator::Css("select[name='/limit#kind']"))
        .await
        .unwrap();
    assert_eq!(kind.prop("value").await.unwrap().as_deref(), Some("0"));
    let max = browser
        .find(Locator::Css("input[name='/limit/max']"))
        .await
        .unwrap();
    assert_eq!(max.prop("value").await.unwrap().as_deref(), Some("5"));
    submit(browser).await;
    outcome(browser).await;
    let echoed = raw_output(browser).await;
    assert_eq!(echoed, edited);
}

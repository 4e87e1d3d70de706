//! The operator dashboard (`petstore-mcp --http ADDR --dashboard`) in a real headless Chromium
//! (Debian's `chromium` and `chromium-driver`, installed by `.ci/run` / `scripts/test.sh`),
//! driven over WebDriver with fantoccini, backed by the axum pet store on loopback; and its
//! HTTP rules spoken to directly. Screenshots of the main views are written to
//! `target/dashboard-screenshots/`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};
use harness_e2e::{McpHttp, TOKEN, root, serve, start_mcp_http_with};
use serde_json::{Value, json};

mod forms;
mod http;

pub(super) use http::page_token;

/// `petstore-mcp --http --dashboard` against a fresh pet store; returns the process and the
/// dashboard's URL.
async fn dashboard() -> (McpHttp, String) {
    let base = serve().await;
    let (server, mcp) = start_mcp_http_with(&base, &["--dashboard"], &[]);
    let origin = mcp.trim_end_matches("/mcp").to_owned();
    (server, format!("{origin}/dashboard"))
}

/// A tool that returns events (the `streams` crate's `watch_ticks`): the page shows each event
/// as it arrives, then the call's outcome with all of them.
#[tokio::test(flavor = "multi_thread")]
async fn an_operator_watches_a_tools_events_arrive_live() {
    let Some((_turn, _driver, browser)) = browser().await else {
        return;
    };
    let (base, _) = harness_e2e::streams::serve().await;
    let (server, home) =
        tokio::task::spawn_blocking(move || harness_e2e::start_streams_dashboard(&base))
            .await
            .unwrap();
    open(
        &browser,
        &format!("{home}/tools/watch_ticks"),
        "input[name='/every_ms']",
    )
    .await;
    fill(&browser, "input[name='/every_ms']", "700").await;
    fill(&browser, "input[name='/count']", "4").await;
    submit(&browser).await;
    // The first event is on the page while the stream still runs.
    wait_for(&browser, "#events li").await;
    let result = browser.find(Locator::Css("#result")).await.unwrap();
    assert_eq!(
        result.attr("data-outcome").await.unwrap().as_deref(),
        Some("streaming")
    );
    let shown = browser
        .find(Locator::Css("#events li"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(shown, r#"{"seq":0}"#);
    screenshot(&browser, "events-live").await;
    let text = loop {
        let (kind, text) = outcome(&browser).await;
        if kind != "streaming" {
            assert_eq!(kind, "ok", "{text}");
            break text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        raw_output(&browser).await,
        json!([{"seq": 0}, {"seq": 1}, {"seq": 2}, {"seq": 3}]),
        "{text}"
    );
    browser.close().await.unwrap();
    drop(server);
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
    // A driver that does not answer (its port taken between our choice and its bind, a start
    // slowed by a loaded machine) is replaced by a fresh one on another port, twice at most.
    let mut failures = Vec::new();
    for _ in 0..3 {
        match session(&driver, &chromium).await {
            Ok((driver, client)) => return Some((turn, driver, client)),
            Err(why) => failures.push(why),
        }
    }
    panic!("ChromeDriver does not start a session: {failures:#?}");
}

/// One ChromeDriver on a free port and a headless Chromium session through it, or why not
/// (with the end of what the driver printed).
async fn session(driver: &Path, chromium: &Path) -> Result<(Driver, Client), String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = root().join(format!("target/chromedriver-{port}.log"));
    let child = std::process::Command::new(driver)
        .arg(format!("--port={port}"))
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let profile = root().join(format!("target/dashboard-profile-{port}"));
    let _ = std::fs::remove_dir_all(&profile);
    let mut driver = Driver(child, port, profile.clone());
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
    let said = |why: String| {
        let printed = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: String = printed
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .join(" | ");
        format!("{why}; the driver printed: {tail}")
    };
    for _ in 0..300 {
        if let Ok(Some(status)) = driver.0.try_wait() {
            return Err(said(format!("ChromeDriver exited ({status})")));
        }
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(&url)
            .await
        {
            Ok(client) => return Ok((driver, client)),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    Err(said("no answer within 30 s".into()))
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

    // A status the operation does not declare: a runtime failure saying what the API answered.
    open(
        browser,
        &format!("{home}/tools/get_pet_name"),
        "input[name='/pet_id']",
    )
    .await;
    fill(browser, "input[name='/pet_id']", "2").await;
    let text = called(browser, "runtime").await;
    assert!(text.contains("http_status"), "{text}");
    assert!(text.contains("The API answered: HTTP 404"), "{text}");
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

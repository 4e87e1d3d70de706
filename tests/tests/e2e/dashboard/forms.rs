//! Forms built from input schemas, in the browser: descriptions, defaults, every check before
//! calling, and the JSON editor agreeing with the form.

use super::*;

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

use super::*;

fn error(status: &str) -> ErrorBinding {
    ErrorBinding {
        status: StatusKey::parse(status).unwrap(),
        content_type: "application/json".into(),
    }
}

#[test]
fn exact_codes_beat_ranges_beat_default() {
    let binding = Binding {
        method: Method::Get,
        path: "/".into(),
        parameters: List::default(),
        body: None,
        response: None,
        errors: vec![error("default"), error("4XX"), error("404")].into(),
        ..Binding::EMPTY
    };
    assert_eq!(binding.error_for(404).unwrap().kind(), "http_404");
    assert_eq!(binding.error_for(409).unwrap().kind(), "http_4XX");
    assert_eq!(binding.error_for(500).unwrap().kind(), "http_default");
}

#[test]
fn status_keys_are_codes_ranges_or_default_and_round_trip() {
    for key in ["100", "200", "404", "599", "2XX", "5XX", "default"] {
        let parsed = StatusKey::parse(key).unwrap();
        assert_eq!(parsed.to_string(), key);
        let json = serde_json::to_value(parsed).unwrap();
        assert_eq!(serde_json::from_value::<StatusKey>(json).unwrap(), parsed);
    }
    for bad in [
        "600", "099", "2xx", "6XX", "20", "2000", "Default", "", "2X",
    ] {
        assert_eq!(StatusKey::parse(bad), None, "{bad}");
    }
}

#[test]
fn a_binding_from_json_refuses_unknown_methods_styles_and_fields() {
    let good = serde_json::json!({
        "method": "GET", "path": "/p/{id}",
        "parameters": [{"property": "id", "in": "path", "name": "id", "style": "label",
                        "explode": false, "required": true}],
        "response": {"status": "2XX", "contentType": "application/json", "encoding": "json"},
        "security": [[]]
    });
    let binding: Binding = serde_json::from_value(good.clone()).unwrap();
    assert_eq!(binding.parameters[0].style, Style::Label);
    assert_eq!(serde_json::to_value(&binding).unwrap(), good);
    for (pointer, bad) in [
        ("/method", serde_json::json!("get")),
        ("/parameters/0/style", serde_json::json!("comma")),
        ("/response/status", serde_json::json!("2xx")),
        ("/parameters/0/extra", serde_json::json!(1)),
    ] {
        let mut value = good.clone();
        match value.pointer_mut(pointer) {
            Some(slot) => *slot = bad,
            None => {
                value["parameters"][0]["extra"] = bad;
            }
        }
        assert!(
            serde_json::from_value::<Binding>(value).is_err(),
            "{pointer}"
        );
    }
}

#[test]
fn methods_know_safety_and_idempotence() {
    assert!(Method::Get.is_safe() && Method::Query.is_safe());
    assert!(Method::Put.is_idempotent() && Method::Delete.is_idempotent());
    assert!(!Method::Post.is_idempotent() && !Method::Patch.is_idempotent());
    for method in Method::ALL {
        assert_eq!(method.path_item_key().to_ascii_uppercase(), method.as_str());
    }
}

#[test]
fn each_location_defaults_to_the_style_openapi_assumes_there() {
    for location in [
        ParamIn::Path,
        ParamIn::Query,
        ParamIn::Header,
        ParamIn::Cookie,
    ] {
        let defaults = ParamBinding::defaults(location);
        assert_eq!(defaults.location, location);
        assert_eq!(defaults.style, location.default_style());
        assert_eq!(defaults.explode, defaults.style == Style::Form);
        assert_eq!(defaults.required, location == ParamIn::Path);
    }
}

#[test]
fn styles_are_allowed_where_openapi_allows_them() {
    assert!(Style::Matrix.allowed_in(ParamIn::Path));
    assert!(!Style::DeepObject.allowed_in(ParamIn::Path));
    assert!(Style::DeepObject.allowed_in(ParamIn::Query));
    assert_eq!(ParamIn::Cookie.default_style(), Style::Form);
}

#[test]
fn media_types_map_to_encodings() {
    assert_eq!(
        Encoding::of("application/json; charset=utf-8"),
        Encoding::Json
    );
    assert_eq!(Encoding::of("application/vnd.api+json"), Encoding::Json);
    assert_eq!(Encoding::of("text/csv"), Encoding::Text);
    assert_eq!(Encoding::of("image/png"), Encoding::Bytes);
}

#[test]
fn the_compact_text_leaves_out_only_defaults_and_reads_back_whole() {
    let whole = serde_json::json!({
        "method": "POST", "path": "/p/{id}/{q}",
        "parameters": [
            {"property": "id", "in": "path", "name": "id", "style": "simple", "explode": false, "required": true},
            {"property": "q", "in": "path", "name": "Q", "style": "label", "explode": true, "required": true},
            {"property": "page", "in": "query", "name": "page", "style": "form", "explode": true, "required": false},
            {"property": "tags", "in": "query", "name": "tags", "style": "form", "explode": false, "required": true},
            {"property": "filter", "in": "query", "name": "filter", "style": "deepObject", "explode": true, "required": false},
            {"property": "trace", "in": "header", "name": "X-Trace", "style": "simple", "explode": false, "required": false},
            {"property": "session", "in": "cookie", "name": "session", "style": "form", "explode": true, "required": false}
        ],
        "body": {"property": "body", "contentType": "application/x-www-form-urlencoded", "encoding": "form", "required": true},
        "response": {"status": "200", "contentType": "application/json", "encoding": "json"},
        "errors": [
            {"status": "404", "contentType": "application/json"},
            {"status": "default", "contentType": "application/problem+json"}
        ],
        "security": []
    });
    let binding: Binding = serde_json::from_value(whole.clone()).unwrap();
    let compact = BindingText::compact(&binding);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&compact).unwrap(),
        serde_json::json!({
            "method": "POST", "path": "/p/{id}/{q}",
            "parameters": [
                {"property": "id", "in": "path"},
                {"property": "q", "in": "path", "name": "Q", "style": "label", "explode": true},
                {"property": "page", "in": "query"},
                {"property": "tags", "in": "query", "explode": false, "required": true},
                {"property": "filter", "in": "query", "style": "deepObject", "explode": true},
                {"property": "trace", "in": "header", "name": "X-Trace"},
                {"property": "session", "in": "cookie"}
            ],
            "body": {"property": "body", "contentType": "application/x-www-form-urlencoded", "encoding": "form", "required": true},
            "response": {"status": "200"},
            "errors": [{"status": "404"}, {"status": "default", "contentType": "application/problem+json"}]
        })
    );
    // `deepObject` explodes by default only as `form` does: its explode is written.
    let text: &'static str = Box::leak(compact.into_boxed_str());
    let read = BindingText::new(text);
    assert_eq!(*read, binding);
    assert_eq!(serde_json::to_value(&*read).unwrap(), whole);
    // The whole text reads as it always did.
    let whole_text: &'static str = Box::leak(whole.to_string().into_boxed_str());
    assert_eq!(*BindingText::new(whole_text), binding);
}

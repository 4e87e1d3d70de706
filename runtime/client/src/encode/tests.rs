use super::*;
use serde_json::json;

fn param(name: &'static str, style: &str, explode: bool) -> ParamBinding {
    ParamBinding {
        property: name.into(),
        location: crate::binding::ParamIn::Query,
        name: name.into(),
        style: Style::of(style).unwrap(),
        explode,
        required: false,
        allow_reserved: false,
        content_type: None,
    }
}

/// The specification's style-table values: `color` as a string, an array and an object.
fn blue() -> Value {
    json!("blue")
}
fn colors() -> Value {
    json!(["blue", "black", "brown"])
}
fn rgb() -> Value {
    json!({"R": 100, "G": 200, "B": 150})
}

/// `path_value` for `color` in each of the three shapes.
fn path_row(style: &str, explode: bool) -> [String; 3] {
    let mut p = param("color", style, explode);
    p.location = crate::binding::ParamIn::Path;
    [blue(), colors(), rgb()].map(|v| path_value(&p, &v).unwrap())
}

fn query_row(style: &str, explode: bool, value: Value) -> String {
    query_pieces(&param("color", style, explode), &value, DeepArrays::Indexed).join("&")
}

#[test]
fn path_values_cannot_change_the_path() {
    let p = param("id", "simple", false);
    assert_eq!(path_value(&p, &json!("a/b?c#d")).unwrap(), "a%2Fb%3Fc%23d");
    assert_eq!(path_value(&p, &json!("x.y")).unwrap(), "x.y");
    assert!(path_value(&p, &json!("..")).is_err());
    assert!(path_value(&p, &json!(".")).is_err());
    assert_eq!(path_value(&p, &json!([1, 2])).unwrap(), "1,2");
}

#[test]
fn path_simple_style_follows_the_specification_table() {
    assert_eq!(
        path_row("simple", false),
        ["blue", "blue,black,brown", "R,100,G,200,B,150"]
    );
    assert_eq!(
        path_row("simple", true),
        ["blue", "blue,black,brown", "R=100,G=200,B=150"]
    );
}

#[test]
fn path_label_style_follows_the_specification_table() {
    assert_eq!(
        path_row("label", false),
        [".blue", ".blue,black,brown", ".R,100,G,200,B,150"]
    );
    assert_eq!(
        path_row("label", true),
        [".blue", ".blue.black.brown", ".R=100.G=200.B=150"]
    );
    assert_eq!(
        path_value(&param("color", "label", false), &json!("")).unwrap(),
        "."
    );
}

#[test]
fn path_matrix_style_follows_the_specification_table() {
    assert_eq!(
        path_row("matrix", false),
        [
            ";color=blue",
            ";color=blue,black,brown",
            ";color=R,100,G,200,B,150"
        ]
    );
    assert_eq!(
        path_row("matrix", true),
        [
            ";color=blue",
            ";color=blue;color=black;color=brown",
            ";R=100;G=200;B=150"
        ]
    );
    assert_eq!(
        path_value(&param("color", "matrix", false), &json!("")).unwrap(),
        ";color"
    );
}

#[test]
fn query_form_style_follows_the_specification_table() {
    assert_eq!(query_row("form", false, blue()), "color=blue");
    assert_eq!(query_row("form", false, colors()), "color=blue,black,brown");
    assert_eq!(query_row("form", false, rgb()), "color=R,100,G,200,B,150");
    assert_eq!(query_row("form", true, blue()), "color=blue");
    assert_eq!(
        query_row("form", true, colors()),
        "color=blue&color=black&color=brown"
    );
    assert_eq!(query_row("form", true, rgb()), "R=100&G=200&B=150");
    assert_eq!(query_row("form", true, json!("")), "color=");
    assert_eq!(query_row("form", true, json!("a&b=c")), "color=a%26b%3Dc");
    // RFC 6570: null is undefined, so the parameter is left out.
    assert_eq!(query_row("form", true, Value::Null), "");
}

#[test]
fn query_space_delimited_style_follows_the_specification_table() {
    assert_eq!(
        query_row("spaceDelimited", false, colors()),
        "color=blue%20black%20brown"
    );
    assert_eq!(
        query_row("spaceDelimited", false, rgb()),
        "color=R%20100%20G%20200%20B%20150"
    );
    assert_eq!(
        query_row("spaceDelimited", true, colors()),
        "color=blue&color=black&color=brown"
    );
}

#[test]
fn query_pipe_delimited_style_follows_the_specification_table() {
    assert_eq!(
        query_row("pipeDelimited", false, colors()),
        "color=blue%7Cblack%7Cbrown"
    );
    assert_eq!(
        query_row("pipeDelimited", false, rgb()),
        "color=R%7C100%7CG%7C200%7CB%7C150"
    );
    assert_eq!(
        query_row("pipeDelimited", true, colors()),
        "color=blue&color=black&color=brown"
    );
}

#[test]
fn query_deep_object_style_follows_the_specification_table() {
    assert_eq!(
        query_row("deepObject", true, rgb()),
        "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"
    );
    // Beyond the table: arrays indexed, nesting to any depth (Stripe's `created[gt]`).
    assert_eq!(
        query_row("deepObject", true, json!({"gt": 5, "in": [1, 2]})),
        "color%5Bgt%5D=5&color%5Bin%5D%5B0%5D=1&color%5Bin%5D%5B1%5D=2"
    );
    assert_eq!(
        query_pieces(
            &param("expand", "deepObject", true),
            &json!(["a", "b"]),
            DeepArrays::Brackets
        ),
        ["expand%5B%5D=a", "expand%5B%5D=b"]
    );
}

#[test]
fn header_simple_style_follows_the_specification_table() {
    let row = |explode| {
        let p = param("X-Color", "simple", explode);
        [blue(), colors(), rgb()].map(|v| header_value(&p, &v).unwrap())
    };
    assert_eq!(
        row(false),
        ["blue", "blue,black,brown", "R,100,G,200,B,150"]
    );
    assert_eq!(row(true), ["blue", "blue,black,brown", "R=100,G=200,B=150"]);
}

#[test]
fn cookie_form_style_follows_the_specification_table() {
    let row = |explode| {
        let p = param("color", "form", explode);
        [blue(), colors(), rgb()].map(|v| cookie_pairs(&p, &v).unwrap().join("; "))
    };
    assert_eq!(
        row(false),
        [
            "color=blue",
            "color=blue,black,brown",
            "color=R,100,G,200,B,150"
        ]
    );
    assert_eq!(
        row(true),
        [
            "color=blue",
            "color=blue; color=black; color=brown",
            "R=100; G=200; B=150"
        ]
    );
    // A value cannot end the pair or the header.
    assert_eq!(
        cookie_pairs(&param("c", "form", true), &json!("a; b=c")).unwrap(),
        ["c=a%3B%20b%3Dc"]
    );
}

#[test]
fn integral_numbers_are_written_without_a_fraction() {
    let p = param("channel_id", "simple", false);
    assert_eq!(path_value(&p, &json!(927.0)).unwrap(), "927");
    assert_eq!(path_value(&p, &json!(927)).unwrap(), "927");
    assert_eq!(path_value(&p, &json!(1.5)).unwrap(), "1.5");
    assert_eq!(path_value(&p, &json!(-3.0)).unwrap(), "-3");
    assert_eq!(
        query_row("form", true, json!([2.0, 2.25])),
        "color=2&color=2.25"
    );
}

#[test]
fn reserved_characters_stay_only_when_allowed() {
    let mut p = param("u", "form", true);
    assert_eq!(
        query_pieces(&p, &json!("a/b:c"), DeepArrays::Indexed),
        ["u=a%2Fb%3Ac"]
    );
    p.allow_reserved = true;
    assert_eq!(
        query_pieces(&p, &json!("a/b:c&d"), DeepArrays::Indexed),
        ["u=a/b:c%26d"]
    );
}

#[test]
fn header_values_with_line_breaks_are_refused() {
    let p = param("X-Id", "simple", false);
    assert!(header_value(&p, &json!("ok\r\nEvil: 1")).is_err());
    assert!(header_value(&p, &json!("a\nb")).is_err());
    assert_eq!(header_value(&p, &json!([1, 2])).unwrap(), "1,2");
}

fn binding(encoding: Encoding, content_type: &'static str) -> BodyBinding {
    BodyBinding {
        property: "body".into(),
        content_type: content_type.into(),
        encoding,
        required: true,
        alternatives: Default::default(),
        parts: Default::default(),
    }
}

/// The body's bytes, when they are all in memory.
fn encoded(encoding: Encoding, content_type: &'static str, value: &Value) -> (Vec<u8>, String) {
    let payload = body(
        &binding(encoding, content_type),
        value,
        &Gathered::default(),
        DeepArrays::Indexed,
    )
    .unwrap();
    (payload.in_memory().unwrap().to_vec(), payload.content_type)
}

/// A form body's text, with `parts` as the document's `encoding`.
fn form(parts: Vec<crate::binding::PartBinding>, value: Value, arrays: DeepArrays) -> String {
    let mut binding = binding(Encoding::Form, "application/x-www-form-urlencoded");
    binding.parts = parts.into();
    let payload = body(&binding, &value, &Gathered::default(), arrays).unwrap();
    String::from_utf8(payload.in_memory().unwrap().to_vec()).unwrap()
}

fn deep(property: &'static str) -> crate::binding::PartBinding {
    crate::binding::PartBinding {
        property: property.into(),
        style: Some(Style::DeepObject),
        explode: Some(true),
        ..crate::binding::PartBinding::DEFAULT
    }
}

#[test]
fn form_bodies_without_encoding_spread_objects_and_repeat_arrays() {
    // OpenAPI's default for a form body's property: style `form`, explode `true`.
    assert_eq!(
        form(
            vec![],
            json!({"color": ["blue", "black"], "rgb": {"R": 100, "G": 200}, "n": 1.0, "none": null}),
            DeepArrays::Indexed
        ),
        "color=blue&color=black&R=100&G=200&n=1"
    );
}

#[test]
fn form_body_properties_follow_their_encoding_style() {
    let part = |style: Style, explode: bool| crate::binding::PartBinding {
        property: "color".into(),
        style: Some(style),
        explode: Some(explode),
        ..crate::binding::PartBinding::DEFAULT
    };
    let rows = [
        (part(Style::Form, false), "color=blue%2Cblack"),
        (part(Style::SpaceDelimited, false), "color=blue%20black"),
        (part(Style::PipeDelimited, false), "color=blue%7Cblack"),
        (
            part(Style::DeepObject, true),
            "color[0]=blue&color[1]=black",
        ),
    ];
    for (part, expected) in rows {
        assert_eq!(
            form(
                vec![part],
                json!({"color": ["blue", "black"]}),
                DeepArrays::Indexed
            ),
            expected
        );
    }
    let json_part = crate::binding::PartBinding {
        property: "meta".into(),
        content_type: Some("application/json".into()),
        ..crate::binding::PartBinding::DEFAULT
    };
    assert_eq!(
        form(
            vec![json_part],
            json!({"meta": {"k": "v"}}),
            DeepArrays::Indexed
        ),
        "meta=%7B%22k%22%3A%22v%22%7D"
    );
    let reserved = crate::binding::PartBinding {
        property: "url".into(),
        allow_reserved: true,
        ..crate::binding::PartBinding::DEFAULT
    };
    assert_eq!(
        form(
            vec![reserved],
            json!({"url": "https://x/y?z&w"}),
            DeepArrays::Indexed
        ),
        "url=https://x/y?z%26w"
    );
}

#[test]
fn form_body_deep_objects_nest_objects_and_arrays_to_any_depth() {
    // Stripe's `post_customers`, as Stripe's API reference writes it.
    let value = json!({
        "address": {"city": "X", "line1": "1 Main"},
        "metadata": {"k": "v"},
        "expand": ["default_source", "tax"],
        "email": "a@b.c",
    });
    let parts = vec![deep("address"), deep("metadata"), deep("expand")];
    assert_eq!(
        form(parts.clone(), value.clone(), DeepArrays::Indexed),
        "address[city]=X&address[line1]=1%20Main&metadata[k]=v\
         &expand[0]=default_source&expand[1]=tax&email=a%40b.c"
    );
    assert_eq!(
        form(parts, value, DeepArrays::Brackets),
        "address[city]=X&address[line1]=1%20Main&metadata[k]=v\
         &expand[]=default_source&expand[]=tax&email=a%40b.c"
    );
    // Checkout's line items: objects in an array in an object.
    assert_eq!(
        form(
            vec![deep("line_items")],
            json!({"line_items": [{"price": "p_1", "quantity": 2}, {"price_data": {"currency": "usd", "recurring": {"interval": "month"}}}]}),
            DeepArrays::Indexed
        ),
        "line_items[0][price]=p_1&line_items[0][quantity]=2\
         &line_items[1][price_data][currency]=usd&line_items[1][price_data][recurring][interval]=month"
    );
    // Stripe's empty string ("unset") is a value like any other.
    assert_eq!(
        form(
            vec![deep("metadata")],
            json!({"metadata": ""}),
            DeepArrays::Indexed
        ),
        "metadata="
    );
}

#[test]
fn bodies_are_encoded_by_their_encoding() {
    let (bytes, ct) = encoded(
        Encoding::Form,
        "application/x-www-form-urlencoded",
        &json!({"a": "x y", "n": 1}),
    );
    assert_eq!(String::from_utf8(bytes).unwrap(), "a=x%20y&n=1");
    assert_eq!(ct, "application/x-www-form-urlencoded");
    let (bytes, _) = encoded(Encoding::Bytes, "image/png", &json!("aGk="));
    assert_eq!(bytes, b"hi");
    let none = Gathered::default();
    let arrays = DeepArrays::Indexed;
    assert!(
        body(
            &binding(Encoding::Bytes, "image/png"),
            &json!("%%%"),
            &none,
            arrays
        )
        .is_err()
    );
    let (bytes, ct) = encoded(
        Encoding::Multipart,
        "multipart/form-data",
        &json!({"a": "1"}),
    );
    assert!(ct.starts_with("multipart/form-data; boundary="));
    assert!(String::from_utf8(bytes).unwrap().contains("name=\"a\""));
}

#[test]
fn each_multipart_body_gets_its_own_random_boundary() {
    let encode = |value: Value| encoded(Encoding::Multipart, "multipart/form-data", &value);
    let (_, first) = encode(json!({"a": "1"}));
    let (_, second) = encode(json!({"a": "1"}));
    assert_ne!(first, second);
    let boundary = first.trim_start_matches("multipart/form-data; boundary=");
    // A field quoting an earlier boundary cannot end its part.
    let (bytes, ct) = encode(json!({"a": format!("--{boundary}--")}));
    let own = ct.trim_start_matches("multipart/form-data; boundary=");
    let text = String::from_utf8(bytes).unwrap();
    assert_eq!(text.matches(&format!("--{own}")).count(), 2, "{text}");
}

#[test]
fn multipart_parts_are_files_texts_json_and_one_part_per_array_item() {
    #[derive(serde::Serialize)]
    struct Form {
        photos: Vec<Upload>,
        note: &'static str,
        count: u8,
        meta: Value,
        tags: Vec<&'static str>,
        skipped: Option<u8>,
        raw: Upload,
    }
    let form = Form {
        photos: vec![
            Upload::bytes(&b"PNG1"[..]).file_name("a.png"),
            Upload::bytes(&b"JPG2"[..]).file_name("b.jpg"),
        ],
        note: "hi",
        count: 2,
        meta: json!({"k": "v"}),
        tags: vec!["x", "y"],
        skipped: None,
        raw: Upload::bytes(&b"\x00\x01"[..]),
    };
    let (value, uploads) = crate::upload::collect(|| serde_json::to_value(&form).unwrap());
    let mut binding = binding(Encoding::Multipart, "multipart/form-data");
    binding.parts = vec![crate::binding::PartBinding {
        property: "raw".into(),
        content_type: Some("audio/*".into()),
        ..crate::binding::PartBinding::DEFAULT
    }]
    .into();
    let payload = body(&binding, &value, &uploads, DeepArrays::Indexed).unwrap();
    let text = String::from_utf8(payload.in_memory().unwrap().to_vec()).unwrap();
    let b = payload
        .content_type
        .trim_start_matches("multipart/form-data; boundary=");
    let part = |head: &str, content: &str| format!("--{b}\r\n{head}\r\n\r\n{content}\r\n");
    let expected = [
        part("Content-Disposition: form-data; name=\"photos\"; filename=\"a.png\"\r\nContent-Type: image/png", "PNG1"),
        part("Content-Disposition: form-data; name=\"photos\"; filename=\"b.jpg\"\r\nContent-Type: image/jpeg", "JPG2"),
        part("Content-Disposition: form-data; name=\"note\"\r\nContent-Type: text/plain; charset=utf-8", "hi"),
        part("Content-Disposition: form-data; name=\"count\"\r\nContent-Type: text/plain", "2"),
        part("Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json", r#"{"k":"v"}"#),
        part("Content-Disposition: form-data; name=\"tags\"\r\nContent-Type: text/plain; charset=utf-8", "x"),
        part("Content-Disposition: form-data; name=\"tags\"\r\nContent-Type: text/plain; charset=utf-8", "y"),
        // A declared range says nothing exact, and no file name suggests a type.
        part("Content-Disposition: form-data; name=\"raw\"; filename=\"raw\"\r\nContent-Type: application/octet-stream", "\u{0}\u{1}"),
        format!("--{b}--\r\n"),
    ]
    .concat();
    assert_eq!(text, expected);
}

#[test]
fn outside_multipart_and_binary_bodies_an_upload_is_base64_and_a_file_is_refused() {
    let (value, uploads) = crate::upload::collect(|| json!({"image": Upload::bytes(&b"hi"[..])}));
    let payload = body(
        &binding(Encoding::Json, "application/json"),
        &value,
        &uploads,
        DeepArrays::Indexed,
    )
    .unwrap();
    assert_eq!(&payload.in_memory().unwrap()[..], br#"{"image":"aGk="}"#);
    let (value, uploads) = crate::upload::collect(|| json!({"image": Upload::path("/a.png")}));
    let refused = body(
        &binding(Encoding::Json, "application/json"),
        &value,
        &uploads,
        DeepArrays::Indexed,
    );
    assert!(refused.unwrap_err().0.contains("/body/image"));
}

#[test]
fn a_file_named_where_no_binary_value_is_declared_is_refused_never_sent_as_its_path() {
    let value = json!({"doc": crate::upload::file_reference("/etc/passwd")});
    for (encoding, content_type) in [
        (Encoding::Multipart, "multipart/form-data"),
        (Encoding::Json, "application/json"),
        (Encoding::Form, "application/x-www-form-urlencoded"),
    ] {
        let refused = body(
            &binding(encoding, content_type),
            &value,
            &Gathered::default(),
            DeepArrays::Indexed,
        )
        .unwrap_err();
        assert!(refused.0.contains("/body/doc"), "{}", refused.0);
        assert!(!refused.0.contains("passwd"));
    }
}

#[test]
fn a_part_media_type_cannot_add_lines_to_the_part() {
    let upload = Upload::bytes(&b"x"[..]).content_type("text/plain\r\nX-Evil: 1");
    let (value, uploads) = crate::upload::collect(|| json!({"file": upload}));
    let refused = body(
        &binding(Encoding::Multipart, "multipart/form-data"),
        &value,
        &uploads,
        DeepArrays::Indexed,
    );
    assert!(refused.unwrap_err().0.contains("line break"));
}

#[test]
fn an_upload_body_keeps_its_file_for_sending_and_takes_its_media_type() {
    let upload = Upload::path("/data/song.mp3");
    let (value, uploads) = crate::upload::collect(|| serde_json::to_value(&upload).unwrap());
    let payload = body(
        &binding(Encoding::Bytes, "audio/*"),
        &value,
        &uploads,
        DeepArrays::Indexed,
    )
    .unwrap();
    assert_eq!(payload.content_type, "audio/mpeg");
    assert!(payload.in_memory().is_none());
    assert!(matches!(&payload.pieces[..], [Piece::Upload { at, .. }] if at == "/body"));
    let declared = body(
        &binding(Encoding::Bytes, "application/pdf"),
        &value,
        &uploads,
        DeepArrays::Indexed,
    );
    assert_eq!(declared.unwrap().content_type, "application/pdf");
}

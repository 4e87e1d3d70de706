//! The judges of a request besides Prism's validation: what Prism's header says of the request,
//! and form and multipart bodies read back whole.

use serde_json::{Map, Value, json};

use super::Sampler;
use super::form_judge;

/// The request's violations among those of an `sl-violations` header (a JSON list, each with
/// a `location` whose first word says what it judged), or `None` when there are none.
pub(super) fn request_violations(header: &str) -> Option<String> {
    // Past a count Prism writes the list after a sentence, cut short: then each violation's
    // first location word is read from the text.
    let list = header
        .trim_start_matches("Too many violations!")
        .trim_start();
    let Ok(Value::Array(all)) = serde_json::from_str::<Value>(list) else {
        let judged_request = list
            .split("\"location\":[\"")
            .skip(1)
            .any(|rest| !rest.starts_with("response\""));
        return judged_request.then(|| header.to_string());
    };
    // Prism's warnings (a security scheme it does not support, `mutualTLS`) judge nothing.
    let request: Vec<Value> = all
        .into_iter()
        .filter(|v| v.pointer("/location/0").and_then(Value::as_str) != Some("response"))
        .filter(|v| v["severity"].as_str().is_none_or(|s| s == "Error"))
        .collect();
    (!request.is_empty()).then(|| Value::Array(request).to_string())
}

/// For a form body: `Err` with how the pairs the runtime encodes for `input` differ from the
/// value given, read back by [`form_judge`]; `None` when the body is not a form.
pub(super) fn form_mismatch(
    binding: &harness_gen_runtime::binding::Binding,
    input: &Value,
    components: &Map<String, Value>,
    schema: &Value,
) -> Option<Result<(), String>> {
    let (body, value, payload) =
        match encoded(binding, input, harness_gen_runtime::binding::Encoding::Form)? {
            Ok(encoded) => encoded,
            Err(why) => return Some(Err(why)),
        };
    let text = String::from_utf8(payload.in_memory()?.to_vec()).ok()?;
    let sampler = Sampler {
        components,
        examples: false,
        every_property: false,
    };
    let read = form_judge::decode(&sampler, body, schema, &text);
    if form_judge::same(&read, value) {
        Some(Ok(()))
    } else {
        Some(Err(format!(
            "the form body `{text}` reads as {read}, not {value}"
        )))
    }
}

/// The body of `binding` when it is of `encoding`, its value in `input`, and the payload the
/// runtime encodes it as (`Err`: the encoder refused it); `None` for another body or none.
fn encoded<'a>(
    binding: &'a harness_gen_runtime::binding::Binding,
    input: &'a Value,
    encoding: harness_gen_runtime::binding::Encoding,
) -> Option<
    Result<
        (
            &'a harness_gen_runtime::binding::BodyBinding,
            &'a Value,
            harness_gen_runtime::http::encode::Payload,
        ),
        String,
    >,
> {
    let body = binding.body.as_ref().filter(|b| b.encoding == encoding)?;
    let value = input.get(body.property.as_ref())?;
    let encoded = harness_gen_runtime::http::encode::body(
        body,
        value,
        &Default::default(),
        binding.deep_object_arrays,
    );
    Some(
        encoded
            .map(|payload| (body, value, payload))
            .map_err(|refused| format!("not encoded: {}", refused.0)),
    )
}

/// For a multipart body: `Err` with how the parts the runtime encodes for `input` differ from
/// the value given, read back part by part (a JSON part parsed, a text part typed by the
/// schema, repeated parts of one name an array); `None` when the body is not multipart or is
/// not all in memory.
pub(super) fn multipart_mismatch(
    binding: &harness_gen_runtime::binding::Binding,
    input: &Value,
    components: &Map<String, Value>,
    schema: &Value,
) -> Option<Result<(), String>> {
    let (body, value, payload) = match encoded(
        binding,
        input,
        harness_gen_runtime::binding::Encoding::Multipart,
    )? {
        Ok(encoded) => encoded,
        Err(why) => return Some(Err(why)),
    };
    let bytes = payload.in_memory()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let boundary = payload.content_type.split("boundary=").nth(1)?.to_string();
    let sampler = Sampler {
        components,
        examples: false,
        every_property: false,
    };
    let mut read = Map::new();
    let delimiter = format!("--{boundary}");
    for part in text.split(&delimiter).skip(1) {
        if part.starts_with("--") {
            break;
        }
        let Some((head, content)) = part.trim_start_matches("\r\n").split_once("\r\n\r\n") else {
            return Some(Err(format!("a part without a head: {part:?}")));
        };
        let content = content.strip_suffix("\r\n").unwrap_or(content).to_string();
        let name = head.split("name=\"").nth(1)?.split('"').next()?.to_string();
        let kind = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Type: "))
            .unwrap_or("text/plain");
        let property = form_judge::below(&sampler, schema, &name);
        let resolved = sampler.resolve(property);
        // An array is a part per item unless the document declares the part JSON: the parts
        // of one name are gathered into an array when the value given was one.
        let declared_json = body.part_type(&name).is_some_and(|t| t.contains("json"));
        let repeated = value.get(&name).is_some_and(Value::is_array) && !declared_json;
        let item_schema = if repeated {
            &resolved["items"]
        } else {
            property
        };
        let value = if kind.contains("json") {
            match serde_json::from_str(&content) {
                Ok(value) => value,
                Err(e) => return Some(Err(format!("the JSON part `{name}` does not parse: {e}"))),
            }
        } else {
            form_judge::typed(&sampler, item_schema, content)
        };
        if repeated {
            let slot = read.entry(name).or_insert_with(|| json!([]));
            slot.as_array_mut()?.push(value);
        } else {
            read.insert(name, value);
        }
    }
    let read = Value::Object(read);
    if form_judge::same(&read, value) {
        Some(Ok(()))
    } else {
        Some(Err(format!(
            "the multipart body reads as {read}, not {value}"
        )))
    }
}

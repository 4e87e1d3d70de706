//! The rules that excuse a violation Prism reports: each explains it by the document or by Prism,
//! never by a list of operations.

use serde_json::{Value, json};

use super::form_judge;

/// Whether every value `schema` allows leaves nothing on the wire: `null`, or an array of
/// such items (RFC 6570 leaves undefined values out).
fn only_null(doc: &Value, schema: &Value) -> bool {
    let schema = resolved(doc, schema);
    schema["enum"] == json!([null])
        || schema.get("const") == Some(&Value::Null)
        || schema["type"] == "null"
        || schema["type"] == "array" && only_null(doc, &schema["items"])
}

/// Whether a media type is XML.
pub(super) fn is_xml(media_type: &str) -> bool {
    let essence = media_type.split(';').next().unwrap_or_default().trim();
    essence.ends_with("/xml") || essence.ends_with("+xml")
}

/// Why Prism's `violations` of a request of `binding` are Prism's or the document's fault and
/// not the request's, when every one of them is explained by a rule; `None` otherwise. Each rule
/// reads the document, never a list of operations:
///
/// - a header parameter named `Accept`, `Content-Type` or `Authorization`, which OpenAPI says
///   to ignore (the binding sets those headers), that Prism still requires;
/// - a parameter name with characters a URL escapes (`string with num`), which Prism looks
///   for still escaped;
/// - a path parameter the path template does not name: no request can carry it;
/// - a required parameter whose only value is `null` (or an array of nulls): RFC 6570 sends
///   no undefined value;
/// - a parameter (or a property of one) whose `oneOf`/`anyOf` branches are different scalar
///   types: Prism reads the text as each of them, so it matches more than one;
/// - a query parameter whose `type` lists `array` with another type (or is a nullable
///   array): Prism splits the text into an array only for `array` alone;
/// - a form body property the schema requires but does not declare: Prism reads only
///   declared fields;
/// - a multipart body Prism reads part by part as text, which the multipart judge read back
///   whole before it was sent;
/// - a path key holding a query or a fragment (`/{Key}#uploads`), which OpenAPI forbids and
///   Prism routes no request to.
pub(super) fn excuse(
    doc: &Value,
    binding: &harness_gen_runtime::binding::Binding,
    violations: &str,
) -> Option<String> {
    let path = binding.path.as_ref();
    if path.contains(['?', '#']) {
        return Some(format!(
            "the path key `{path}` holds a query or fragment, which OpenAPI forbids; Prism routes no request to it"
        ));
    }
    let method = binding.method.as_str().to_ascii_lowercase();
    let item = doc.get("paths")?.get(path)?;
    let op = item.get(&method)?;
    let resolve = |param: &Value| -> Value {
        match param.get("$ref").and_then(Value::as_str) {
            Some(reference) => doc
                .pointer(reference.trim_start_matches('#'))
                .cloned()
                .unwrap_or(Value::Null),
            None => param.clone(),
        }
    };
    let declared: Vec<Value> = [item, op]
        .iter()
        .filter_map(|o| o.get("parameters").and_then(Value::as_array))
        .flatten()
        .map(resolve)
        .collect();
    let parsed: Value = serde_json::from_str(violations).ok()?;
    let list = match &parsed {
        Value::Array(list) => list.clone(),
        Value::Object(problem) => problem.get("validation")?.as_array()?.clone(),
        _ => return None,
    };
    let multipart = binding
        .body
        .as_ref()
        .is_some_and(|b| b.encoding == harness_gen_runtime::binding::Encoding::Multipart);
    let mut reasons = Vec::new();
    for violation in &list {
        let location = violation["location"].as_array();
        let in_body = location.is_some_and(|l| l.iter().any(|w| w == "body"));
        if multipart && in_body {
            // The request was sent only after the multipart judge read every part back as the
            // (validated) input gave it: the harness sends no uploads, so every multipart body
            // is in memory and judged.
            reasons.push(
                "Prism reads each multipart part as text (a JSON or file part is no object to it); the multipart judge read every part back as given".to_string(),
            );
            continue;
        }
        reasons.push(excused_violation(doc, op, &declared, path, violation)?);
    }
    reasons.dedup();
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// The rule of [`excuse`] that explains one violation, if one does.
fn excused_violation(
    doc: &Value,
    op: &Value,
    declared: &[Value],
    path: &str,
    violation: &Value,
) -> Option<String> {
    let location: Vec<&str> = violation["location"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let code = violation["code"].as_str().unwrap_or_default();
    let message = violation["message"].as_str().unwrap_or_default();
    if location.contains(&"body") && code == "required" {
        let property = message.split('\'').nth(1)?;
        return (!form_declares(doc, op, property)).then(|| {
            format!(
                "Prism reads only the form fields the schema declares, and `{property}` is required without being declared (it was sent)"
            )
        });
    }
    let place = ["path", "query", "header", "cookie"]
        .into_iter()
        .find(|p| location.contains(p))?;
    let named = |name: &str| {
        declared
            .iter()
            .find(|p| p["in"] == place && p["name"].as_str().is_some_and(|n| n == name))
    };
    if code == "required" {
        let property = message.split('\'').nth(1)?;
        let ignored = ["accept", "content-type", "authorization"];
        if place == "header" && ignored.contains(&property.to_ascii_lowercase().as_str()) {
            return Some(format!(
                "Prism requires the header parameter `{property}`, which OpenAPI says to ignore"
            ));
        }
        let decoded = form_judge::percent_decoded(property);
        if decoded != property && named(&decoded).is_some() {
            return Some(format!(
                "Prism looks for the parameter `{decoded}` by its escaped name `{property}`"
            ));
        }
        let in_path = declared.iter().find(|p| {
            p["in"] == "path"
                && p["name"]
                    .as_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case(property))
        });
        if place == "path"
            && let Some(name) = in_path.and_then(|p| p["name"].as_str())
            && !path.contains(&format!("{{{name}}}"))
        {
            return Some(format!(
                "the path parameter `{name}` is not in the template `{path}`: no request can carry it"
            ));
        }
        if only_null(doc, &named(property)?["schema"]) {
            return Some(format!(
                "the required parameter `{property}` has no value but null, which RFC 6570 leaves out"
            ));
        }
        return None;
    }
    let after: Vec<&str> = location
        .iter()
        .skip_while(|w| **w != place)
        .skip(1)
        .copied()
        .collect();
    let (name, nested) = after.split_first()?;
    let mut schema = resolved(doc, &named(name)?["schema"]);
    // Several types: a list, or (OpenAPI 3.0) one and `nullable`.
    let types: Vec<&Value> = match &schema["type"] {
        Value::Array(types) => types.iter().collect(),
        one if schema["nullable"] == true => vec![one, &Value::Null],
        one => vec![one],
    };
    if code == "type"
        && place == "query"
        && nested.is_empty()
        && types.len() > 1
        && types.iter().any(|t| *t == "array")
    {
        return Some(format!(
            "Prism reads the query parameter `{name}` as an array only when its type is `array` alone, not nullable"
        ));
    }
    for word in nested {
        schema = resolved(doc, &schema["properties"][*word]);
    }
    let branches = schema["oneOf"].as_array().or(schema["anyOf"].as_array())?;
    let scalar = ["string", "integer", "number", "boolean"];
    let all_scalar = branches.len() > 1
        && branches.iter().all(|b| {
            let b = resolved(doc, b);
            let enumerated = b["enum"]
                .as_array()
                .is_some_and(|values| values.iter().all(|v| !v.is_object() && !v.is_array()));
            b["type"].as_str().is_some_and(|t| scalar.contains(&t)) || enumerated
        });
    all_scalar.then(|| {
        format!(
            "Prism reads the parameter `{}` as every scalar type of its union, so the text matches more than one branch",
            after.join(".")
        )
    })
}

/// The schema `schema` refers to when it is a `$ref` into the document, else itself.
fn resolved<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => doc
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or(&Value::Null),
        None => schema,
    }
}

/// Whether a form body's schema (of operation `op`) declares `property`, in its own
/// `properties` or an `allOf` part's.
fn form_declares(doc: &Value, op: &Value, property: &str) -> bool {
    let body = resolved(doc, &op["requestBody"]);
    let Some(content) = body["content"].as_object() else {
        return true;
    };
    content
        .iter()
        .filter(|(media, _)| media.starts_with("application/x-www-form-urlencoded"))
        .any(|(_, media)| {
            let schema = resolved(doc, &media["schema"]);
            let parts = schema["allOf"].as_array().into_iter().flatten();
            std::iter::once(schema)
                .chain(parts.map(|p| resolved(doc, p)))
                .any(|s| s["properties"].get(property).is_some())
        })
}

//! Structural checks against the OpenAPI specification for mistakes a generator can tolerate:
//! each is a located warning (an error only where the generated code would change).

use harness_gen_wire::binding::Method;
use serde_json::Value;

use crate::diag::{Code, Diagnostics, Severity};
use crate::load::{Document, Loc, Version};

const TOP_LEVEL: &[&str] = &[
    "openapi",
    "info",
    "jsonSchemaDialect",
    "servers",
    "paths",
    "webhooks",
    "components",
    "security",
    "tags",
    "externalDocs",
];

const LINK_FIELDS: &[&str] = &[
    "operationRef",
    "operationId",
    "parameters",
    "requestBody",
    "description",
    "server",
];

/// Reports tolerable violations of the OpenAPI schema.
pub fn structure(doc: &Document, diags: &mut Diagnostics) {
    let root = doc.root();
    let warn = |diags: &mut Diagnostics, code, loc: &Loc, message: String| {
        diags.push(doc.diag(code, Severity::Warning, loc, message));
    };
    if let Some(map) = root.as_object() {
        for key in map.keys() {
            let allowed = TOP_LEVEL.contains(&key.as_str())
                || key.starts_with("x-")
                || (doc.version == Version::V3_2 && key == "$self");
            if !allowed {
                warn(
                    diags,
                    Code::UnknownField,
                    &Loc::main("").at(key),
                    format!(
                        "`{key}` is not an OpenAPI field; it is ignored (vendor extensions start with `x-`)"
                    ),
                );
            }
        }
        let containers = ["paths", "components", "webhooks"];
        if doc.version >= Version::V3_1 && !containers.iter().any(|c| map.contains_key(*c)) {
            warn(diags, Code::MissingField, &Loc::main(""), "an OpenAPI 3.1 document needs `paths`, `components` or `webhooks`: there is nothing to generate".to_string());
        }
        if doc.version == Version::V3_0 && !map.contains_key("paths") {
            warn(
                diags,
                Code::MissingField,
                &Loc::main(""),
                "an OpenAPI 3.0 document needs `paths`".to_string(),
            );
        }
        if !map.contains_key("info") {
            warn(
                diags,
                Code::MissingField,
                &Loc::main(""),
                "`info` (with `title` and `version`) is required".to_string(),
            );
        }
    }
    match root.get("servers") {
        Some(Value::Array(servers)) => {
            for (i, server) in servers.iter().enumerate() {
                let loc = Loc::main("/servers").at(&i.to_string());
                if let Some(Value::Object(vars)) = server.get("variables") {
                    for (name, var) in vars {
                        if matches!(var.get("enum"), Some(Value::Array(values)) if values.is_empty()) {
                            warn(diags, Code::InvalidField, &loc.at("variables").at(name).at("enum"), format!("server variable `{name}` has an empty `enum`; list its values or remove `enum`"));
                        }
                    }
                }
            }
        }
        Some(_) => warn(diags, Code::InvalidField, &Loc::main("/servers"), "`servers` must be a list of server objects; it is ignored and no default base URL is set".to_string()),
        None => {}
    }
    let components = Loc::main("/components");
    if let Some(Value::Object(params)) = root.pointer("/components/parameters") {
        for (name, param) in params {
            parameter(doc, param, &components.at("parameters").at(name), diags);
        }
    }
    if let Some(Value::Object(headers)) = root.pointer("/components/headers") {
        for (name, header) in headers {
            let loc = components.at("headers").at(name);
            if header.get("allowReserved").is_some() {
                warn(
                    diags,
                    Code::InvalidField,
                    &loc.at("allowReserved"),
                    "`allowReserved` is only defined for query parameters; it is ignored here"
                        .to_string(),
                );
            }
            both_examples(doc, header, &loc, diags);
        }
    }
    if let Some(Value::Object(links)) = root.pointer("/components/links") {
        for (name, link) in links {
            let loc = components.at("links").at(name);
            for key in link.as_object().into_iter().flat_map(|m| m.keys()) {
                if !LINK_FIELDS.contains(&key.as_str()) && !key.starts_with("x-") {
                    warn(
                        diags,
                        Code::UnknownField,
                        &loc.at(key),
                        format!("`{key}` is not a field of a Link object; it is ignored"),
                    );
                }
            }
        }
    }
    if let Some(Value::Object(paths)) = root.get("paths") {
        for (path, item) in paths {
            let item_loc = Loc::main("/paths").at(path);
            let mut lists = vec![(item.get("parameters"), item_loc.at("parameters"))];
            for method in Method::ALL.map(Method::path_item_key) {
                if let Some(op) = item.get(method) {
                    media_examples(doc, op, &item_loc.at(method), diags);
                }
                lists.push((
                    item.get(method).and_then(|op| op.get("parameters")),
                    item_loc.at(method).at("parameters"),
                ));
            }
            for (list, loc) in lists {
                if let Some(Value::Array(list)) = list {
                    for (i, param) in list.iter().enumerate() {
                        parameter(doc, param, &loc.at(&i.to_string()), diags);
                    }
                }
            }
        }
    }
}

/// Media-type objects of an operation's request body and responses: their `examples` must be a
/// map (GitHub's description writes some as lists); a mistake there is a warning, since
/// examples never change the generated code.
fn media_examples(doc: &Document, op: &Value, loc: &Loc, diags: &mut Diagnostics) {
    let mut contents: Vec<(&Value, Loc)> = Vec::new();
    if let Some(content) = op.pointer("/requestBody/content") {
        contents.push((content, loc.at("requestBody").at("content")));
    }
    if let Some(Value::Object(responses)) = op.get("responses") {
        for (status, response) in responses {
            if let Some(content) = response.get("content") {
                contents.push((content, loc.at("responses").at(status).at("content")));
            }
        }
    }
    for (content, content_loc) in contents {
        let Some(map) = content.as_object() else {
            continue;
        };
        for (media, object) in map {
            let at = content_loc.at(media);
            if matches!(object.get("examples"), Some(examples) if !examples.is_object()) {
                diags.push(doc.diag(
                    Code::InvalidField,
                    Severity::Warning,
                    &at.at("examples"),
                    "`examples` must map names to Example objects; these examples are ignored (they do not change the generated code)".to_string(),
                ));
            }
            both_examples(doc, object, &at, diags);
        }
    }
}

fn parameter(doc: &Document, param: &Value, loc: &Loc, diags: &mut Diagnostics) {
    if param.get("$ref").is_some() {
        return;
    }
    let location = param.get("in").and_then(Value::as_str).unwrap_or_default();
    if param.get("allowReserved").is_some() && location != "query" {
        diags.push(doc.diag(
            Code::InvalidField,
            Severity::Warning,
            &loc.at("allowReserved"),
            format!("`allowReserved` is only defined for query parameters, not {location} ones; it is ignored"),
        ));
    }
    both_examples(doc, param, loc, diags);
}

fn both_examples(doc: &Document, object: &Value, loc: &Loc, diags: &mut Diagnostics) {
    if object.get("example").is_some() && object.get("examples").is_some() {
        diags.push(doc.diag(
            Code::ConflictingFields,
            Severity::Warning,
            &loc.at("examples"),
            "`example` and `examples` cannot be used together; keep one (examples are annotations and do not change the generated code)".to_string(),
        ));
    }
}

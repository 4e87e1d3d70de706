//! One operation → the parts of its tool: parameters and body as input properties with their
//! wire binding, the success output, the declared error responses, the security plan.

use std::collections::BTreeMap;

use harness_gen_wire::binding::{
    Binding, BodyBinding, Encoding, ErrorBinding, EventStream, List, Method, Pagination,
    ParamBinding, ParamIn, PartBinding, ResponseBinding, StatusKey, Style,
};
use serde_json::{Map, Value, json};

use super::Cx;
use crate::diag::{Code, Severity};
use crate::load::Loc;
use crate::names::Unique;
use crate::schemas::Normalizer;

/// What one operation yields before names and CLI paths are settled document-wide: each part's
/// wire binding with the normalized schema of its value.
pub struct Parts {
    pub params: Vec<Param>,
    pub body: Option<Body>,
    pub output: Option<Output>,
    pub errors: Vec<ErrorVariant>,
    pub security: Vec<Vec<String>>,
}

/// A parameter: where it travels and the schema of its value.
pub struct Param {
    pub binding: ParamBinding,
    pub schema: Value,
}

/// The request body: how it travels and its schema (of the chosen media type).
pub struct Body {
    pub binding: BodyBinding,
    pub schema: Value,
}

/// The success response with content: how it is read and its schema (for text and bytes a
/// string schema).
pub struct Output {
    pub binding: ResponseBinding,
    pub schema: Value,
    /// The response headers it declares, lowercase.
    pub headers: Vec<String>,
    /// The schema of one event's data when the response also (or only) offers
    /// `text/event-stream`: OpenAPI 3.2's `itemSchema`, else its `schema`, else any value.
    pub events: Option<Value>,
}

/// A declared error response with a JSON body, and the body's schema.
pub struct ErrorVariant {
    pub binding: ErrorBinding,
    pub schema: Value,
}

/// Headers the OpenAPI specification says to ignore as parameters.
const IGNORED_HEADERS: &[&str] = &["accept", "content-type", "authorization"];

pub fn parts(
    cx: &mut Cx,
    path: &str,
    op: &Value,
    op_loc: &Loc,
    item: &Value,
    item_loc: &Loc,
) -> Parts {
    let mut properties = Unique::plain();
    let has_body = op.get("requestBody").is_some();
    if has_body {
        properties.reserve("body");
    }
    let mut params = parameters(cx, path, op, op_loc, item, item_loc, &mut properties);
    let mut body = if has_body {
        request_body(cx, op, op_loc)
    } else {
        None
    };
    let (mut output, mut errors) = responses(cx, op, op_loc);
    // Each part in its direction: what is sent in the request view, what comes back in the
    // reply view (`directions`).
    for schema in params
        .iter_mut()
        .map(|p| &mut p.schema)
        .chain(body.iter_mut().map(|b| &mut b.schema))
    {
        cx.views.for_request(schema);
    }
    for output in output.iter_mut() {
        super::directions::for_reply(&mut output.schema);
        if let Some(events) = &mut output.events {
            super::directions::for_reply(events);
        }
    }
    for error in &mut errors {
        super::directions::for_reply(&mut error.schema);
    }
    let security = match op.get("security") {
        Some(requirements) => security(cx, requirements, &op_loc.at("security")),
        None => cx.default_security.clone(),
    };
    Parts {
        params,
        body,
        output,
        errors,
        security,
    }
}

/// Path-item and operation parameters merged (the operation's win), in the order path, query,
/// header, cookie, each named by its snake_case identifier made unique.
fn parameters(
    cx: &mut Cx,
    path: &str,
    op: &Value,
    op_loc: &Loc,
    item: &Value,
    item_loc: &Loc,
    properties: &mut Unique,
) -> Vec<Param> {
    let mut merged: BTreeMap<(String, String), (Value, Loc)> = BTreeMap::new();
    let mut order: Vec<(String, String)> = Vec::new();
    for (list, loc) in [
        (item.get("parameters"), item_loc.at("parameters")),
        (op.get("parameters"), op_loc.at("parameters")),
    ] {
        let Some(Value::Array(list)) = list else {
            continue;
        };
        for (i, raw) in list.iter().enumerate() {
            let at = loc.at(&i.to_string());
            let Some((param, param_loc)) = cx.doc.deref(raw, &at, cx.diags) else {
                continue;
            };
            let (Some(name), Some(location)) = (
                param.get("name").and_then(Value::as_str),
                param.get("in").and_then(Value::as_str),
            ) else {
                cx.diags.push(cx.doc.diag(
                    Code::MissingField,
                    Severity::Error,
                    &param_loc,
                    "a parameter needs `name` and `in`: add them".to_string(),
                ));
                continue;
            };
            let key = (location.to_string(), name.to_string());
            if !merged.contains_key(&key) {
                order.push(key.clone());
            }
            merged.insert(key, (param.clone(), param_loc));
        }
    }
    let template_vars = path_variables(path);
    let mut out = Vec::new();
    for location in [
        ParamIn::Path,
        ParamIn::Query,
        ParamIn::Header,
        ParamIn::Cookie,
    ] {
        for key in order.iter().filter(|(l, _)| l == location.as_str()) {
            let (param, loc) = &merged[key];
            let name = &key.1;
            if location == ParamIn::Header
                && IGNORED_HEADERS.contains(&name.to_ascii_lowercase().as_str())
            {
                // Never in silence: a document that describes its credentials as an
                // `Authorization` parameter authenticates no call until it has a scheme.
                let setter = if name.eq_ignore_ascii_case("authorization") {
                    "a security scheme sets it: declare one (components.securitySchemes) for calls to authenticate"
                } else {
                    "the request's body and response bindings set it"
                };
                cx.diags.push(cx.doc.diag(
                    Code::Lossy,
                    Severity::Note,
                    loc,
                    format!("header parameter `{name}` is ignored, as OpenAPI says; {setter}"),
                ));
                continue;
            }
            if matches!(location, ParamIn::Header | ParamIn::Cookie) && !is_http_token(name) {
                cx.diags.push(cx.doc.diag(
                    Code::InvalidField,
                    Severity::Warning,
                    loc,
                    format!("{} parameter {name:?} is not a valid HTTP field or cookie name (letters, digits and !#$%&'*+-.^_`|~ only); it is ignored", location.as_str()),
                ));
                continue;
            }
            if location == ParamIn::Path && !template_vars.contains(name) {
                cx.diags.push(cx.doc.diag(
                    Code::PathParameter,
                    Severity::Warning,
                    loc,
                    format!("path parameter `{name}` does not appear in the path template; it is ignored"),
                ));
                continue;
            }
            out.push(parameter(cx, param, loc, name, location, properties));
        }
    }
    for var in template_vars {
        if !out
            .iter()
            .any(|p| p.binding.location == ParamIn::Path && p.binding.name == var)
        {
            cx.diags.push(cx.doc.diag(
                Code::PathParameter,
                Severity::Warning,
                op_loc,
                format!("the path template names `{{{var}}}` but no parameter declares it; it is taken as a required string"),
            ));
            let property = unique_property(properties, &var, ParamIn::Path);
            out.push(Param {
                binding: ParamBinding {
                    property: property.into(),
                    location: ParamIn::Path,
                    name: var.into(),
                    style: Style::Simple,
                    explode: false,
                    required: true,
                    allow_reserved: false,
                    content_type: None,
                },
                schema: json!({"type": "string"}),
            });
        }
    }
    out
}

/// Whether `name` is an RFC 9110 token, the form header field names and cookie names take.
fn is_http_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn unique_property(properties: &mut Unique, wire: &str, location: ParamIn) -> String {
    let base = crate::names::snake(wire);
    if properties.reserve(&base) {
        return base;
    }
    properties.claim(&format!("{base}_{}", location.as_str()), "_")
}

fn parameter(
    cx: &mut Cx,
    param: &Value,
    loc: &Loc,
    name: &str,
    location: ParamIn,
    properties: &mut Unique,
) -> Param {
    let property = unique_property(properties, name, location);
    if property != crate::names::snake(name) {
        cx.diags.push(cx.doc.diag(
            Code::Renamed,
            Severity::Warning,
            loc,
            format!("parameter `{name}` ({}) collides with another input property and becomes `{property}`", location.as_str()),
        ));
    }
    let mut required = param
        .get("required")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if location == ParamIn::Path && !required {
        cx.diags.push(cx.doc.diag(
            Code::PathParameter,
            Severity::Warning,
            loc,
            format!("path parameter `{name}` must be required (a path cannot leave it out); it is treated as required: add `required: true`"),
        ));
        required = true;
    }
    let style = style(cx, param, loc, name, location);
    let explode = param
        .get("explode")
        .and_then(Value::as_bool)
        .unwrap_or(style == Style::Form);
    let allow_reserved = param
        .get("allowReserved")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let (mut schema, content_type) = match (
        param.get("schema"),
        param.get("content").and_then(Value::as_object),
    ) {
        (Some(schema), _) => (
            Normalizer::new(cx.doc, cx.diags).normalize(schema, &loc.at("schema")),
            None,
        ),
        (None, Some(content)) => match content.iter().next() {
            Some((media, media_obj)) => {
                let schema_loc = loc.at("content").at(media).at("schema");
                let schema = media_obj.get("schema").map_or(json!({}), |s| {
                    Normalizer::new(cx.doc, cx.diags).normalize(s, &schema_loc)
                });
                (schema, Some(media.clone()))
            }
            None => (json!({}), None),
        },
        (None, None) => {
            cx.diags.push(cx.doc.diag(
                Code::MissingField,
                Severity::Warning,
                loc,
                format!(
                    "parameter `{name}` has neither `schema` nor `content`; it is taken as a string"
                ),
            ));
            (json!({"type": "string"}), None)
        }
    };
    if let (Value::Object(map), Some(description)) = (
        &mut schema,
        param.get("description").and_then(Value::as_str),
    ) && !map.contains_key("description")
    {
        map.insert("description".into(), description.into());
    }
    Param {
        binding: ParamBinding {
            property: property.into(),
            location,
            name: name.to_string().into(),
            style,
            explode,
            required,
            allow_reserved,
            content_type: content_type.map(Into::into),
        },
        schema,
    }
}

/// The parameter's `style`, or its location's default when it names none, an unknown one, or
/// one OpenAPI does not allow there (each reported).
fn style(cx: &mut Cx, param: &Value, loc: &Loc, name: &str, location: ParamIn) -> Style {
    let default = location.default_style();
    let Some(given) = param.get("style") else {
        return default;
    };
    let why = match given.as_str().map(|text| (text, Style::of(text))) {
        Some((_, Some(style))) if style.allowed_in(location) => return style,
        Some((text, Some(_))) => format!("style `{text}` is not allowed in {}", location.as_str()),
        Some((text, None)) => format!("`{text}` is not a parameter style"),
        None => "`style` must be a string".to_string(),
    };
    cx.diags.push(cx.doc.diag(
        Code::InvalidField,
        Severity::Warning,
        &loc.at("style"),
        format!(
            "parameter `{name}`: {why}; it is sent in the default style `{}` (OpenAPI allows {})",
            default.as_str(),
            Style::ALL
                .into_iter()
                .filter(|s| s.allowed_in(location))
                .map(|s| format!("`{}`", s.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    default
}

/// The `{name}` variables of a path template.
fn path_variables(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let var = &rest[open + 1..open + close];
        if !var.is_empty() && !out.iter().any(|v| v == var) {
            out.push(var.to_string());
        }
        rest = &rest[open + close + 1..];
    }
    out
}

/// Media types in preference order: JSON, then form, multipart, bytes, text, then the rest.
fn preference(media: &str) -> (u8, String) {
    let rank = match Encoding::of(media) {
        Encoding::Json if media.starts_with("application/json") => 0,
        Encoding::Json => 1,
        Encoding::Form => 2,
        Encoding::Multipart => 3,
        Encoding::Bytes if media.starts_with("application/octet-stream") => 4,
        Encoding::Text if media.starts_with("text/plain") => 5,
        Encoding::Text => 6,
        Encoding::Bytes => 7,
    };
    (rank, media.to_string())
}

fn request_body(cx: &mut Cx, op: &Value, op_loc: &Loc) -> Option<Body> {
    let at = op_loc.at("requestBody");
    let (body, body_loc) = cx.doc.deref(op.get("requestBody")?, &at, cx.diags)?;
    let content = body.get("content").and_then(Value::as_object)?;
    let mut media: Vec<&String> = content.keys().collect();
    media.sort_by_key(|m| preference(m));
    let chosen = (*media.first()?).clone();
    let encoding = Encoding::of(&chosen);
    let schema_loc = body_loc.at("content").at(&chosen).at("schema");
    let parts = match encoding {
        Encoding::Multipart | Encoding::Form => part_encodings(
            cx,
            &content[&chosen],
            &body_loc.at("content").at(&chosen),
            &schema_loc,
            encoding,
        ),
        _ => List::default(),
    };
    let schema = match (encoding, content[&chosen].get("schema")) {
        (Encoding::Text, _) => json!({"type": "string"}),
        // Sent as itself (an `Upload` in the SDK), base64 in a tool's JSON input.
        (Encoding::Bytes, _) => {
            json!({"type": "string", "format": "binary", "contentEncoding": "base64"})
        }
        (_, Some(schema)) => Normalizer::new(cx.doc, cx.diags).normalize(schema, &schema_loc),
        (_, None) => json!({}),
    };
    Some(Body {
        binding: BodyBinding {
            property: "body".into(),
            content_type: chosen.into(),
            encoding,
            required: body
                .get("required")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            alternatives: media.iter().skip(1).map(|m| (*m).clone().into()).collect(),
            parts,
        },
        schema,
    })
}

/// How a form or multipart body's properties are encoded: the media type object's `encoding`
/// (`contentType`, whose first entry is taken when it lists several; for a form body also
/// `style`, `explode` and `allowReserved`), else for multipart a property's
/// `contentMediaType`. Only what the document says is recorded; the rest are OpenAPI's
/// defaults, which the client applies.
fn part_encodings(
    cx: &mut Cx,
    media: &Value,
    media_loc: &Loc,
    schema_loc: &Loc,
    encoding: Encoding,
) -> List<PartBinding> {
    let declared = media.get("encoding").and_then(Value::as_object);
    let properties = media
        .get("schema")
        // The schema was normalized (and its references reported) already.
        .and_then(|schema| cx.doc.deref(schema, schema_loc, &mut Default::default()))
        .and_then(|(schema, _)| schema.get("properties")?.as_object());
    let mut parts: Vec<PartBinding> = Vec::new();
    for (property, schema) in properties.into_iter().flatten() {
        let entry = declared.and_then(|e| e.get(property));
        let content_type = entry
            .and_then(|e| e.get("contentType")?.as_str())
            .and_then(|types| types.split(',').next())
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .or_else(|| match encoding {
                Encoding::Multipart => schema.get("contentMediaType")?.as_str(),
                _ => None,
            });
        let mut part = PartBinding {
            property: property.clone().into(),
            content_type: content_type.map(|t| t.to_string().into()),
            ..PartBinding::DEFAULT
        };
        if encoding == Encoding::Multipart
            && let Some(headers) = entry.and_then(|e| e.get("headers")?.as_object())
            && !headers.is_empty()
        {
            // Nothing in a call's input carries their values: said, never dropped in silence.
            cx.diags.push(cx.doc.diag(
                Code::Lossy,
                Severity::Warning,
                &media_loc.at("encoding").at(property).at("headers"),
                format!("the headers of multipart part `{property}` are not sent (no input carries their values); each part goes with its Content-Disposition and Content-Type only"),
            ));
        }
        if encoding == Encoding::Form
            && let Some(entry) = entry
        {
            let loc = media_loc.at("encoding").at(property);
            part.style = form_style(cx, entry, &loc, property);
            part.explode = entry.get("explode").and_then(Value::as_bool);
            part.allow_reserved = entry
                .get("allowReserved")
                .and_then(Value::as_bool)
                .unwrap_or(false);
        }
        if part
            != (PartBinding {
                property: part.property.clone(),
                ..PartBinding::DEFAULT
            })
        {
            parts.push(part);
        }
    }
    parts.into()
}

/// The `style` of a form body property's encoding: `form`, `spaceDelimited`, `pipeDelimited`
/// or `deepObject` (the query's styles); another is reported and the default `form` used.
fn form_style(cx: &mut Cx, entry: &Value, loc: &Loc, property: &str) -> Option<Style> {
    let given = entry.get("style")?;
    match given.as_str().and_then(Style::of) {
        Some(style) if style.allowed_in(ParamIn::Query) => Some(style),
        _ => {
            cx.diags.push(cx.doc.diag(
                Code::InvalidField,
                Severity::Warning,
                &loc.at("style"),
                format!(
                    "form property `{property}`: {given} is not a style a form body can use; it is sent in the default style `form` (OpenAPI allows `form`, `spaceDelimited`, `pipeDelimited`, `deepObject`)"
                ),
            ));
            None
        }
    }
}

/// Raw bytes as they travel in JSON input and output: a base64 string.
pub fn bytes_schema() -> Value {
    json!({"type": "string", "contentEncoding": "base64"})
}

fn responses(cx: &mut Cx, op: &Value, op_loc: &Loc) -> (Option<Output>, Vec<ErrorVariant>) {
    let at = op_loc.at("responses");
    let Some(responses) = op.get("responses").and_then(Value::as_object) else {
        return (None, Vec::new());
    };
    let mut valid: Vec<(StatusKey, &Value, Loc)> = Vec::new();
    for (key, response) in responses {
        let loc = at.at(key);
        if key.starts_with("x-") {
            continue;
        }
        let Some(status) = StatusKey::parse(key) else {
            cx.diags.push(cx.doc.diag(
                Code::InvalidField,
                Severity::Warning,
                &loc,
                format!("`{key}` is not a status code (100-599), a range (1XX-5XX) or `default`; this response is ignored"),
            ));
            continue;
        };
        let Some((response, loc)) = cx.doc.deref(response, &loc, cx.diags) else {
            continue;
        };
        valid.push((status, response, loc));
    }
    // Exact codes sort before ranges, ranges before `default`.
    valid.sort_by_key(|(status, _, _)| *status);
    // Success: the lowest exact 2xx with content, else 2XX.
    let output = valid
        .iter()
        .find(|(status, response, _)| status.is_success() && has_content(response))
        .and_then(|(status, response, loc)| body_output(cx, *status, response, loc));
    let mut errors = Vec::new();
    for (status, response, loc) in &valid {
        if status.is_success() {
            continue;
        }
        let Some(content) = response.get("content").and_then(Value::as_object) else {
            continue;
        };
        let mut json_media: Vec<&String> = content
            .keys()
            .filter(|m| Encoding::of(m) == Encoding::Json)
            .collect();
        json_media.sort_by_key(|m| preference(m));
        let Some(media) = json_media.first() else {
            continue;
        };
        let schema_loc = loc.at("content").at(media).at("schema");
        let schema = content[*media].get("schema").map_or(json!({}), |s| {
            Normalizer::new(cx.doc, cx.diags).normalize(s, &schema_loc)
        });
        errors.push(ErrorVariant {
            binding: ErrorBinding {
                status: *status,
                content_type: (*media).clone().into(),
            },
            schema,
        });
    }
    (output, errors)
}

fn has_content(response: &Value) -> bool {
    response
        .get("content")
        .and_then(Value::as_object)
        .is_some_and(|c| !c.is_empty())
}

fn body_output(cx: &mut Cx, status: StatusKey, response: &Value, loc: &Loc) -> Option<Output> {
    let content = response.get("content").and_then(Value::as_object)?;
    let mut media: Vec<&String> = content.keys().collect();
    media.sort_by_key(|m| preference(m));
    let chosen = media.first()?;
    let encoding = match Encoding::of(chosen) {
        Encoding::Form | Encoding::Multipart => Encoding::Bytes,
        other => other,
    };
    let schema = match encoding {
        Encoding::Json => content[*chosen].get("schema").map_or(json!({}), |s| {
            Normalizer::new(cx.doc, cx.diags)
                .normalize(s, &loc.at("content").at(chosen).at("schema"))
        }),
        Encoding::Text => json!({"type": "string"}),
        _ => bytes_schema(),
    };
    let events = content
        .iter()
        .find(|(media, _)| {
            media
                .split(';')
                .next()
                .is_some_and(|m| m.trim() == "text/event-stream")
        })
        .map(|(media, stream)| {
            let (key, schema) = match (stream.get("itemSchema"), stream.get("schema")) {
                (Some(item), _) => ("itemSchema", item),
                (None, Some(schema)) => ("schema", schema),
                (None, None) => return json!({}),
            };
            Normalizer::new(cx.doc, cx.diags)
                .normalize(schema, &loc.at("content").at(media).at(key))
        });
    Some(Output {
        events,
        binding: ResponseBinding {
            status,
            content_type: (*chosen).clone().into(),
            encoding,
        },
        schema,
        headers: response
            .get("headers")
            .and_then(Value::as_object)
            .map(|headers| headers.keys().map(|h| h.to_ascii_lowercase()).collect())
            .unwrap_or_default(),
    })
}

/// Security requirements: alternatives (OR) of scheme names (AND); `{}` is anonymous.
pub fn security(cx: &mut Cx, requirements: &Value, loc: &Loc) -> Vec<Vec<String>> {
    let Some(list) = requirements.as_array() else {
        cx.diags.push(cx.doc.diag(
            Code::InvalidField,
            Severity::Warning,
            loc,
            "`security` must be a list of requirement objects; it is ignored".to_string(),
        ));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, requirement) in list.iter().enumerate() {
        let Some(map) = requirement.as_object() else {
            continue;
        };
        let mut all = Vec::new();
        for name in map.keys() {
            if cx.schemes.contains_key(name) {
                all.push(name.clone());
            } else {
                cx.diags.push(cx.doc.diag(
                    Code::UnresolvedRef,
                    Severity::Warning,
                    &loc.at(&i.to_string()).at(name),
                    format!("security scheme `{name}` is not defined under components.securitySchemes; it is ignored"),
                ));
            }
        }
        if !all.is_empty() || map.is_empty() {
            out.push(all);
        }
    }
    out
}

/// The operation's wire binding: the one record the catalog's `source.binding`, the client and
/// the docs share.
pub fn binding(
    method: Method,
    path: &str,
    parts: &Parts,
    idempotency_key: Option<String>,
    pagination: Option<Pagination>,
    events: Option<EventStream>,
) -> Binding {
    Binding {
        method,
        path: path.to_string().into(),
        parameters: parts.params.iter().map(|p| p.binding.clone()).collect(),
        body: parts.body.as_ref().map(|b| b.binding.clone()),
        response: parts.output.as_ref().map(|o| o.binding.clone()),
        errors: parts.errors.iter().map(|e| e.binding.clone()).collect(),
        security: parts
            .security
            .iter()
            .map(|all| all.iter().map(|s| s.clone().into()).collect())
            .collect(),
        idempotency_key: idempotency_key.map(Into::into),
        pagination,
        events,
        deep_object_arrays: Default::default(),
    }
}

/// The header that carries an operation's idempotency key: the operation's
/// `x-harn.idempotency_key` (with where it is), else a declared header parameter named
/// `Idempotency-Key` (any case), else, for a method that is not idempotent, the document's
/// `x-harn.idempotencyKey` (checked by the caller).
pub fn idempotency_key(
    cx: &mut Cx,
    method: Method,
    parts: &Parts,
    operation: Option<(&str, Loc)>,
    document: Option<&str>,
) -> Option<String> {
    if let Some((name, at)) = operation {
        return checked_header(cx, name, &at);
    }
    let declared = parts.params.iter().find(|p| {
        p.binding.location == ParamIn::Header
            && p.binding.name.eq_ignore_ascii_case("idempotency-key")
    });
    if let Some(param) = declared {
        return Some(param.binding.name.to_string());
    }
    document
        .filter(|_| !method.is_idempotent())
        .map(str::to_string)
}

/// `name` if it can name a header (an HTTP token), else `None` with an error at `at`.
pub fn checked_header(cx: &mut Cx, name: &str, at: &Loc) -> Option<String> {
    if is_http_token(name) {
        return Some(name.to_string());
    }
    cx.diags.push(cx.doc.diag(
        Code::XHarnInvalid,
        Severity::Error,
        at,
        "an idempotency-key header must be named by an HTTP token (letters, digits and !#$%&'*+-.^_`|~)".to_string(),
    ));
    None
}

/// The tool's error schema: one variant per declared error response, plus `upstream_error`.
pub fn error_schema(errors: &[ErrorVariant]) -> Value {
    let mut variants: Vec<Value> = errors
        .iter()
        .map(|e| {
            let status = match e.binding.status.span() {
                (code, last) if code == last => json!({"const": code}),
                (first, last) => json!({"type": "integer", "minimum": first, "maximum": last}),
            };
            json!({
                "type": "object",
                "properties": {"kind": {"const": e.binding.kind()}, "status": status, "body": e.schema},
                "required": ["kind", "status", "body"],
                "additionalProperties": false
            })
        })
        .collect();
    variants.push(json!({
        "type": "object",
        "description": "An undeclared status or an unparsable body (neither body nor headers are included).",
        "properties": {
            "kind": {"const": "upstream_error"},
            "status": {"type": "integer"},
            "reason": {"type": "string"}
        },
        "required": ["kind", "status", "reason"],
        "additionalProperties": false
    }));
    json!({"oneOf": variants})
}

/// The tool's input schema: one closed object of every parameter and the body.
pub fn input_schema(parts: &Parts) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let params = parts.params.iter().map(|p| {
        let ParamBinding {
            property, required, ..
        } = &p.binding;
        (property, *required, &p.schema)
    });
    let body = parts.body.iter().map(|b| {
        let BodyBinding {
            property, required, ..
        } = &b.binding;
        (property, *required, &b.schema)
    });
    for (property, is_required, schema) in params.chain(body) {
        properties.insert(property.to_string(), schema.clone());
        if is_required {
            required.push(Value::from(property.as_ref()));
        }
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = required.into();
    }
    schema["additionalProperties"] = false.into();
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_variables_are_found_once_each() {
        assert_eq!(path_variables("/a/{x}/b/{y}.{x}"), ["x", "y"]);
        assert!(path_variables("/plain").is_empty());
    }

    #[test]
    fn json_media_types_are_preferred() {
        let mut media = vec![
            "text/plain",
            "application/xml",
            "application/vnd.api+json",
            "application/json",
        ];
        media.sort_by_key(|m| preference(m));
        assert_eq!(
            media,
            [
                "application/json",
                "application/vnd.api+json",
                "text/plain",
                "application/xml"
            ]
        );
    }
}

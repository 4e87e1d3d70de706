//! Document → intermediate model (openapi.md §3): every operation becomes a tool contract with
//! deterministic, collision-free names and CLI paths.

mod check;
mod commands;
pub mod directions;
mod events;
pub mod groups;
mod operation;
mod pagination;
mod tools;

use std::collections::BTreeMap;

use harness_gen_wire::binding::ParamIn;
use serde_json::Value;

use crate::diag::{Code, Diagnostics, Severity};
use crate::load::{Document, Loc};
use crate::model::{Api, ApiInfo, CredentialName, SecurityScheme};
use crate::schemas::Normalizer;
use crate::xharn::{self, DocumentExt};

/// What every step of the mapping shares.
pub struct Cx<'a> {
    /// The document.
    pub doc: &'a Document,
    /// Where problems go.
    pub diags: &'a mut Diagnostics,
    /// Document-level security, for operations without their own.
    pub default_security: Vec<Vec<String>>,
    /// Security schemes that resolved.
    pub schemes: BTreeMap<String, SecurityScheme>,
    /// The components with a request view of their own (`readOnly` and `writeOnly`).
    pub views: directions::Views,
}

/// Maps a loaded document to the model. Problems go to `diags`; the model is returned even
/// when there are errors, so every independent problem is reported in one run.
pub fn map(doc: &Document, diags: &mut Diagnostics) -> Api {
    let root = doc.root();
    check::structure(doc, diags);
    let ext: DocumentExt = match root.get("x-harn") {
        Some(value) => xharn::parse(value, &Loc::main("/x-harn"), "the document", doc, diags)
            .unwrap_or_default(),
        None => DocumentExt::default(),
    };
    let (schemes, credential_names) = security_schemes(doc, diags);
    let mut cx = Cx {
        doc,
        diags,
        default_security: Vec::new(),
        schemes,
        views: directions::Views::default(),
    };
    if let Some(requirements) = root.get("security") {
        cx.default_security = operation::security(&mut cx, requirements, &Loc::main("/security"));
    }
    let mut components = component_schemas(&mut cx);
    cx.views = directions::Views::split(&mut components);
    let tools::Tools {
        operations,
        cli_commands,
        groups,
    } = tools::build(&mut cx, &ext, &components);
    let request_views = std::mem::take(&mut cx.views).finish(&mut components);
    let usual_scheme = cx
        .default_security
        .iter()
        .flatten()
        .find(|name| cx.schemes.contains_key(*name))
        .cloned();
    Api {
        info: info(root),
        servers: servers(root),
        credential_names,
        usual_scheme,
        security_schemes: cx.schemes,
        operations,
        components,
        request_views,
        cli_commands,
        groups,
    }
}

fn info(root: &Value) -> ApiInfo {
    let info = root.get("info");
    let text = |field: &str| {
        info.and_then(|i| i.get(field))
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|s| !s.trim().is_empty())
    };
    let license = info.and_then(|i| i.get("license"));
    ApiInfo {
        title: text("title").unwrap_or_else(|| "api".to_string()),
        version: text("version").unwrap_or_else(|| "0.1.0".to_string()),
        description: text("description").or_else(|| text("summary")),
        license: license
            .and_then(|l| l.get("identifier").or_else(|| l.get("name")))
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

/// Server URLs with every variable at its default.
fn servers(root: &Value) -> Vec<String> {
    let Some(Value::Array(servers)) = root.get("servers") else {
        return Vec::new();
    };
    servers
        .iter()
        .filter_map(|server| {
            let mut url = server.get("url")?.as_str()?.to_string();
            if let Some(Value::Object(vars)) = server.get("variables") {
                for (name, var) in vars {
                    let default = var
                        .get("default")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    url = url.replace(&format!("{{{name}}}"), default);
                }
            }
            Some(url)
        })
        .collect()
}

/// The security schemes that resolve, and what names each one's environment variables. One
/// that does not resolve (e.g. a remote reference) is left out and reported only where an
/// operation uses it; a malformed `x-harn.env` is reported here.
fn security_schemes(
    doc: &Document,
    diags: &mut Diagnostics,
) -> (
    BTreeMap<String, SecurityScheme>,
    BTreeMap<String, CredentialName>,
) {
    let (mut schemes, mut names) = (BTreeMap::new(), BTreeMap::new());
    let Some(Value::Object(raw)) = doc.root().pointer("/components/securitySchemes") else {
        return (schemes, names);
    };
    for (name, raw) in raw {
        let mut quiet = Diagnostics::default();
        let loc = Loc::main("/components/securitySchemes").at(name);
        let Some((scheme, _)) = doc.deref(raw, &loc, &mut quiet) else {
            continue;
        };
        let field = |f: &str| scheme.get(f).and_then(Value::as_str).unwrap_or_default();
        let kind = match field("type") {
            "http" if field("scheme").eq_ignore_ascii_case("basic") => SecurityScheme::Basic,
            "http" if field("scheme").eq_ignore_ascii_case("bearer") => SecurityScheme::Bearer,
            "oauth2" | "openIdConnect" => SecurityScheme::Bearer,
            "apiKey" => SecurityScheme::ApiKey {
                location: match field("in") {
                    "query" => ParamIn::Query,
                    "cookie" => ParamIn::Cookie,
                    _ => ParamIn::Header,
                },
                name: field("name").to_string(),
            },
            other => SecurityScheme::Unsupported(other.to_string()),
        };
        names.insert(
            name.clone(),
            credential_name(name, scheme, &kind, &loc, doc, diags),
        );
        schemes.insert(name.clone(), kind);
    }
    (schemes, names)
}

/// What names the environment variables of the scheme `name` (resolved: `scheme`, of `kind`):
/// its `x-harn.env`, whether it says its credential is a key, and the words that tell it from
/// the others.
fn credential_name(
    name: &str,
    scheme: &Value,
    kind: &SecurityScheme,
    loc: &Loc,
    doc: &Document,
    diags: &mut Diagnostics,
) -> CredentialName {
    const KIND_WORDS: [&str; 10] = [
        "api",
        "key",
        "keys",
        "auth",
        "authentication",
        "token",
        "bearer",
        "basic",
        "http",
        "scheme",
    ];
    let text = |field: &str| {
        scheme
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    let words: Vec<String> = crate::names::snake(name)
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let mentions_key = words.iter().any(|w| w == "key" || w == "keys")
        || ["description", "bearerFormat"].iter().any(|field| {
            let text = text(field);
            text.contains("api key") || text.contains("api_key") || text.contains("apikey")
        });
    let distinct: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !KIND_WORDS.contains(w))
        .collect();
    let distinct = match distinct.is_empty() {
        true => words.join("_"),
        false => distinct.join("_"),
    }
    .to_ascii_uppercase();
    let given = scheme
        .get("x-harn")
        .and_then(|ext| {
            let what = format!("security scheme `{name}`");
            xharn::parse::<xharn::SchemeExt>(ext, &loc.at("x-harn"), &what, doc, diags)
        })
        .and_then(|ext| ext.env)
        .map(|env| env.names());
    let wanted = match kind {
        SecurityScheme::Basic => 2,
        _ => 1,
    };
    let given = match given {
        Some(names) if names.len() != wanted || names.iter().any(|n| !env_name(n)) => {
            diags.push(doc.diag(
                Code::XHarnInvalid,
                Severity::Error,
                &loc.at("x-harn").at("env"),
                format!(
                    "x-harn.env of `{name}` names {wanted} environment variable(s) ({}), each of letters, digits and `_`, not starting with a digit",
                    match wanted {
                        2 => "the user name's, then the password's",
                        _ => "the credential's",
                    }
                ),
            ));
            None
        }
        given => given,
    };
    CredentialName {
        given,
        key: matches!(kind, SecurityScheme::ApiKey { .. }) || mentions_key,
        distinct,
    }
}

/// Whether `name` is a portable environment variable name.
fn env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn component_schemas(cx: &mut Cx) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let Some(Value::Object(schemas)) = cx.doc.root().pointer("/components/schemas") else {
        return out;
    };
    for (name, schema) in schemas {
        let loc = Loc::main("/components/schemas").at(name);
        let normalized = Normalizer::new(cx.doc, cx.diags).normalize(schema, &loc);
        out.insert(name.clone(), normalized);
    }
    out
}

//! Document → intermediate model (openapi.md §3): every operation becomes a tool contract with
//! deterministic, collision-free names and CLI paths.

mod check;
mod commands;
mod events;
pub mod groups;
mod operation;
mod pagination;
mod tools;

use std::collections::BTreeMap;

use harness_gen_wire::binding::ParamIn;
use serde_json::Value;

use crate::diag::Diagnostics;
use crate::load::{Document, Loc};
use crate::model::{Api, ApiInfo, SecurityScheme};
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
    let mut cx = Cx {
        doc,
        diags,
        default_security: Vec::new(),
        schemes: security_schemes(doc),
    };
    if let Some(requirements) = root.get("security") {
        cx.default_security = operation::security(&mut cx, requirements, &Loc::main("/security"));
    }
    let components = component_schemas(&mut cx);
    let tools::Tools {
        operations,
        cli_commands,
        groups,
    } = tools::build(&mut cx, &ext, &components);
    Api {
        info: info(root),
        servers: servers(root),
        security_schemes: cx.schemes,
        operations,
        components,
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

/// The security schemes that resolve. One that does not (e.g. a remote reference) is left out
/// and reported only where an operation uses it.
fn security_schemes(doc: &Document) -> BTreeMap<String, SecurityScheme> {
    let mut out = BTreeMap::new();
    let Some(Value::Object(schemes)) = doc.root().pointer("/components/securitySchemes") else {
        return out;
    };
    for (name, raw) in schemes {
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
        out.insert(name.clone(), kind);
    }
    out
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

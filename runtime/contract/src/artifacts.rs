//! The catalog format's published artifacts, generated from the Rust types: its JSON Schema
//! (Draft 2020-12) and a strict TypeScript declaration. The checked-in copies live in
//! `runtime/schema/`; `cargo run -p harness-gen-cli -- artifacts` rewrites them and a test fails when
//! they drift.

use schemars::Schema;
use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use serde_json::Value;
use ts_rs::{Config, TS};

use crate::binding::*;
use crate::catalog::*;

/// File name of the JSON Schema artifact.
pub const JSON_SCHEMA_FILE: &str = "harn-tools-v2.schema.json";
/// File name of the TypeScript artifact.
pub const TYPESCRIPT_FILE: &str = "harn-tools-v2.d.ts";
/// The `$id` of the published schema.
pub const SCHEMA_ID: &str = "https://harnlang.com/schemas/harn-tools-v2.schema.json";

/// The catalog's JSON Schema, pretty-printed with a trailing newline.
pub fn json_schema() -> String {
    let mut settings = SchemaSettings::draft2020_12();
    // Absent optional fields are omitted and `null` is refused when present, so no field of the
    // format accepts `null` (open values such as `_meta` are `true` schemas and unaffected).
    settings
        .transforms
        .push(Box::new(RecursiveTransform(refuse_null)));
    let generator = settings.into_generator();
    let mut schema = generator.into_root_schema_for::<Catalog>();
    schema.insert("$id".to_string(), SCHEMA_ID.into());
    schema.insert("title".to_string(), "harn-tools/2.0 tool catalog".into());
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

fn refuse_null(schema: &mut Schema) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".to_string(), only);
        }
    }
    if let Some(Value::Array(variants)) = map.get("anyOf") {
        let kept: Vec<Value> = variants
            .iter()
            .filter(|v| v.get("type").is_none_or(|t| t != "null"))
            .cloned()
            .collect();
        if kept.len() == 1 {
            map.remove("anyOf");
            if let Some(Value::Object(only)) = kept.into_iter().next() {
                map.extend(only);
            }
        }
    }
}

/// The TypeScript declaration of the catalog, with every record type and the JSON helpers.
pub fn typescript() -> String {
    let cfg = Config::new();
    let mut out = String::from(
        "// The harn-tools/2.0 catalog format. Generated from harness-gen-contract's Rust types by\n\
         // `cargo run -p harness-gen-cli -- artifacts`; do not edit.\n\n\
         export type JsonValue = number | string | boolean | null | Array<JsonValue> | { readonly [key: string]: JsonValue };\n\n\
         /** A JSON Schema (Draft 2020-12) document. */\n\
         export type JsonSchema = boolean | { readonly [keyword: string]: JsonValue };\n\n\
         /** A JSON Schema whose root is an object schema. */\n\
         export type ObjectJsonSchema = { readonly type: \"object\"; readonly [keyword: string]: JsonValue };\n",
    );
    let decls = [
        Catalog::decl(&cfg),
        Info::decl(&cfg),
        Components::decl(&cfg),
        CliTree::decl(&cfg),
        CommandSpec::decl(&cfg),
        Entry::decl(&cfg),
        Annotations::decl(&cfg),
        Icon::decl(&cfg),
        IconTheme::decl(&cfg),
        Execution::decl(&cfg),
        TaskSupport::decl(&cfg),
        Governance::decl(&cfg),
        Audience::decl(&cfg),
        ToolCli::decl(&cfg),
        ArgumentSpec::decl(&cfg),
        BooleanStyle::decl(&cfg),
        ValueHint::decl(&cfg),
        Source::decl(&cfg),
        SourceBinding::decl(&cfg),
        Binding::decl(&cfg),
        Method::decl(&cfg),
        ParamBinding::decl(&cfg),
        ParamIn::decl(&cfg),
        Style::decl(&cfg),
        BodyBinding::decl(&cfg),
        PartBinding::decl(&cfg),
        Encoding::decl(&cfg),
        ResponseBinding::decl(&cfg),
        ErrorBinding::decl(&cfg),
        Pagination::decl(&cfg),
        PageKind::decl(&cfg),
        EventStream::decl(&cfg),
        DeepArrays::decl(&cfg),
        StatusKey::decl(&cfg),
        Policy::decl(&cfg),
        PolicyKind::decl(&cfg),
        SideEffectLevel::decl(&cfg),
        SchemaVersion::decl(&cfg),
        NonBlank::decl(&cfg),
        CommandPath::decl(&cfg),
        CommandSegment::decl(&cfg),
        OptionName::decl(&cfg),
        MetaKey::decl(&cfg),
        Audiences::decl(&cfg),
        SchemaDoc::decl(&cfg),
        ObjectSchema::decl(&cfg),
    ];
    for decl in decls {
        out.push('\n');
        out.push_str("export ");
        out.push_str(&decl);
        out.push('\n');
    }
    out
}

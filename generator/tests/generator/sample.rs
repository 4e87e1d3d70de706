//! The x-harn sample API in `specs/`: its catalog is reviewed as a snapshot.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::Path;

use harness_gen::diag::Diagnostics;

use crate::common::{types_from, types_of_document};

#[test]
fn the_sample_catalog_matches_its_snapshot() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/petstore.yaml");
    let mut diags = Diagnostics::default();
    let (_, catalog) = harness_gen::pipeline::catalog_of(&spec, None, &mut diags).unwrap();
    crate::common::assert_only_the_listing_report(&diags);
    insta::assert_snapshot!("petstore_catalog", catalog.to_json_pretty());
}

fn types_of(spec: &str) -> String {
    let generated = types_from(&Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(spec));
    let (types, fallbacks) = (generated.file().unwrap(), generated.fallbacks);
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    types
}

#[test]
fn the_sample_types_match_their_snapshot() {
    insta::assert_snapshot!("petstore_types", types_of("specs/petstore.yaml"));
}

#[test]
fn hostile_text_stays_inside_doc_strings_and_names_stay_distinct() {
    let types = types_of("specs/hostile.yaml");
    insta::assert_snapshot!("hostile_types", types);
    // The description's "code" appears only inside doc comments.
    for line in types.lines().filter(|l| l.contains("fn evil")) {
        assert!(line.trim_start().starts_with("///"), "{line}");
    }
    assert!(!types.lines().any(|l| l.trim_start().starts_with("fn main")));
    // Names that collide after case conversion stay distinct.
    // `Match` and `match` are different schemas: both get a type.
    assert!(types.contains("pub type Match = "), "{types}");
    assert!(types.contains("pub struct Match2 {"), "{types}");
    assert!(
        types.contains("pub type_: Option<Match2Type>")
            && types.contains("pub type_2: Option<i64>"),
        "{types}"
    );
}

/// A schema reached twice — as a component's property and again through another component's
/// `allOf` copy or a reference into the component — is one Rust type.
#[test]
fn a_schema_reached_twice_is_one_type() {
    let types = types_of_document(
        "memo.yaml",
        r##"openapi: 3.1.0
info: {title: Memo, version: '1'}
paths:
  /dogs:
    get:
      operationId: listDogs
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  dog: {$ref: '#/components/schemas/Dog'}
                  owner: {$ref: '#/components/schemas/Pet/properties/owner'}
components:
  schemas:
    Pet:
      type: object
      properties:
        owner:
          type: object
          description: Who looks after the pet.
          properties:
            name: {type: string}
            phone: {type: string}
    Dog:
      allOf:
        - $ref: '#/components/schemas/Pet'
        - type: object
          properties:
            barks: {type: boolean}
"##,
    )
    .file()
    .unwrap();
    let structs_with_phone = types.matches("pub phone: Option<String>").count();
    assert_eq!(structs_with_phone, 1, "{types}");
    assert!(types.contains("Who looks after the pet."), "{types}");
}

/// `allOf` of one schema beside nothing but annotations (a reference given its own
/// description, as Nexus writes every `Name`) is that schema, not `serde_json::Value`; with a
/// constraint beside it, it is still merged (and a non-object one still falls back).
#[test]
fn an_all_of_of_one_schema_with_only_annotations_is_that_schema() {
    let generated = types_of_document(
        "allof.yaml",
        r##"openapi: 3.1.0
info: {title: Names, version: '1'}
paths:
  /things:
    get:
      operationId: getThing
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
components:
  schemas:
    Name:
      type: string
      pattern: '^[a-z]+$'
    Thing:
      type: object
      properties:
        name:
          description: The thing's unique name.
          allOf:
            - $ref: '#/components/schemas/Name'
        alias:
          allOf:
            - $ref: '#/components/schemas/Name'
          maxLength: 3
"##,
    );
    assert!(
        generated.file().unwrap().contains("pub name: Option<Name>"),
        "{}",
        generated.file().unwrap()
    );
    assert_eq!(generated.fallbacks.len(), 1, "{:?}", generated.fallbacks);
    assert!(
        generated.fallbacks[0].0.ends_with("/properties/alias"),
        "{:?}",
        generated.fallbacks
    );
}

/// A published crate ships its license's text: the generated crate carries the MIT and
/// Apache-2.0 texts its document's license names (each alone or together), and none for a
/// license whose text the generator does not carry.
#[test]
fn a_crate_ships_the_texts_of_the_mit_and_apache_licenses_its_document_declares() {
    let document = |license: &str| {
        format!(
            "openapi: 3.1.0\ninfo: {{title: Zoo, version: '1', license: {{name: L, identifier: '{license}'}}}}\npaths: {{}}\n"
        )
    };
    let licenses = |license: &str| -> Vec<String> {
        crate::common::crate_files("zoo.yaml", &document(license))
            .into_keys()
            .filter(|path| path.starts_with("LICENSE"))
            .collect()
    };
    assert_eq!(licenses("MIT"), ["LICENSE-MIT"]);
    assert_eq!(licenses("Apache-2.0"), ["LICENSE-APACHE"]);
    assert_eq!(
        licenses("MIT OR Apache-2.0"),
        ["LICENSE-APACHE", "LICENSE-MIT"]
    );
    assert!(licenses("BSD-3-Clause").is_empty());
    let files = crate::common::crate_files("zoo.yaml", &document("MIT"));
    let mit = &files["LICENSE-MIT"];
    assert!(
        mit.starts_with("Copyright (c) The authors of Zoo\n\nPermission is hereby granted"),
        "{mit}"
    );
    assert!(files["Cargo.toml"].contains("license = \"MIT\""));
}

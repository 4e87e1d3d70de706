//! Faithful types: formats, widths, pinned values and the shape of unions (the rules in
//! `emit/types/`). What the generated code does with them at run time is tested on the
//! checked-in crates (the e2e suite's `types` module).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_gen::emit::types::{Extras, Optional};

use crate::common::{HEADER, types_of_document};

/// `types.rs` of a document with no operations and these component schemas (YAML, indented
/// by four), whitespace collapsed so generated code reads as one line.
fn types_of(name: &str, schemas: &str) -> String {
    let text = format!("{HEADER}paths: {{}}\ncomponents:\n  schemas:\n{schemas}");
    let types = types_of_document(name, &text);
    // Lost nothing (a member an earlier one always reads is reported, not lost: the test of
    // that report reads it).
    let lost: Vec<_> = types
        .fallbacks
        .iter()
        .filter(|(_, why)| !why.contains("is never read"))
        .collect();
    assert!(lost.is_empty(), "{lost:?}");
    flat(&types.file().unwrap())
}

/// `code` on one line without its item docs (every item has one; the tests that are about a
/// doc read it through [`documented`]).
fn flat(code: &str) -> String {
    code.lines()
        .filter(|l| !l.trim_start().starts_with("///"))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `code` on one line, docs and all.
fn documented(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

const FORMATS: &str = r#"    Thing:
      type: object
      required: [at, small]
      properties:
        at: {type: string, format: date-time}
        day: {type: string, format: date}
        id: {type: string, format: uuid}
        blob: {type: string, format: byte}
        raw: {type: string, format: binary}
        email: {type: string, format: email}
        small: {type: integer, format: int32}
        big: {type: integer, format: int64}
        count: {type: integer, format: uint32}
        huge: {type: integer, format: uint64}
        tiny: {type: integer, format: int8}
        plain: {type: integer}
        ratio: {type: number, format: float}
        amount: {type: number, format: double}
"#;

#[test]
fn formats_and_widths_map_to_the_types_rust_users_expect() {
    let types = types_of("formats.yaml", FORMATS);
    for field in [
        "pub at: formats::DateTime,",
        "pub day: Option<formats::Date>,",
        "pub id: Option<formats::Uuid>,",
        "pub blob: Option<formats::Bytes>,",
        "pub raw: Option<formats::Upload>,",
        "pub email: Option<String>,",
        "pub small: i32,",
        "pub big: Option<i64>,",
        "pub count: Option<u32>,",
        "pub huge: Option<u64>,",
        "pub tiny: Option<i8>,",
        "pub plain: Option<i64>,",
        "pub ratio: Option<f32>,",
        "pub amount: Option<f64>,",
    ] {
        assert!(types.contains(field), "{field} in {types}");
    }
    // Dates are chrono types with the crate's `dates` feature, strings without it.
    assert!(
        types.contains(
            "#[cfg(feature = \"dates\")] pub use harness_gen_runtime::formats::{Date, DateTime};"
        ) && types.contains("#[cfg(not(feature = \"dates\"))] pub type DateTime = String;"),
        "{types}"
    );
}

#[test]
fn a_build_script_without_dates_writes_them_as_strings() {
    let text = format!("{HEADER}paths: {{}}\ncomponents:\n  schemas:\n{FORMATS}");
    let dir = std::env::temp_dir().join(format!("hg-types-dates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("formats.yaml");
    std::fs::write(&spec, text).unwrap();
    let mut diags = harness_gen::diag::Diagnostics::default();
    let (api, _) = harness_gen::pipeline::catalog_of(&spec, None, &mut diags).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let extras = Extras {
        comparisons: Optional::Always,
        dates: Optional::Never,
        schemas: Optional::Never,
        sent_read: Optional::Always,
    };
    let types = flat(
        &harness_gen::emit::types_file(&api, extras, harness_gen::emit::Gating::All, None)
            .file()
            .unwrap(),
    );
    assert!(types.contains("pub at: String,"), "{types}");
    assert!(types.contains("pub day: Option<String>,"), "{types}");
    assert!(types.contains("pub id: Option<formats::Uuid>,"), "{types}");
    assert!(!types.contains("DateTime"), "{types}");
}

#[test]
fn a_struct_only_requests_carry_is_read_only_with_the_registry() {
    let text = format!(
        "{HEADER}paths:
  /pets:
    post:
      operationId: addPet
      requestBody:
        content:
          application/json:
            schema: {{$ref: '#/components/schemas/NewPet'}}
      responses:
        '200':
          description: The pet.
          content:
            application/json:
              schema: {{$ref: '#/components/schemas/Pet'}}
components:
  schemas:
    Owner:
      type: object
      properties:
        name: {{type: string}}
    NewPet:
      type: object
      properties:
        name: {{type: string}}
        owner: {{$ref: '#/components/schemas/Owner'}}
        collar: {{type: object, properties: {{size: {{type: integer}}}}}}
        picker: {{$ref: '#/components/schemas/TagPicker'}}
    Pet:
      type: object
      properties:
        id: {{type: integer}}
        owner: {{$ref: '#/components/schemas/Owner'}}
    Tag:
      type: object
      properties:
        label: {{type: string}}
    TagPicker:
      type: object
      properties:
        tag: {{$ref: '#/components/schemas/Tag'}}
    Unused:
      type: object
      properties:
        picker: {{$ref: '#/components/schemas/TagPicker'}}
"
    );
    let types = flat(&types_of_document("sent.yaml", &text).file().unwrap());
    let read_by_the_registry = "harness_gen_runtime::object! { #[cfg(feature = \"registry\")]";
    // The input, the body and what only the body contains: written by the SDK, read by the
    // registry's handlers.
    for sent in ["AddPetInput {", "NewPet {", "NewPetCollar {"] {
        assert!(
            types.contains(&format!("{read_by_the_registry} {sent}")),
            "{sent} in {types}"
        );
    }
    // The reply, what requests and replies share, and what a type no request carries contains
    // (`TagPicker`, in the body and in `Unused`, a component no operation uses): always read.
    for read in ["Pet {", "Owner {", "Unused {", "TagPicker {", "Tag {"] {
        assert!(
            types.contains(&format!("harness_gen_runtime::object! {{ {read}")),
            "{read} in {types}"
        );
    }
}

#[test]
fn a_pinned_string_is_a_one_value_enum() {
    let types = types_of(
        "const.yaml",
        "    Message:\n      type: object\n      required: [type]\n      properties:\n        type: {type: string, const: message}\n",
    );
    assert!(types.contains("pub type_: MessageType,"), "{types}");
    assert!(types.contains("pub enum MessageType { Message,"), "{types}");
}

const PETS: &str = r##"    Cat:
      type: object
      required: [petType]
      properties: {petType: {type: string}, purrs: {type: boolean}}
    Dog:
      type: object
      required: [petType]
      properties: {petType: {type: string}, barks: {type: boolean}}
    Pet:
      oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]
      discriminator:
        propertyName: petType
        mapping: {kitty: '#/components/schemas/Cat', cat: Cat}
"##;

#[test]
fn a_discriminator_makes_a_tagged_union_with_its_mapping_and_implicit_names() {
    let types = types_of("pets.yaml", PETS);
    assert!(
        types.contains("pub enum Pet { Cat(Cat), Dog(Dog), Unknown(serde_json::Value), }"),
        "{types}"
    );
    // Cat by both mapping entries (a full reference and a bare name); Dog by its name.
    assert!(
        types.contains(
            r#"harness_gen_runtime::tagged! { Pet "petType" { Cat("kitty", "cat"), Dog("Dog"), } }"#
        ),
        "{types}"
    );
}

#[test]
fn members_that_each_pin_one_property_make_a_tagged_union_without_a_discriminator() {
    // OpenAI's shape: inline members, each with its own `type`, one by `const`, one by a
    // one-value `enum`; a shared `role` pinned to the same value cannot tell them apart.
    let types = types_of(
        "items.yaml",
        r#"    Item:
      anyOf:
        - type: object
          title: Message
          required: [role, type]
          properties:
            role: {type: string, const: user}
            type: {type: string, const: message}
            text: {type: string}
        - type: object
          title: Call
          required: [role, type]
          properties:
            role: {type: string, enum: [user]}
            type: {type: string, enum: [tool_call]}
            name: {type: string}
"#,
    );
    assert!(
        types.contains(r#"harness_gen_runtime::tagged! { Item "type" { Message("message"), ToolCall("tool_call"), } }"#),
        "{types}"
    );
}

#[test]
fn members_a_tag_cannot_tell_apart_stay_untagged_with_the_most_specific_first() {
    let types = types_of(
        "loose.yaml",
        r#"    Loose:
      oneOf:
        - {type: object, title: Open, properties: {a: {type: string}}}
        - {type: string, title: Text}
        - {type: number, title: Amount}
        - {type: object, title: One, required: [a], properties: {a: {type: string}}}
        - {type: integer, title: Count}
        - {type: object, title: Two, required: [a, b], properties: {a: {type: string}, b: {type: string}}}
        - {type: string, format: uuid, title: Id}
"#,
    );
    assert!(
        types.contains(
            "#[serde(untagged)] pub enum Loose { Count(i64), Id(formats::Uuid), Two(LooseTwo), One(LooseOne), Amount(f64), Text(String), Open(LooseOpen), }"
        ),
        "{types}"
    );
}

#[test]
fn a_discriminator_whose_members_are_not_objects_with_its_property_stays_untagged() {
    let types = types_of(
        "odd.yaml",
        r##"    Cat:
      type: object
      properties: {purrs: {type: boolean}}
    Odd:
      oneOf: [{$ref: '#/components/schemas/Cat'}, {type: string}]
      discriminator: {propertyName: kind}
"##,
    );
    assert!(
        types.contains("#[serde(untagged)] pub enum Odd {"),
        "{types}"
    );
    assert!(!types.contains("tagged!"), "{types}");
}

const REPEATED: &str = r#"    Charge:
      type: object
      properties:
        status: {type: string, enum: [paid, open]}
        refunds: {type: object, required: [object], properties: {object: {type: string, enum: [list]}}}
    Invoice:
      type: object
      properties:
        status: {type: string, enum: [paid, open]}
        refunds: {type: object, required: [object], properties: {object: {type: string, enum: [list]}}}
    Payout:
      type: object
      properties:
        status: {type: string, enum: [paid, open, failed]}
        note: {type: string, description: The payout's note.}
    Refund:
      type: object
      properties:
        status: {type: string, enum: [paid, open, failed]}
        note: {type: string, description: The refund's note.}
"#;

#[test]
fn schemas_of_one_shape_are_one_type_and_every_name_stays() {
    let types = types_of("repeated.yaml", REPEATED);
    // The first of a shape keeps it; later ones alias it, with their own name.
    assert_eq!(
        types.matches("pub enum ChargeStatus ").count(),
        1,
        "{types}"
    );
    assert!(
        types.contains("pub type InvoiceStatus = ChargeStatus;"),
        "{types}"
    );
    assert!(!types.contains("pub enum InvoiceStatus "), "{types}");
    // Structs whose fields use merged types become one too, once those have.
    assert!(
        types.contains("pub type InvoiceRefundsObject = ChargeRefundsObject;"),
        "{types}"
    );
    assert!(
        types.contains("pub type InvoiceRefunds = ChargeRefunds;"),
        "{types}"
    );
    assert!(types.contains("pub type Invoice = Charge;"), "{types}");
    // An alias with no doc of its own says what it is.
    let text = format!("{HEADER}paths: {{}}\ncomponents:\n  schemas:\n{REPEATED}");
    let docs = documented(&types_of_document("repeated.yaml", &text).file().unwrap());
    assert!(
        docs.contains(
            "/// The same shape as [`ChargeRefunds`], so the same type. pub type InvoiceRefunds"
        ),
        "{docs}"
    );
    // A different variant set is a different type.
    assert!(types.contains("pub enum PayoutStatus "), "{types}");
}

#[test]
fn field_docs_keep_two_shapes_apart() {
    // Payout and Refund differ only in a field's doc: merging would give one of them the
    // other's documentation, so they stay two types (their status enums still merge).
    let types = types_of("repeated.yaml", REPEATED);
    assert!(types.contains("pub struct Payout "), "{types}");
    assert!(types.contains("pub struct Refund "), "{types}");
    assert!(
        types.contains("pub type RefundStatus = PayoutStatus;"),
        "{types}"
    );
}

#[test]
fn operations_with_the_same_declared_errors_share_one_error_enum() {
    let text = format!(
        "{HEADER}{}",
        r#"paths:
  /a:
    get:
      operationId: getA
      responses:
        '200': {description: ok}
        default: {description: failed, content: {application/json: {schema: {$ref: '#/components/schemas/Failure'}}}}
  /b:
    get:
      operationId: getB
      responses:
        '200': {description: ok}
        default: {description: failed, content: {application/json: {schema: {$ref: '#/components/schemas/Failure'}}}}
  /c:
    get:
      operationId: getC
      responses:
        '200': {description: ok}
        '404': {description: gone, content: {application/json: {schema: {$ref: '#/components/schemas/Failure'}}}}
components:
  schemas:
    Failure: {type: object, properties: {message: {type: string}}}
"#
    );
    let types = flat(&types_of_document("errors.yaml", &text).file().unwrap());
    assert_eq!(
        types
            .matches("harness_gen_runtime::operation_error!")
            .count(),
        2,
        "{types}"
    );
    // Named for what it holds, each operation's own name an alias of it.
    assert!(types.contains("pub enum HttpDefaultError "), "{types}");
    assert!(
        types.contains("pub type GetAError = HttpDefaultError;"),
        "{types}"
    );
    assert!(
        types.contains("pub type GetBError = HttpDefaultError;"),
        "{types}"
    );
    assert!(types.contains("pub enum GetCError "), "{types}");
}

#[test]
fn a_schema_named_like_a_public_type_of_another_module_takes_a_name_of_its_own() {
    let types = types_of(
        "names.yaml",
        r#"    Client: {type: object, properties: {id: {type: string}}}
    Pages: {type: object, properties: {n: {type: integer}}}
    Download: {type: string}
"#,
    );
    for taken in ["Client", "Pages", "Download"] {
        assert!(!types.contains(&format!("pub struct {taken} ")), "{types}");
        assert!(!types.contains(&format!("pub type {taken} ")), "{types}");
    }
    assert!(types.contains("pub struct Client2 "), "{types}");
    assert!(types.contains("pub struct Pages2 "), "{types}");
    assert!(types.contains("pub type Download2 "), "{types}");
}

#[test]
fn members_are_named_by_their_tag_before_their_component_or_title() {
    // The discriminator's values name the members, as `role` does in OpenAI's messages.
    let types = types_of(
        "messages.yaml",
        r#"    ChatMessage:
      oneOf:
        - $ref: '#/components/schemas/ChatUserMessage'
        - $ref: '#/components/schemas/ChatAssistantMessage'
      discriminator:
        propertyName: role
        mapping: {user: '#/components/schemas/ChatUserMessage', assistant: '#/components/schemas/ChatAssistantMessage'}
    ChatUserMessage:
      type: object
      title: From the user
      required: [role]
      properties:
        role: {type: string, enum: [user]}
    ChatAssistantMessage:
      type: object
      required: [role]
      properties:
        role: {type: string, enum: [assistant]}
"#,
    );
    assert!(
        types.contains(
            "pub enum ChatMessage { User(ChatUserMessage), Assistant(ChatAssistantMessage),"
        ),
        "{types}"
    );
}

#[test]
fn a_components_name_drops_the_words_it_shares_with_the_union_and_the_other_members() {
    let types = types_of(
        "formats.yaml",
        r#"    ResponseFormatOption:
      oneOf:
        - {type: string, enum: [auto]}
        - $ref: '#/components/schemas/ResponseFormatText'
        - $ref: '#/components/schemas/ResponseFormatJsonSchema'
    ResponseFormatText:
      type: object
      properties:
        text: {type: string}
    ResponseFormatJsonSchema:
      type: object
      properties:
        schema: {type: object}
"#,
    );
    assert!(types.contains("Auto(ResponseFormatOptionAuto)"), "{types}");
    assert!(types.contains("Text(ResponseFormatText)"), "{types}");
    assert!(
        types.contains("JsonSchema(ResponseFormatJsonSchema)"),
        "{types}"
    );
    assert!(!types.contains("Variant"), "{types}");
}

#[test]
fn members_without_names_are_named_by_what_tells_them_apart_then_by_type() {
    let types = types_of(
        "inputs.yaml",
        r#"    ModerationInput:
      oneOf:
        - type: string
        - type: array
          items: {type: string}
        - type: array
          items: {$ref: '#/components/schemas/ImageUrl'}
        - type: integer
    ImageUrl:
      type: object
      properties:
        url: {type: string}
    Rule:
      anyOf:
        - type: object
          properties:
            id: {type: integer}
            wait_timer: {type: integer}
        - type: object
          properties:
            id: {type: integer}
            reviewers: {type: array, items: {type: string}}
"#,
    );
    for name in [
        "String(String)",
        "StringList(Vec<String>)",
        "ImageUrlList(Vec<ImageUrl>)",
        "Integer(i64)",
        "WaitTimer(RuleWaitTimer)",
        "Reviewers(RuleReviewers)",
    ] {
        assert!(types.contains(name), "{name}: {types}");
    }
    assert!(!types.contains("Variant"), "{types}");
}

#[test]
fn any_string_beside_known_strings_is_one_enum_with_other() {
    // OpenAI's model ids and Stripe's "" for unset: an open enum, not a union.
    let types = types_of(
        "models.yaml",
        r#"    ModelId:
      anyOf:
        - type: string
        - type: string
          enum: [gpt-4o, gpt-4o-mini]
    SupportUrl:
      anyOf:
        - {type: string, maxLength: 5000}
        - {type: string, enum: [""]}
"#,
    );
    assert!(
        types.contains("pub enum ModelId { Gpt4o, Gpt4oMini, Other(String), }"),
        "{types}"
    );
    assert!(types.contains("pub enum SupportUrl { Empty,"), "{types}");
    assert!(
        types.contains(
            r#"string_enum! { ModelId { "gpt-4o" => Gpt4o, "gpt-4o-mini" => Gpt4oMini, } }"#
        ),
        "{types}"
    );
}

#[test]
fn a_union_that_only_says_which_properties_are_required_is_the_object() {
    // OpenAI's "file_ids or files", GitHub's "at least one of these settings".
    let types = types_of(
        "batch.yaml",
        r#"    Batch:
      type: object
      properties:
        file_ids: {type: array, items: {type: string}}
        files: {type: array, items: {type: string}}
      anyOf:
        - required: [file_ids]
        - required: [files]
"#,
    );
    assert!(
        types.contains(
            "pub struct Batch { pub file_ids: Option<Vec<String>>, pub files: Option<Vec<String>>,"
        ),
        "{types}"
    );
}

#[test]
fn the_nullable_reference_idiom_is_an_option_and_a_doubled_required_name_counts_once() {
    let text = format!(
        "{HEADER}paths: {{}}\ncomponents:\n  schemas:\n{}",
        r#"    Run:
      type: object
      required: [id, tool_choice, id]
      properties:
        id: {type: string}
        tool_choice:
          allOf:
            - $ref: '#/components/schemas/Choice'
            - nullable: true
    Choice:
      type: object
      properties:
        name: {type: string}
"#
    )
    .replace("openapi: 3.1.0", "openapi: 3.0.3");
    let types = types_of_document("run.yaml", &text);
    assert!(types.fallbacks.is_empty(), "{:?}", types.fallbacks);
    let types = flat(&types.file().unwrap());
    assert!(
        types.contains("pub struct Run { pub id: String, pub tool_choice: Option<Choice>,"),
        "{types}"
    );
}

/// The distinct identifiers built on a positional `VariantN` in `code`.
fn positional_names(code: &str) -> std::collections::BTreeSet<String> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| {
            word.match_indices("Variant")
                .any(|(i, _)| word[i + "Variant".len()..].starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn the_large_apis_name_every_union_member_by_what_it_means() {
    // Before names from meaning: OpenAI 80 distinct `VariantN` names, Stripe 657, GHES 34.
    for (document, at_most) in [
        ("openai.openapi.2026-08-21.json", 0),
        ("spec3.2023-09-12.yaml", 0),
        ("ghes-3.6.descriptions-next.2023-03-08.json", 0),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/corpus/large")
            .join(document);
        let names = positional_names(&crate::common::types_from(&path).file().unwrap());
        assert!(names.len() <= at_most, "{document}: {names:?}");
    }
}

#[test]
fn a_union_member_an_earlier_member_always_reads_is_reported() {
    let text = format!(
        "{HEADER}paths: {{}}\ncomponents:\n  schemas:\n{}",
        r#"    A:
      type: object
      properties: {a: {type: string}}
    B:
      type: object
      properties: {b: {type: string}}
    AorB:
      anyOf: [{$ref: '#/components/schemas/A'}, {$ref: '#/components/schemas/B'}]
    Told:
      anyOf:
        - {type: object, required: [a], properties: {a: {type: string}}}
        - {type: object, required: [b], properties: {b: {type: string}}}
"#
    );
    let types = types_of_document("shadow.yaml", &text);
    let reported: Vec<&(String, String)> = types
        .fallbacks
        .iter()
        .filter(|(_, why)| why.contains("never read"))
        .collect();
    assert_eq!(reported.len(), 1, "{:?}", types.fallbacks);
    assert_eq!(reported[0].0, "#/components/schemas/AorB");
    assert!(
        reported[0]
            .1
            .contains("member `B` is never read: `A`, tried first"),
        "{}",
        reported[0].1
    );
}

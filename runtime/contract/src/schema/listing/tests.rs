use super::*;
use serde_json::json;

/// Lists `schema` over `components` in `role` within `budget`.
fn list(components: &BTreeMap<&str, Value>, schema: &Value, budget: Budget, role: Role) -> Value {
    let lookup = |name: &str| components.get(name);
    let prepared = Prepared::new(components.keys().copied());
    Lister::new(&lookup, &prepared, budget).list(schema, "t", role)
}

/// A budget of `bytes` for the input schema alone.
fn input_budget(depth: usize, bytes: usize) -> Budget {
    Budget {
        depth,
        bytes: bytes.saturating_mul(4) / 3,
    }
}

fn size(value: &Value) -> usize {
    serde_json::to_string(value).unwrap().len()
}

/// A chain A → B → C → D of components, each with a description.
fn chain() -> BTreeMap<&'static str, Value> {
    let mut out = BTreeMap::new();
    for (name, next) in [
        ("A", Some("B")),
        ("B", Some("C")),
        ("C", Some("D")),
        ("D", None),
    ] {
        let mut schema = json!({"type": "object", "description": format!("{name} doc"),
            "properties": {"pad": {"type": "string", "description": "x".repeat(200)}}});
        if let Some(next) = next {
            schema["properties"]["next"] = json!({"$ref": format!("#/components/schemas/{next}")});
            schema["properties"]["inside"] =
                json!({"$ref": format!("#/components/schemas/{next}/properties/pad")});
        }
        out.insert(name, schema);
    }
    out
}

#[test]
fn a_one_of_whose_branch_was_abbreviated_is_listed_as_any_of_unless_a_const_tells_them_apart() {
    // Two events; past the depth, `Done` is a stub that would match every event.
    let components: BTreeMap<&str, Value> = [
        ("Deep", json!({"type": "object", "properties": {"x": {"type": "string"}}})),
        ("Mid", json!({"type": "object", "properties": {"deep": {"$ref": "#/components/schemas/Deep"}}})),
        ("Done", json!({"type": "object", "required": ["event"], "properties": {
            "event": {"enum": ["done"]}, "mid": {"$ref": "#/components/schemas/Mid"}}})),
        ("Step", json!({"type": "object", "required": ["event"], "properties": {"event": {"enum": ["step"]}}})),
    ]
    .into_iter()
    .collect();
    let union = json!({"oneOf": [
        {"$ref": "#/components/schemas/Step"},
        {"$ref": "#/components/schemas/Done"}
    ]});
    let listed = list(
        &components,
        &union,
        input_budget(1, usize::MAX / 2),
        Role::Input,
    );
    assert!(listed.get("oneOf").is_none(), "{listed}");
    assert_eq!(
        listed["anyOf"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
    // Within budget and depth nothing is abbreviated: the `oneOf` stays.
    let whole = list(
        &components,
        &union,
        input_budget(4, usize::MAX / 2),
        Role::Input,
    );
    assert!(whole.get("oneOf").is_some(), "{whole}");
    // Branches a required `const` tells apart never overlap, abbreviated or not.
    let tagged = json!({"oneOf": [
        {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "a"}, "mid": {"$ref": "#/components/schemas/Mid"}}},
        {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "b"}}}
    ]});
    let listed = list(
        &components,
        &tagged,
        input_budget(0, usize::MAX / 2),
        Role::Input,
    );
    assert!(listed.get("oneOf").is_some(), "{listed}");
}

#[test]
fn a_listing_copies_components_to_its_depth_and_stubs_the_next_ring() {
    let components = chain();
    let root = json!({"$ref": "#/components/schemas/A"});
    let listed = list(
        &components,
        &root,
        input_budget(2, usize::MAX / 2),
        Role::Input,
    );
    let defs = listed["$defs"].as_object().unwrap();
    assert_eq!(defs.keys().collect::<Vec<_>>(), ["A", "B", "C"]);
    assert!(
        defs["B"].get("properties").is_some(),
        "B is within the depth"
    );
    assert_eq!(defs["C"]["type"], "object");
    assert!(defs["C"].get("properties").is_none(), "C is a stub");
    assert_eq!(defs["C"]["description"], "C doc\n\n(Abbreviated.)");
    // A reference into a stub has nothing to point at: it is dropped (accepting more).
    assert_eq!(defs["B"]["properties"]["inside"], json!({}));
    assert_eq!(
        defs["A"]["properties"]["inside"]["$ref"],
        "#/$defs/B/properties/pad"
    );
    // The listed schema is a valid 2020-12 schema whose references all resolve.
    jsonschema::draft202012::new(&listed).expect("valid");
}

#[test]
fn over_budget_a_listing_drops_nested_prose_before_lowering_the_depth() {
    let components = chain();
    let root = json!({"$ref": "#/components/schemas/A"});
    let whole = list(
        &components,
        &root,
        input_budget(3, usize::MAX / 2),
        Role::Input,
    );
    let budget = input_budget(3, size(&whole) - 1);
    let listed = list(&components, &root, budget, Role::Input);
    let defs = listed["$defs"].as_object().unwrap();
    assert_eq!(defs.len(), 4, "still at depth 3: {listed}");
    assert_eq!(
        defs["A"]["description"], "A doc",
        "a copy keeps its own description"
    );
    assert!(defs["A"]["properties"]["pad"].get("description").is_none());
    // Tighter, the depth goes down until it fits, to 0 at worst.
    let listed = list(&components, &root, input_budget(3, 900), Role::Input);
    assert!(size(&listed) <= 900, "{listed}");
    let listed = list(&components, &root, input_budget(3, 1), Role::Input);
    let defs = listed["$defs"].as_object().unwrap();
    assert_eq!(
        defs.keys().collect::<Vec<_>>(),
        ["A"],
        "depth 0: references are stubs"
    );
    assert!(defs["A"].get("properties").is_none());
}

#[test]
fn over_budget_at_depth_0_a_schema_cuts_its_own_nesting_down_to_its_first_level() {
    let leaf = json!({"type": "string", "enum": ["a", "b"], "description": "Leaf."});
    let root = json!({"type": "object", "properties": {
        "top": {"type": "object", "description": "Top.", "properties": {
            "mid": {"type": "object", "properties": {
                "inner": {"type": "object", "properties": {"leaf": leaf}}}}}}}});
    let components = BTreeMap::new();
    let whole = list(
        &components,
        &root,
        input_budget(2, usize::MAX / 2),
        Role::Input,
    );
    assert_eq!(whole, root);
    let mut terse = root.clone();
    strip_prose(&mut terse, 2);
    let listed = list(
        &components,
        &root,
        input_budget(2, size(&terse) - 5),
        Role::Input,
    );
    let mid = &listed["properties"]["top"]["properties"]["mid"];
    assert_eq!(
        mid["properties"]["inner"],
        json!({"type": "object", "description": "(Abbreviated.)"}),
        "level 3 is cut: {listed}"
    );
    let listed = list(&components, &root, input_budget(2, 1), Role::Input);
    let top = &listed["properties"]["top"];
    assert_eq!(top["description"], "Top.", "the first level stays whole");
    assert_eq!(
        top["properties"]["mid"],
        json!({"type": "object", "description": "(Abbreviated.)"})
    );
}

#[test]
fn each_role_has_its_share_of_a_tools_budget() {
    let budget = Budget {
        depth: 2,
        bytes: 8192,
    };
    assert_eq!(budget.share(Role::Input), 6144);
    assert_eq!(budget.share(Role::Output), 1536);
    assert_eq!(budget.share(Role::Error), 512);
}

#[test]
fn error_variants_differing_only_in_constants_are_merged_when_over_budget() {
    let variant = |status: u16| {
        json!({"type": "object", "properties": {
            "kind": {"const": format!("http_{status}")}, "status": {"const": status},
            "body": {"type": "object"}}, "required": ["kind", "status", "body"]})
    };
    let other = json!({"type": "object", "properties": {"kind": {"const": "upstream_error"},
        "reason": {"type": "string"}}});
    let schema = json!({"oneOf": [variant(404), variant(409), other.clone()]});
    let listed = list(
        &BTreeMap::new(),
        &schema,
        Budget {
            depth: 2,
            bytes: 16 * 300,
        },
        Role::Error,
    );
    assert_eq!(
        listed,
        json!({"anyOf": [{"type": "object", "properties": {
            "kind": {"enum": ["http_404", "http_409"]}, "status": {"enum": [404, 409]},
            "body": {"type": "object"}}, "required": ["kind", "status", "body"]}, other]})
    );
}

#[test]
fn expandable_unions_past_the_tool_schema_show_the_object_as_a_bare_summary() {
    let components: BTreeMap<&str, Value> = BTreeMap::from([
        (
            "Charge",
            json!({"type": "object", "properties": {
            "customer": {"description": "Who paid.", "anyOf": [
                {"type": "string", "maxLength": 5000},
                {"$ref": "#/components/schemas/Customer"}]}}}),
        ),
        (
            "Customer",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        ),
    ]);
    let root = json!({"type": "object", "properties": {
        "charge": {"$ref": "#/components/schemas/Charge"},
        "customer": {"anyOf": [{"type": "string"}, {"$ref": "#/components/schemas/Customer"}]}}});
    let listed = list(&components, &root, Budget::DEFAULT, Role::Input);
    assert_eq!(
        listed["$defs"]["Charge"]["properties"]["customer"],
        json!({"description": "Who paid.", "anyOf": [
            {"type": "string", "maxLength": 5000}, {"type": "object"}]})
    );
    // In the tool's own schema the object form stays, and what it references is copied.
    assert!(listed["properties"]["customer"].get("anyOf").is_some());
    assert!(listed["$defs"].get("Customer").is_some());
}

#[test]
fn copies_move_aside_for_the_schemas_own_defs_and_keep_pointing_at_each_other() {
    let components: BTreeMap<&str, Value> = BTreeMap::from([
        (
            "A",
            json!({"properties": {"b": {"$ref": "#/components/schemas/B"}, "me": {"$ref": "#"}}}),
        ),
        ("B", json!({"type": "integer"})),
    ]);
    let root = json!({"$defs": {"A": {"type": "null"}}, "anyOf": [
        {"$ref": "#/$defs/A"}, {"$ref": "#/components/schemas/A"}]});
    let listed = list(&components, &root, Budget::DEFAULT, Role::Input);
    assert_eq!(listed["anyOf"][1]["$ref"], "#/$defs/A_2");
    assert_eq!(
        listed["$defs"]["A_2"]["properties"]["me"]["$ref"],
        "#/$defs/A_2"
    );
    assert_eq!(
        listed["$defs"]["A_2"]["properties"]["b"]["$ref"],
        "#/$defs/B"
    );
    assert_eq!(listed["$defs"]["A"], json!({"type": "null"}));
}

#[test]
fn a_component_that_cannot_move_is_copied_in_its_permissive_form() {
    let components: BTreeMap<&str, Value> = BTreeMap::from([(
        "Tree",
        json!({"type": "object", "title": "Tree", "properties": {"kids": {"$dynamicRef": "#node"}}}),
    )]);
    let root = json!({"type": "object", "properties": {"tree": {"$ref": "#/components/schemas/Tree"}, "n": {"type": "integer"}}});
    let listed = list(&components, &root, Budget::DEFAULT, Role::Input);
    assert_eq!(
        listed["properties"]["n"],
        json!({"type": "integer"}),
        "the rest stays"
    );
    let tree = &listed["$defs"]["Tree"];
    assert!(tree.get("properties").is_none());
    assert!(
        tree["description"]
            .as_str()
            .unwrap()
            .contains("$dynamicRef")
    );
    jsonschema::draft202012::new(&listed).expect("valid");
}

#[test]
fn a_refused_schema_falls_back_to_one_that_accepts_more_and_says_why() {
    let schema = json!({"type": "object", "title": "T", "description": "D",
        "properties": {"x": {"$recursiveRef": "#"}}, "required": ["x"]});
    let fallback = list(&BTreeMap::new(), &schema, Budget::DEFAULT, Role::Input);
    assert_eq!(fallback["type"], "object");
    assert_eq!(fallback["title"], "T");
    let description = fallback["description"].as_str().unwrap();
    assert!(description.starts_with("D\n\n(Shown without its full schema: "));
    assert!(description.contains("$recursiveRef"), "{description}");
    assert!(fallback.get("required").is_none() && fallback.get("properties").is_none());
}

#[test]
fn a_stub_whose_description_only_repeats_its_title_shows_the_note_alone() {
    let stubbed = stub(
        &json!({"type": "object", "title": "Basic Error", "description": "Basic Error", "properties": {}}),
    );
    assert_eq!(
        stubbed,
        json!({"type": "object", "title": "Basic Error", "description": "(Abbreviated.)"})
    );
}

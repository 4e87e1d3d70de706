//! `readOnly` and `writeOnly` by direction (OpenAPI 3.0 §4.7.25 and 3.1's JSON Schema): a
//! request never carries what the server assigns, and a reply never has to carry a secret.
//!
//! Every schema has two views, computed once here, where the document's schemas are prepared:
//!
//! - the **request view** (a body's, a parameter's): a `readOnly` property is neither
//!   required nor accepted: its schema becomes `false`, so a value given for it is refused at
//!   its own pointer (`/body/id`) instead of being sent or dropped;
//! - the **reply view** (an output's, a declared error's, an event's): a `writeOnly` property
//!   is not required.
//!
//! Both apply through `$ref`, `allOf`, arrays, maps and unions. A component whose two views
//! are the same (most of them) stays one component; one whose views differ, by its own
//! properties or through a component it references, is its reply view under its own name and
//! its request view under `<name>Request` (another name if that is taken), which request
//! schemas reference instead. `additionalProperties: false` keeps its meaning in each view.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

const COMPONENTS: &str = "#/components/schemas/";

/// The components with two views, and where their request views are.
#[derive(Debug, Default)]
pub struct Views {
    /// Component → the name of its request view, for every component whose views differ.
    names: BTreeMap<String, String>,
    /// The components whose request views a request schema reached.
    used: BTreeSet<String>,
}

impl Views {
    /// Splits `components` by direction: each becomes its reply view, and each whose request
    /// view differs gains that view as a component of its own (kept by [`Views::finish`] only
    /// if a request reaches it).
    pub fn split(components: &mut BTreeMap<String, Value>) -> Views {
        let two = two_views(components);
        let mut taken: BTreeSet<String> = components.keys().cloned().collect();
        let mut views = Views::default();
        for name in two {
            let base = format!("{name}Request");
            let mut request = base.clone();
            let mut n = 2;
            while taken.contains(&request) {
                request = format!("{base}{n}");
                n += 1;
            }
            taken.insert(request.clone());
            views.names.insert(name, request);
        }
        let mut made = BTreeMap::new();
        for (name, request) in &views.names {
            let mut schema = components[name].clone();
            request_view(&views.names, &mut schema, &mut BTreeSet::new());
            made.insert(request.clone(), schema);
        }
        for schema in components.values_mut() {
            for_reply(schema);
        }
        components.extend(made);
        views
    }

    /// `schema` as a request carries it: `readOnly` properties refused and not required,
    /// references to components with two views pointing at their request views.
    pub fn for_request(&mut self, schema: &mut Value) {
        request_view(&self.names, schema, &mut self.used);
    }

    /// Removes from `components` the request views no request reaches (directly or through
    /// another request view); returns component → its request view, for those kept.
    pub fn finish(self, components: &mut BTreeMap<String, Value>) -> BTreeMap<String, String> {
        let of: BTreeMap<&str, &str> = self
            .names
            .iter()
            .map(|(name, view)| (view.as_str(), name.as_str()))
            .collect();
        let mut kept: BTreeSet<String> = BTreeSet::new();
        let mut next: Vec<String> = self.used.into_iter().collect();
        while let Some(name) = next.pop() {
            if !kept.insert(name.clone()) {
                continue;
            }
            harness_gen_contract::schema::visit(&components[&self.names[&name]], &mut |_, map| {
                let target = map.get("$ref").and_then(Value::as_str).and_then(component);
                if let Some(name) = target.and_then(|t| of.get(t.as_str())) {
                    next.push(name.to_string());
                }
            });
        }
        let mut made = BTreeMap::new();
        for (name, view) in self.names {
            if kept.contains(&name) {
                made.insert(name, view);
            } else {
                components.remove(&view);
            }
        }
        made
    }
}

/// [`Views::for_request`] with the request view names `names`, recording in `used` the
/// components whose views it points at.
fn request_view(names: &BTreeMap<String, String>, schema: &mut Value, used: &mut BTreeSet<String>) {
    harness_gen_contract::schema::visit_mut(schema, &mut |map| {
        if let Some(Value::String(reference)) = map.get_mut("$ref")
            && let Some(name) = component(reference)
            && let Some(request) = names.get(&name)
        {
            *reference = format!(
                "{COMPONENTS}{}",
                harness_gen_contract::schema::escape(request)
            );
            used.insert(name);
        }
        // A discriminator's mapping names the members as the references do.
        if let Some(Value::Object(mapping)) = map
            .get_mut("discriminator")
            .and_then(|d| d.get_mut("mapping"))
        {
            for target in mapping.values_mut() {
                let Value::String(target) = target else {
                    continue;
                };
                let name = component(target).unwrap_or_else(|| target.clone());
                if let Some(request) = names.get(&name) {
                    *target = match target.starts_with('#') {
                        true => format!(
                            "{COMPONENTS}{}",
                            harness_gen_contract::schema::escape(request)
                        ),
                        false => request.clone(),
                    };
                    used.insert(name);
                }
            }
        }
        let read_only = flagged(map, "readOnly");
        for name in &read_only {
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                properties.insert(name.clone(), Value::Bool(false));
            }
        }
        unrequire(map, &read_only);
    });
}

/// `schema` as a reply carries it: `writeOnly` properties not required.
pub fn for_reply(schema: &mut Value) {
    harness_gen_contract::schema::visit_mut(schema, &mut |map| {
        let write_only = flagged(map, "writeOnly");
        unrequire(map, &write_only);
    });
}

/// The properties of `map` whose schemas say `flag: true`.
fn flagged(map: &Map<String, Value>, flag: &str) -> Vec<String> {
    let Some(Value::Object(properties)) = map.get("properties") else {
        return Vec::new();
    };
    properties
        .iter()
        .filter(|(_, schema)| schema.get(flag) == Some(&Value::Bool(true)))
        .map(|(name, _)| name.clone())
        .collect()
}

/// `map` without `names` in its `required` (and without an empty `required`).
fn unrequire(map: &mut Map<String, Value>, names: &[String]) {
    if names.is_empty() {
        return;
    }
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|name| !name.as_str().is_some_and(|n| names.iter().any(|x| x == n)));
        if required.is_empty() {
            map.remove("required");
        }
    }
}

/// The component a reference names as a whole.
fn component(reference: &str) -> Option<String> {
    let name = reference.strip_prefix(COMPONENTS)?;
    (!name.contains('/')).then(|| harness_gen_contract::schema::unescape(name))
}

/// The components whose request and reply views differ: those with a `readOnly` property or
/// a required `writeOnly` one anywhere in their own schema, and those that reference one.
fn two_views(components: &BTreeMap<String, Value>) -> BTreeSet<String> {
    let mut own = BTreeSet::new();
    let mut references: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (name, schema) in components {
        let mut differs = false;
        let refs = references.entry(name).or_default();
        harness_gen_contract::schema::visit(schema, &mut |_, map| {
            if let Some(target) = map.get("$ref").and_then(Value::as_str).and_then(component) {
                refs.insert(target);
            }
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            differs |= !flagged(map, "readOnly").is_empty()
                || flagged(map, "writeOnly")
                    .iter()
                    .any(|name| required.contains(&name.as_str()));
        });
        if differs {
            own.insert(name.clone());
        }
    }
    let mut two = own;
    loop {
        let before = two.len();
        for (name, refs) in &references {
            if !two.contains(*name) && refs.iter().any(|r| two.contains(r)) {
                two.insert(name.to_string());
            }
        }
        if two.len() == before {
            return two;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn widget() -> Value {
        json!({
            "type": "object",
            "required": ["id", "createdAt", "name", "secret"],
            "additionalProperties": false,
            "properties": {
                "id": {"type": "string", "readOnly": true},
                "createdAt": {"type": "string", "readOnly": true},
                "name": {"type": "string"},
                "secret": {"type": "string", "writeOnly": true},
            },
        })
    }

    #[test]
    fn a_request_refuses_read_only_properties_and_a_reply_does_not_need_write_only_ones() {
        let mut components = BTreeMap::from([
            ("Widget".to_string(), widget()),
            (
                "Plain".to_string(),
                json!({"type": "object", "required": ["a"], "properties": {"a": {}}}),
            ),
            (
                "List".to_string(),
                json!({"type": "array", "items": {"$ref": "#/components/schemas/Widget"}}),
            ),
        ]);
        let mut views = Views::split(&mut components);
        let mut body = json!({"allOf": [{"$ref": "#/components/schemas/List"}, {"$ref": "#/components/schemas/Plain"}]});
        views.for_request(&mut body);
        assert_eq!(body["allOf"][0]["$ref"], "#/components/schemas/ListRequest");
        assert_eq!(body["allOf"][1]["$ref"], "#/components/schemas/Plain");
        let made = views.finish(&mut components);
        assert_eq!(made.len(), 2, "{made:?}");
        let names: Vec<&str> = components.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["List", "ListRequest", "Plain", "Widget", "WidgetRequest"]
        );
        assert_eq!(
            components["Widget"]["required"],
            json!(["id", "createdAt", "name"])
        );
        let request = &components["WidgetRequest"];
        assert_eq!(request["required"], json!(["name", "secret"]));
        assert_eq!(request["properties"]["id"], json!(false));
        assert_eq!(request["additionalProperties"], json!(false));
        assert_eq!(
            components["ListRequest"]["items"]["$ref"],
            "#/components/schemas/WidgetRequest"
        );
    }

    #[test]
    fn a_request_view_no_request_reaches_is_not_made() {
        let mut components = BTreeMap::from([("Widget".to_string(), widget())]);
        let views = Views::split(&mut components);
        assert!(views.finish(&mut components).is_empty());
        assert_eq!(components.len(), 1);
    }

    #[test]
    fn inline_schemas_take_their_direction_where_they_are_used() {
        let mut views = Views::default();
        let mut request = widget();
        views.for_request(&mut request);
        assert_eq!(request["required"], json!(["name", "secret"]));
        let mut reply = json!({"type": "array", "items": widget()});
        for_reply(&mut reply);
        assert_eq!(
            reply["items"]["required"],
            json!(["id", "createdAt", "name"])
        );
    }

    #[test]
    fn a_request_view_name_that_is_taken_is_numbered() {
        let mut components = BTreeMap::from([
            ("Widget".to_string(), widget()),
            ("WidgetRequest".to_string(), json!({"type": "object"})),
        ]);
        let mut views = Views::split(&mut components);
        views.for_request(&mut json!({"$ref": "#/components/schemas/Widget"}));
        let made = views.finish(&mut components);
        assert_eq!(made["Widget"], "WidgetRequest2");
        assert!(components.contains_key("WidgetRequest2"));
        assert_eq!(components["WidgetRequest"], json!({"type": "object"}));
    }
}

//! Schema → type: each normalized schema becomes a type expression, defining named types in
//! the space as it goes.

use super::*;

impl<'a> TypeSpace<'a> {
    /// The type of `schema`, found at `pointer`: defined as component `target`, or named after
    /// `hint` when it needs a name. A schema inside a component converts once; reaching its
    /// pointer again gives the same type.
    pub(super) fn convert(
        &mut self,
        schema: &Value,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        let inside_component = target.is_none() && pointer.starts_with(COMPONENTS);
        if inside_component && let Some(ty) = self.converted.get(pointer) {
            return ty.clone();
        }
        let ty = self.convert_once(schema, target, hint, pointer, depth);
        if inside_component {
            self.converted.insert(pointer.to_string(), ty.clone());
        }
        ty
    }

    fn convert_once(
        &mut self,
        schema: &Value,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        let Some(map) = schema.as_object() else {
            return match schema {
                Value::Bool(false) => self.fallback(pointer, "a `false` schema accepts nothing"),
                _ => Ty::Value,
            };
        };
        if depth > MAX_DEPTH {
            return self.fallback(pointer, "nested too deeply");
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let siblings = map.keys().any(|k| is_constraint(k) && k != "$ref");
            if !siblings {
                return self.reference(reference, hint, pointer, depth);
            }
            // Object keywords beside a reference (a 3.0 document restating the component's
            // `required` and an empty `properties`): the reference and its siblings both apply,
            // as 2020-12 says, so the type is the component's fields with the siblings' added.
            let object_siblings = ["properties", "required", "additionalProperties"]
                .iter()
                .any(|k| map.contains_key(*k));
            let other_shapes = [
                "allOf", "oneOf", "anyOf", "enum", "const", "items", "nullable",
            ]
            .iter()
            .any(|k| map.contains_key(*k));
            if object_siblings && !other_shapes {
                let own: Map<String, Value> = map
                    .iter()
                    .filter(|(k, _)| *k != "$ref")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let parts = [serde_json::json!({ "$ref": reference })];
                return self.all_of(&parts, &own, target, hint, pointer, depth);
            }
        }
        if let Some(ty) = self.nullable_union(map, hint, pointer, depth) {
            return ty;
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            return self.enumeration(values, map, target, hint, pointer);
        }
        match map.get("const") {
            // A pinned string is a one-value string enum (the tag of a tagged union's member).
            Some(pinned @ Value::String(_)) => {
                return self.enumeration(std::slice::from_ref(pinned), map, target, hint, pointer);
            }
            Some(_) => return Ty::Value,
            None => {}
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(Value::Array(variants)) = map.get(keyword)
                && !members::only_required(variants, map)
            {
                return self.union(variants, map, target, hint, pointer, keyword, depth);
            }
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            return self.all_of(parts, map, target, hint, pointer, depth);
        }
        match map.get("type") {
            Some(Value::String(t)) => self.typed(t, map, target, hint, pointer, depth),
            Some(Value::Array(types)) => {
                let non_null: Vec<&str> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                let nullable = non_null.len() < types.len();
                let target = if nullable { None } else { target };
                let inner = match non_null.as_slice() {
                    [one] => self.typed(one, map, target, hint, pointer, depth),
                    [] => Ty::Unit,
                    _ => Ty::Value,
                };
                if nullable && inner != Ty::Unit {
                    Ty::Nullable(Box::new(inner))
                } else {
                    inner
                }
            }
            _ if map.contains_key("properties") || map.contains_key("additionalProperties") => {
                self.typed("object", map, target, hint, pointer, depth)
            }
            _ if map.contains_key("items") => {
                self.typed("array", map, target, hint, pointer, depth)
            }
            _ => Ty::Value,
        }
    }

    pub(super) fn reference(
        &mut self,
        reference: &str,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        match harness_gen_contract::schema::standalone::classify(reference) {
            harness_gen_contract::schema::standalone::RefTarget::Component { name, rest } => {
                let Some(&id) = self.component_ids.get(&name) else {
                    return self.fallback(pointer, "reference to a missing component");
                };
                if rest.is_empty() {
                    return Ty::Named(id);
                }
                let components = self.components;
                let at = format!(
                    "{COMPONENTS}{}{rest}",
                    harness_gen_contract::schema::escape(&name)
                );
                match components
                    .get(&name)
                    .and_then(|c| harness_gen_contract::schema::resolve(c, &rest))
                {
                    Some(resolved) => self.convert(resolved, None, hint, &at, depth + 1),
                    None => {
                        self.fallback(pointer, "reference into a component that does not resolve")
                    }
                }
            }
            _ => Ty::Value,
        }
    }

    /// `anyOf`/`oneOf` of one schema and `{"type": "null"}`: an `Option`.
    pub(super) fn nullable_union(
        &mut self,
        map: &Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Option<Ty> {
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(variants)) = map.get(keyword) else {
                continue;
            };
            if variants.len() != 2 {
                continue;
            }
            let is_null = |v: &Value| v.get("type").is_some_and(|t| t == "null");
            let nulls = variants.iter().filter(|v| is_null(v)).count();
            let other = variants.iter().enumerate().find(|(_, v)| !is_null(v));
            if let (1, Some((i, other))) = (nulls, other) {
                let inner = self.convert(
                    other,
                    None,
                    hint,
                    &format!("{pointer}/{keyword}/{i}"),
                    depth + 1,
                );
                return Some(Ty::Nullable(Box::new(inner)));
            }
        }
        None
    }

    pub(super) fn enumeration(
        &mut self,
        values: &[Value],
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
    ) -> Ty {
        let nullable = values.iter().any(Value::is_null);
        let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        if strings.is_empty() || strings.len() + usize::from(nullable) != values.len() {
            return Ty::Value;
        }
        if map.get("type").is_some_and(|t| {
            t != "string"
                && !t
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x == "string"))
        }) {
            return Ty::Value;
        }
        let mut idents = Unique::idents();
        idents.reserve("Other");
        let mut variants = Vec::new();
        let mut seen = BTreeSet::new();
        for value in strings {
            if !seen.insert(value) {
                continue;
            }
            let ident = idents.claim(&variant_stem(value), "");
            variants.push((ident, value.to_string()));
        }
        let id = self.claim(if nullable { None } else { target }, hint, pointer);
        self.define(id, Kind::StringEnum(variants), map, nullable)
    }

    /// Gives `id` its shape and doc; a null alternative makes the use site an `Option`.
    pub(super) fn define(
        &mut self,
        id: usize,
        kind: Kind,
        map: &Map<String, Value>,
        nullable: bool,
    ) -> Ty {
        self.defs[id].kind = kind;
        self.defs[id].doc = doc_of(&Value::Object(map.clone()));
        if nullable {
            Ty::Nullable(Box::new(Ty::Named(id)))
        } else {
            Ty::Named(id)
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn union(
        &mut self,
        variants: &[Value],
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        keyword: &str,
        depth: usize,
    ) -> Ty {
        if variants.is_empty() {
            return Ty::Value;
        }
        // Any string, some of them known: one string enum, whose `Other` holds the rest.
        if let Some(values) = members::open_enum(variants) {
            let mut own = map.clone();
            own.remove(keyword);
            own.insert("type".into(), Value::String("string".into()));
            return self.enumeration(&values, &own, target, hint, pointer);
        }
        let nullable_variant = variants
            .iter()
            .any(|v| v.get("type").is_some_and(|t| t == "null"));
        let id = self.claim(if nullable_variant { None } else { target }, hint, pointer);
        let mut idents = Unique::idents();
        // A tagged union's fallback for values of a member the description does not list.
        idents.reserve("Unknown");
        let mut out = Vec::new();
        let mut components = Vec::new();
        let mut nullable = false;
        let union_name = self.defs[id].name.clone();
        let names = self.member_names(&union_name, variants, map, pointer);
        for (i, variant) in variants.iter().enumerate() {
            if variant.get("type").is_some_and(|t| t == "null") {
                nullable = true;
                continue;
            }
            let component = variant.get("$ref").and_then(Value::as_str).and_then(|r| {
                match harness_gen_contract::schema::standalone::classify(r) {
                    harness_gen_contract::schema::standalone::RefTarget::Component {
                        name,
                        rest,
                    } if rest.is_empty() => Some(name),
                    _ => None,
                }
            });
            let base = names[i].clone().unwrap_or_else(|| format!("Variant{i}"));
            components.push(component);
            let ident = idents.claim(&base, "");
            let variant_hint = join_camel(&[&self.defs[id].name, &ident]);
            let ty = self.convert(
                variant,
                None,
                &variant_hint,
                &format!("{pointer}/{keyword}/{i}"),
                depth + 1,
            );
            out.push((ident, ty));
        }
        self.unsettled.push(Unsettled {
            id,
            discriminator: unions::Discriminator::of(map),
            components,
            pointer: pointer.to_string(),
        });
        self.define(id, Kind::Union(out), map, nullable)
    }

    /// `allOf` whose parts are all objects (directly or by reference) becomes one struct.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn all_of(
        &mut self,
        parts: &[Value],
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        // `allOf` of one schema beside nothing but annotations (a reference given its own
        // description, as generators of documents write it) means that schema.
        if let [only] = parts
            && map.keys().all(|k| k == "allOf" || !is_constraint(k))
        {
            return self.convert(only, target, hint, &format!("{pointer}/allOf/0"), depth + 1);
        }
        let mut merged = Map::new();
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut open: Option<Value> = None;
        // Each part with the pointer where it is, so a property copied from another component
        // stays the type it is there.
        let mut stack: Vec<(&Value, String)> = parts
            .iter()
            .enumerate()
            .rev()
            .map(|(i, part)| (part, format!("{pointer}/allOf/{i}")))
            .collect();
        let own = Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "allOf")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        );
        stack.insert(0, (&own, pointer.to_string()));
        let mut guard = 0;
        while let Some((part, at)) = stack.pop() {
            guard += 1;
            if guard > 256 {
                return self.fallback(pointer, "allOf too deep to merge");
            }
            let (part, at) = self.resolved(part, at);
            let Some(object) = part.as_object() else {
                continue;
            };
            if let Some(Value::Array(inner)) = object.get("allOf") {
                let inner = inner.iter().enumerate().rev();
                stack.extend(inner.map(|(i, part)| (part, format!("{at}/allOf/{i}"))));
            }
            if let Some(Value::Object(props)) = object.get("properties") {
                for (k, v) in props {
                    properties
                        .entry(k.clone())
                        .or_insert_with(|| copied_property(v, &at, pointer, k));
                }
            }
            if let Some(Value::Array(req)) = object.get("required") {
                required.extend(req.iter().cloned());
            }
            if let Some(extra) = object.get("additionalProperties").filter(|v| v.is_object()) {
                open = Some(extra.clone());
            }
            for keyword in ["oneOf", "anyOf"] {
                if object.contains_key(keyword) {
                    return self.fallback(
                        pointer,
                        "allOf joins a union (oneOf/anyOf) with other parts, so each member takes their properties too, which this generator does not type yet",
                    );
                }
            }
            for keyword in ["enum", "items"] {
                if object.contains_key(keyword) {
                    return self.fallback(pointer, "allOf mixes objects with other shapes");
                }
            }
            if object.get("type").is_some_and(|t| t != "object") {
                return self.fallback(pointer, "allOf of non-object schemas");
            }
        }
        merged.insert("type".into(), "object".into());
        merged.insert("properties".into(), Value::Object(properties));
        merged.insert("required".into(), Value::Array(required));
        if let Some(extra) = open {
            merged.insert("additionalProperties".into(), extra);
        }
        if let Some(description) = map.get("description") {
            merged.insert("description".into(), description.clone());
        }
        self.typed("object", &merged, target, hint, pointer, depth)
    }

    /// Follows references into components (for merging), with the pointer of what it reached.
    pub(super) fn resolved<'v>(&self, schema: &'v Value, at: String) -> (&'v Value, String)
    where
        'a: 'v,
    {
        let (mut current, mut at) = (schema, at);
        for _ in 0..16 {
            match current
                .get("$ref")
                .and_then(Value::as_str)
                .map(harness_gen_contract::schema::standalone::classify)
            {
                Some(harness_gen_contract::schema::standalone::RefTarget::Component {
                    name,
                    rest,
                }) => {
                    match self
                        .components
                        .get(&name)
                        .and_then(|c| harness_gen_contract::schema::resolve(c, &rest))
                    {
                        Some(next) => {
                            current = next;
                            at = format!(
                                "{COMPONENTS}{}{rest}",
                                harness_gen_contract::schema::escape(&name)
                            );
                        }
                        None => break,
                    }
                }
                _ => break,
            }
        }
        (current, at)
    }

    pub(super) fn typed(
        &mut self,
        ty: &str,
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        let format = map.get("format").and_then(Value::as_str);
        match ty {
            "string" => match format.and_then(Format::of) {
                Some(Format::DateTime | Format::Date) if self.extras.dates == Optional::Never => {
                    Ty::String
                }
                Some(format) => Ty::Format(format),
                None => Ty::String,
            },
            "integer" => Ty::Integer(Int::of_format(format)),
            "number" if format == Some("float") => Ty::Float,
            "number" => Ty::Number,
            "boolean" => Ty::Bool,
            "null" => Ty::Unit,
            "array" => match map.get("items") {
                Some(items) if !map.contains_key("prefixItems") => {
                    let inner = self.convert(
                        items,
                        None,
                        &format!("{hint}Item"),
                        &format!("{pointer}/items"),
                        depth + 1,
                    );
                    Ty::Vec(Box::new(inner))
                }
                _ if map.contains_key("prefixItems") => {
                    self.fallback(pointer, "tuples (prefixItems) are kept as JSON values")
                }
                _ => Ty::Vec(Box::new(Ty::Value)),
            },
            "object" => self.object(map, target, hint, pointer, depth),
            _ => self.fallback(pointer, "unknown type"),
        }
    }

    pub(super) fn object(
        &mut self,
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        let properties = map.get("properties").and_then(Value::as_object);
        let additional = map.get("additionalProperties");
        // Where the schema does not forbid them, properties beyond the declared ones are kept
        // (read into, and written from, the struct's `additional_properties`): a value a user
        // gives or a server sends is never dropped in silence.
        let extra = match additional {
            Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) | None => Some(Ty::Value),
            Some(schema) => Some(self.convert(
                schema,
                None,
                &format!("{hint}Value"),
                &format!("{pointer}/additionalProperties"),
                depth + 1,
            )),
        };
        let Some(properties) = properties.filter(|p| !p.is_empty()) else {
            return Ty::Map(Box::new(extra.unwrap_or(Ty::Value)));
        };
        let required: BTreeSet<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let id = self.claim(target, hint, pointer);
        let struct_name = self.defs[id].name.clone();
        let mut idents = Unique::idents();
        if extra.is_some() {
            idents.reserve("additional_properties");
        }
        let mut fields = Vec::new();
        // A property refused in this direction (a request's `readOnly` one, `false`) is no
        // field: nothing can be sent for it.
        for (wire, schema) in properties.iter().filter(|(_, s)| **s != Value::Bool(false)) {
            let ident = idents.claim(&field_name(wire), "_");
            let field_hint = join_camel(&[&struct_name, &camel(wire)]);
            let ty = self.convert(
                schema,
                None,
                &field_hint,
                &format!(
                    "{pointer}/properties/{}",
                    harness_gen_contract::schema::escape(wire)
                ),
                depth + 1,
            );
            fields.push(Field {
                ident,
                wire: wire.clone(),
                ty,
                required: required.contains(wire.as_str()),
                doc: doc_of(schema),
            });
        }
        // A property the schema requires without declaring it (a document's slip) is still a
        // field, of any JSON value: validation demands it, so the request must carry it.
        for wire in required {
            if properties.contains_key(wire) {
                continue;
            }
            let at = format!("{pointer}/required");
            self.warnings.push((
                at,
                format!("`{wire}` is required but not declared in `properties`; it is a field of any JSON value"),
            ));
            fields.push(Field {
                ident: idents.claim(&field_name(wire), "_"),
                wire: wire.to_string(),
                ty: Ty::Value,
                required: true,
                doc: None,
            });
        }
        self.define(id, Kind::Struct { fields, extra }, map, false)
    }
}

/// Keywords that constrain a value (as opposed to annotations).
fn is_constraint(keyword: &str) -> bool {
    !matches!(
        keyword,
        "description"
            | "title"
            | "example"
            | "examples"
            | "default"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "$comment"
            | "externalDocs"
            | "xml"
            | "discriminator"
    ) && !keyword.starts_with("x-")
}

/// Property `name` of an `allOf` part at `part_at`, as the merged struct at `merged_at` takes
/// it: a property of another component becomes a reference to where it is (keeping its title
/// and description for the field's docs), so it converts to the type it has there.
fn copied_property(schema: &Value, part_at: &str, merged_at: &str, name: &str) -> Value {
    // `%` would be read as percent-encoding in a reference.
    if part_at == merged_at
        || !schema.is_object()
        || !part_at.starts_with(COMPONENTS)
        || part_at.contains('%')
        || name.contains('%')
    {
        return schema.clone();
    }
    let mut reference = Map::new();
    reference.insert(
        "$ref".into(),
        format!(
            "{part_at}/properties/{}",
            harness_gen_contract::schema::escape(name)
        )
        .into(),
    );
    for keyword in ["title", "description"] {
        if let Some(text) = schema.get(keyword) {
            reference.insert(keyword.into(), text.clone());
        }
    }
    Value::Object(reference)
}

//! Rust types from normalized schemas: one `TypeSpace` owns every type, addressed by id, so
//! references and cycles resolve before any code is written. Component schemas get ids first;
//! inline schemas get names from where they sit (`PetOwner` for `Pet.owner`).
//!
//! What a schema means maps to Rust as follows: objects → structs (`Option` for optional
//! fields, `Option<Option<T>>` where a field may be absent or null), string enums → enums with
//! an `Other(String)` fallback, `oneOf`/`anyOf` → untagged enums, `allOf` of objects → one
//! merged struct, a null alternative → `Option`. Anything else becomes `serde_json::Value`,
//! with a warning naming the schema's pointer; nothing aborts the run.

use std::collections::{BTreeMap, BTreeSet};

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use crate::names::{RUST_KEYWORDS, Unique};

/// A type expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// `String`.
    String,
    /// `i64`.
    Integer,
    /// `f64`.
    Number,
    /// `bool`.
    Bool,
    /// `()`: only `null`.
    Unit,
    /// `serde_json::Value`: anything.
    Value,
    /// `Vec<T>`.
    Vec(Box<Ty>),
    /// `BTreeMap<String, T>`.
    Map(Box<Ty>),
    /// `Option<T>`: the value may be null.
    Nullable(Box<Ty>),
    /// A named type of the space.
    Named(usize),
    /// `Box<T>`, to break a cycle of directly contained types.
    Boxed(Box<Ty>),
}

/// A named type.
#[derive(Debug)]
pub struct Def {
    /// Rust name.
    pub name: String,
    /// Doc text.
    pub doc: Option<String>,
    /// Its shape.
    pub kind: Kind,
}

/// The shape of a named type.
#[derive(Debug)]
pub enum Kind {
    /// A struct.
    Struct {
        /// Fields in schema order.
        fields: Vec<Field>,
        /// Extra properties (`additionalProperties` with a schema), flattened.
        extra: Option<Ty>,
    },
    /// A string enum with an `Other(String)` fallback.
    StringEnum(Vec<(String, String)>),
    /// An untagged union of variants.
    Union(Vec<(String, Ty)>),
    /// A plain alias.
    Alias(Ty),
    /// A transparent newtype: an alias that would refer to itself.
    Newtype(Ty),
    /// Not yet converted (ids are assigned before conversion so cycles resolve).
    Pending,
}

/// One struct field.
#[derive(Debug)]
pub struct Field {
    /// Rust name.
    pub ident: String,
    /// JSON name.
    pub wire: String,
    /// Type (without the `Option` for absence).
    pub ty: Ty,
    /// Whether the property is required.
    pub required: bool,
    /// Doc text.
    pub doc: Option<String>,
}

/// Every type of one crate.
pub struct TypeSpace<'a> {
    components: &'a BTreeMap<String, Value>,
    /// The named types, by id.
    pub defs: Vec<Def>,
    component_ids: BTreeMap<String, usize>,
    names: Unique,
    /// Schemas that fell back to `serde_json::Value`: (where, why).
    pub warnings: Vec<(String, String)>,
}

/// How deep inline schemas nest before they become `Value`.
const MAX_DEPTH: usize = 48;

impl<'a> TypeSpace<'a> {
    /// A space holding one type per component schema.
    pub fn new(components: &'a BTreeMap<String, Value>) -> Self {
        let mut space = Self {
            components,
            defs: Vec::new(),
            component_ids: BTreeMap::new(),
            names: Unique::default(),
            warnings: Vec::new(),
        };
        for name in [
            "Value", "Option", "Result", "Vec", "String", "Box", "BTreeMap",
        ] {
            space.names.reserve(name);
        }
        for name in components.keys() {
            let id = space.reserve(&type_name(name));
            space.component_ids.insert(name.clone(), id);
        }
        for (name, schema) in components {
            let id = space.component_ids[name];
            let pointer = format!(
                "#/components/schemas/{}",
                harness_gen_runtime::schema::escape(name)
            );
            let hint = space.defs[id].name.clone();
            let ty = space.convert(schema, Some(id), &hint, &pointer, 0);
            if ty != Ty::Named(id) {
                space.defs[id].kind = Kind::Alias(ty);
            } else if matches!(space.defs[id].kind, Kind::Pending) {
                space.defs[id].kind = Kind::Alias(Ty::Value);
            }
            if space.defs[id].doc.is_none() {
                space.defs[id].doc = doc_of(schema);
            }
        }
        space.break_alias_cycles();
        space
    }

    /// The type of an inline schema (an operation's input, output or error), named after `hint`.
    pub fn inline(&mut self, schema: &Value, hint: &str, pointer: &str) -> Ty {
        let hint = type_name(hint);
        self.convert(schema, None, &hint, pointer, 0)
    }

    /// A type name no generated type has, based on `name`.
    pub fn claim_name(&mut self, name: &str) -> String {
        self.names.claim(&type_name(name), "")
    }

    /// The name of a named type.
    pub fn name_of(&self, ty: &Ty) -> Option<&str> {
        match ty {
            Ty::Named(id) => Some(&self.defs[*id].name),
            _ => None,
        }
    }

    fn reserve(&mut self, name: &str) -> usize {
        let name = self.names.claim(name, "");
        self.defs.push(Def {
            name,
            doc: None,
            kind: Kind::Pending,
        });
        self.defs.len() - 1
    }

    /// The id a named shape goes to: the component being defined, or a fresh one.
    fn claim(&mut self, target: Option<usize>, hint: &str) -> usize {
        target.unwrap_or_else(|| self.reserve(hint))
    }

    fn fallback(&mut self, pointer: &str, why: &str) -> Ty {
        self.warnings.push((pointer.to_string(), why.to_string()));
        Ty::Value
    }

    fn convert(
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
        }
        if let Some(ty) = self.nullable_union(map, hint, pointer, depth) {
            return ty;
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            return self.enumeration(values, map, target, hint);
        }
        if map.contains_key("const") {
            return Ty::Value;
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(Value::Array(variants)) = map.get(keyword) {
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

    fn reference(&mut self, reference: &str, hint: &str, pointer: &str, depth: usize) -> Ty {
        match harness_gen_runtime::schema::standalone::classify(reference) {
            harness_gen_runtime::schema::standalone::RefTarget::Component { name, rest } => {
                let Some(&id) = self.component_ids.get(&name) else {
                    return self.fallback(pointer, "reference to a missing component");
                };
                if rest.is_empty() {
                    return Ty::Named(id);
                }
                let components = self.components;
                match components
                    .get(&name)
                    .and_then(|c| harness_gen_runtime::schema::resolve(c, &rest))
                {
                    Some(resolved) => self.convert(resolved, None, hint, pointer, depth + 1),
                    None => {
                        self.fallback(pointer, "reference into a component that does not resolve")
                    }
                }
            }
            _ => Ty::Value,
        }
    }

    /// `anyOf`/`oneOf` of one schema and `{"type": "null"}`: an `Option`.
    fn nullable_union(
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

    fn enumeration(
        &mut self,
        values: &[Value],
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
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
        let mut idents = Unique::default();
        idents.reserve("Other");
        let mut variants = Vec::new();
        let mut seen = BTreeSet::new();
        for value in strings {
            if !seen.insert(value) {
                continue;
            }
            let ident = idents.claim(&variant_name(value), "");
            variants.push((ident, value.to_string()));
        }
        let id = self.claim(if nullable { None } else { target }, hint);
        self.define(id, Kind::StringEnum(variants), map, nullable)
    }

    /// Gives `id` its shape and doc; a null alternative makes the use site an `Option`.
    fn define(&mut self, id: usize, kind: Kind, map: &Map<String, Value>, nullable: bool) -> Ty {
        self.defs[id].kind = kind;
        self.defs[id].doc = doc_of(&Value::Object(map.clone()));
        if nullable {
            Ty::Nullable(Box::new(Ty::Named(id)))
        } else {
            Ty::Named(id)
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn union(
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
        let nullable_variant = variants
            .iter()
            .any(|v| v.get("type").is_some_and(|t| t == "null"));
        let id = self.claim(if nullable_variant { None } else { target }, hint);
        let mut idents = Unique::default();
        let mut out = Vec::new();
        let mut nullable = false;
        for (i, variant) in variants.iter().enumerate() {
            if variant.get("type").is_some_and(|t| t == "null") {
                nullable = true;
                continue;
            }
            let base = variant
                .get("title")
                .and_then(Value::as_str)
                .map(type_name)
                .or_else(|| {
                    variant
                        .get("$ref")
                        .and_then(Value::as_str)
                        .and_then(|r| r.rsplit('/').next())
                        .map(|n| type_name(&harness_gen_runtime::schema::unescape(n)))
                })
                .unwrap_or_else(|| format!("Variant{i}"));
            let ident = idents.claim(&base, "");
            let variant_hint = format!("{}{}", self.defs[id].name, ident);
            let ty = self.convert(
                variant,
                None,
                &variant_hint,
                &format!("{pointer}/{keyword}/{i}"),
                depth + 1,
            );
            out.push((ident, ty));
        }
        self.define(id, Kind::Union(out), map, nullable)
    }

    /// `allOf` whose parts are all objects (directly or by reference) becomes one struct.
    #[allow(clippy::too_many_arguments)]
    fn all_of(
        &mut self,
        parts: &[Value],
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        let mut merged = Map::new();
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut open: Option<Value> = None;
        let mut stack: Vec<&Value> = parts.iter().rev().collect();
        let own = Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "allOf")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        );
        stack.insert(0, &own);
        let mut guard = 0;
        while let Some(part) = stack.pop() {
            guard += 1;
            if guard > 256 {
                return self.fallback(pointer, "allOf too deep to merge");
            }
            let part = self.resolved(part);
            let Some(object) = part.as_object() else {
                continue;
            };
            if let Some(Value::Array(inner)) = object.get("allOf") {
                stack.extend(inner.iter().rev());
            }
            if let Some(Value::Object(props)) = object.get("properties") {
                for (k, v) in props {
                    properties.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            if let Some(Value::Array(req)) = object.get("required") {
                required.extend(req.iter().cloned());
            }
            if let Some(extra) = object.get("additionalProperties").filter(|v| v.is_object()) {
                open = Some(extra.clone());
            }
            for keyword in ["oneOf", "anyOf", "enum", "items"] {
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

    /// Follows a whole-component reference (for merging).
    fn resolved<'v>(&self, schema: &'v Value) -> &'v Value
    where
        'a: 'v,
    {
        let mut current = schema;
        for _ in 0..16 {
            match current
                .get("$ref")
                .and_then(Value::as_str)
                .map(harness_gen_runtime::schema::standalone::classify)
            {
                Some(harness_gen_runtime::schema::standalone::RefTarget::Component { name, rest }) => {
                    match self
                        .components
                        .get(&name)
                        .and_then(|c| harness_gen_runtime::schema::resolve(c, &rest))
                    {
                        Some(next) => current = next,
                        None => return current,
                    }
                }
                _ => return current,
            }
        }
        current
    }

    fn typed(
        &mut self,
        ty: &str,
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        match ty {
            "string" => Ty::String,
            "integer" => Ty::Integer,
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

    fn object(
        &mut self,
        map: &Map<String, Value>,
        target: Option<usize>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Ty {
        let properties = map.get("properties").and_then(Value::as_object);
        let additional = map.get("additionalProperties");
        let extra = match additional {
            Some(Value::Bool(false)) | None => None,
            Some(Value::Bool(true)) => Some(Ty::Value),
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
        let id = self.claim(target, hint);
        let struct_name = self.defs[id].name.clone();
        let mut idents = Unique::default();
        let mut fields = Vec::new();
        for (wire, schema) in properties {
            let base = field_name(wire);
            let sep = if base.ends_with('_') { "" } else { "_" };
            let ident = idents.claim(&base, sep);
            let field_hint = format!("{struct_name}{}", type_name(wire));
            let ty = self.convert(
                schema,
                None,
                &field_hint,
                &format!(
                    "{pointer}/properties/{}",
                    harness_gen_runtime::schema::escape(wire)
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
        self.define(id, Kind::Struct { fields, extra }, map, false)
    }

    /// Boxes every field whose type contains, without indirection, a type that contains the
    /// field's own struct the same way.
    pub fn box_cycles(&mut self) {
        self.newtype_recursive_aliases();
        let n = self.defs.len();
        let direct: Vec<BTreeSet<usize>> =
            (0..n).map(|i| direct_refs(&self.defs[i].kind)).collect();
        let reaches = |from: usize, to: usize| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from];
            while let Some(i) = stack.pop() {
                if i == to {
                    return true;
                }
                if seen.insert(i) {
                    stack.extend(direct[i].iter().copied());
                }
            }
            false
        };
        for i in 0..n {
            let mut kind = std::mem::replace(&mut self.defs[i].kind, Kind::Pending);
            let fix = |ty: &mut Ty| box_if(ty, &|target| reaches(target, i));
            match &mut kind {
                Kind::Struct { fields, .. } => fields.iter_mut().for_each(|f| fix(&mut f.ty)),
                Kind::Union(variants) => variants.iter_mut().for_each(|(_, ty)| fix(ty)),
                Kind::Alias(ty) | Kind::Newtype(ty) => fix(ty),
                _ => {}
            }
            self.defs[i].kind = kind;
        }
    }

    /// The Rust tokens of a type expression.
    pub fn tokens(&self, ty: &Ty) -> TokenStream {
        match ty {
            Ty::String => quote!(String),
            Ty::Integer => quote!(i64),
            Ty::Number => quote!(f64),
            Ty::Bool => quote!(bool),
            Ty::Unit => quote!(()),
            Ty::Value => quote!(serde_json::Value),
            Ty::Vec(inner) => {
                let inner = self.tokens(inner);
                quote!(Vec<#inner>)
            }
            Ty::Map(inner) => {
                let inner = self.tokens(inner);
                quote!(std::collections::BTreeMap<String, #inner>)
            }
            Ty::Nullable(inner) => {
                let inner = self.tokens(inner);
                quote!(Option<#inner>)
            }
            Ty::Boxed(inner) => {
                let inner = self.tokens(inner);
                quote!(Box<#inner>)
            }
            Ty::Named(id) => {
                let name = format_ident!("{}", self.defs[*id].name);
                quote!(#name)
            }
        }
    }

    /// Every named type as Rust items.
    pub fn items(&self) -> TokenStream {
        let items = self.defs.iter().map(|def| self.item(def));
        quote!(#(#items)*)
    }

    fn item(&self, def: &Def) -> TokenStream {
        let name = format_ident!("{}", def.name);
        let doc = doc_attr(def.doc.as_deref());
        let derive =
            quote!(#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]);
        match &def.kind {
            Kind::Struct { fields, extra } => {
                // A struct whose fields are all optional can be built with `..Default::default()`.
                let default = fields
                    .iter()
                    .all(|f| !f.required)
                    .then(|| quote!(#[derive(Default)]));
                let fields = fields.iter().map(|f| self.field(f));
                let extra = extra.as_ref().map(|ty| {
                    let ty = self.tokens(ty);
                    quote! {
                        /// Properties beyond the declared ones.
                        #[serde(flatten)]
                        pub additional_properties: std::collections::BTreeMap<String, #ty>,
                    }
                });
                quote! {
                    #doc
                    #derive
                    #default
                    pub struct #name {
                        #(#fields)*
                        #extra
                    }
                }
            }
            Kind::StringEnum(variants) => {
                let idents: Vec<_> = variants
                    .iter()
                    .map(|(v, _)| format_ident!("{}", v))
                    .collect();
                let wires: Vec<&String> = variants.iter().map(|(_, w)| w).collect();
                let docs = wires.iter().map(|w| format!(" `{w}`"));
                quote! {
                    #doc
                    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
                    pub enum #name {
                        #( #[doc = #docs] #idents, )*
                        /// A value this version of the API description does not list.
                        Other(String),
                    }

                    impl #name {
                        /// The value as sent on the wire.
                        pub fn as_str(&self) -> &str {
                            match self {
                                #( Self::#idents => #wires, )*
                                Self::Other(value) => value,
                            }
                        }
                    }

                    impl serde::Serialize for #name {
                        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                            serializer.serialize_str(self.as_str())
                        }
                    }

                    impl<'de> serde::Deserialize<'de> for #name {
                        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                            let value = String::deserialize(deserializer)?;
                            Ok(match value.as_str() {
                                #( #wires => Self::#idents, )*
                                _ => Self::Other(value),
                            })
                        }
                    }
                }
            }
            Kind::Union(variants) => {
                let variants = variants.iter().map(|(v, ty)| {
                    let v = format_ident!("{}", v);
                    let ty = self.tokens(ty);
                    quote!(#v(#ty),)
                });
                quote! {
                    #doc
                    #derive
                    #[serde(untagged)]
                    pub enum #name {
                        #(#variants)*
                    }
                }
            }
            Kind::Alias(ty) => {
                let ty = self.tokens(ty);
                quote! {
                    #doc
                    pub type #name = #ty;
                }
            }
            Kind::Newtype(ty) => {
                let ty = self.tokens(ty);
                quote! {
                    #doc
                    #derive
                    #[serde(transparent)]
                    pub struct #name(pub #ty);
                }
            }
            Kind::Pending => quote! {
                #doc
                pub type #name = serde_json::Value;
            },
        }
    }

    fn field(&self, field: &Field) -> TokenStream {
        let ident = format_ident!("{}", field.ident);
        let wire = &field.wire;
        let doc = doc_attr(field.doc.as_deref());
        let rename = (field.ident != *wire).then(|| quote!(#[serde(rename = #wire)]));
        let ty = self.tokens(&field.ty);
        if field.required {
            return quote! {
                #doc
                #rename
                pub #ident: #ty,
            };
        }
        match &field.ty {
            // Absent and null are different: `None` is absent, `Some(None)` is null.
            Ty::Nullable(_) => quote! {
                #doc
                #rename
                #[serde(default, skip_serializing_if = "Option::is_none", with = "harness_gen_runtime::absent_or_null")]
                pub #ident: Option<#ty>,
            },
            _ => quote! {
                #doc
                #rename
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub #ident: Option<#ty>,
            },
        }
    }

    /// Type aliases cannot refer to themselves, even through `Vec` or a map: an alias that
    /// reaches itself through other aliases becomes a transparent newtype.
    fn newtype_recursive_aliases(&mut self) {
        fn named(ty: &Ty, out: &mut Vec<usize>) {
            match ty {
                Ty::Named(id) => out.push(*id),
                Ty::Vec(inner) | Ty::Map(inner) | Ty::Nullable(inner) | Ty::Boxed(inner) => {
                    named(inner, out)
                }
                _ => {}
            }
        }
        for start in 0..self.defs.len() {
            let Kind::Alias(ty) = &self.defs[start].kind else {
                continue;
            };
            let mut stack = Vec::new();
            named(ty, &mut stack);
            let mut seen = BTreeSet::new();
            let mut cyclic = false;
            while let Some(i) = stack.pop() {
                if i == start {
                    cyclic = true;
                    break;
                }
                if seen.insert(i)
                    && let Kind::Alias(next) = &self.defs[i].kind
                {
                    named(next, &mut stack);
                }
            }
            if cyclic
                && let Kind::Alias(ty) =
                    std::mem::replace(&mut self.defs[start].kind, Kind::Pending)
            {
                self.defs[start].kind = Kind::Newtype(ty);
            }
        }
    }

    /// Makes alias-only cycles (`type A = B; type B = A;`) into JSON values.
    fn break_alias_cycles(&mut self) {
        for start in 0..self.defs.len() {
            let mut seen = BTreeSet::new();
            let mut current = start;
            while let Kind::Alias(Ty::Named(next)) = &self.defs[current].kind {
                if !seen.insert(current) {
                    self.defs[start].kind = Kind::Alias(Ty::Value);
                    break;
                }
                current = *next;
            }
        }
    }
}

/// Type references a kind contains without indirection (directly or inside `Option`).
fn direct_refs(kind: &Kind) -> BTreeSet<usize> {
    fn collect(ty: &Ty, out: &mut BTreeSet<usize>) {
        match ty {
            Ty::Named(id) => {
                out.insert(*id);
            }
            Ty::Nullable(inner) => collect(inner, out),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    match kind {
        Kind::Struct { fields, .. } => fields.iter().for_each(|f| collect(&f.ty, &mut out)),
        Kind::Union(variants) => variants.iter().for_each(|(_, ty)| collect(ty, &mut out)),
        Kind::Alias(ty) | Kind::Newtype(ty) => collect(ty, &mut out),
        _ => {}
    }
    out
}

/// Boxes `ty`'s direct named part when `cycles(target)` says it leads back.
fn box_if(ty: &mut Ty, cycles: &dyn Fn(usize) -> bool) {
    match ty {
        Ty::Named(id) if cycles(*id) => {
            let inner = std::mem::replace(ty, Ty::Unit);
            *ty = Ty::Boxed(Box::new(inner));
        }
        Ty::Nullable(inner) => box_if(inner, cycles),
        _ => {}
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

/// The doc text of a schema: its title and description.
fn doc_of(schema: &Value) -> Option<String> {
    let text = |k: &str| {
        schema
            .get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    match (text("title"), text("description")) {
        (Some(t), Some(d)) if t != d => Some(format!("{t}\n\n{d}")),
        (Some(t), _) => Some(t.to_string()),
        (None, Some(d)) => Some(d.to_string()),
        (None, None) => None,
    }
}

/// `#[doc = "…"]` lines: the text is a string literal, so nothing in it can become code.
fn doc_attr(doc: Option<&str>) -> TokenStream {
    let Some(doc) = doc else {
        return TokenStream::new();
    };
    let lines = doc.lines().map(|line| {
        let line = format!(" {}", line.trim_end());
        quote!(#[doc = #line])
    });
    quote!(#(#lines)*)
}

/// A Rust type name (UpperCamelCase, ASCII, not starting with a digit).
pub fn type_name(text: &str) -> String {
    let mut name = crate::names::ascii_words(text).to_upper_camel_case();
    if name.is_empty() {
        name.push_str("Type");
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    if RUST_KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// A Rust field name (snake_case, ASCII, never a keyword).
pub fn field_name(text: &str) -> String {
    let mut name = crate::names::ascii_words(text).to_snake_case();
    if name.is_empty() {
        name.push_str("field");
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if RUST_KEYWORDS.contains(&name.as_str()) || name == "_" {
        name.push('_');
    }
    name
}

/// An enum variant name for a string value.
fn variant_name(value: &str) -> String {
    if value.is_empty() {
        return "Empty".to_string();
    }
    if !value.chars().any(|c| c.is_ascii_alphanumeric()) {
        return "Value".to_string();
    }
    type_name(value)
}

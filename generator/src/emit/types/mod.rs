//! Rust types from normalized schemas: one `TypeSpace` owns every type, addressed by id, so
//! references and cycles resolve before any code is written. Component schemas get ids first;
//! inline schemas get names from where they sit (`PetOwner` for `Pet.owner`).
//!
//! What a schema means maps to Rust as follows: objects → structs (`Option` for optional
//! fields, `Option<Option<T>>` where a field may be absent or null), string enums → enums with
//! an `Other(String)` fallback, `oneOf`/`anyOf` → untagged enums, `allOf` of objects → one
//! merged struct, `allOf` of one schema beside only annotations → that schema's type, a null
//! alternative → `Option`. Anything else becomes `serde_json::Value`,
//! with a warning naming the schema's pointer; nothing aborts the run.

mod convert;
mod cycles;
mod members;
mod merge;
mod print;
mod reach;
mod unions;

use unions::Unsettled;

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use crate::names::{Unique, camel, join_camel, variant_stem};
pub use crate::names::{field_name, type_name};

/// A type expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `String`.
    String,
    /// An integer of the width its `format` names (`i64` without one).
    Integer(Int),
    /// `f64`.
    Number,
    /// `f32`: `format: float`.
    Float,
    /// A string of a known `format`: a date, a UUID, base64 bytes.
    Format(Format),
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

/// Integer widths (`format: int8` … `uint64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Int {
    /// `i8`.
    I8,
    /// `u8`.
    U8,
    /// `i16`.
    I16,
    /// `u16`.
    U16,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i64`: `int64`, and integers without a format.
    I64,
    /// `u64`.
    U64,
}

impl Int {
    /// The width a schema's `format` names; `i64` for none or another.
    pub fn of_format(format: Option<&str>) -> Self {
        match format {
            Some("int8") => Int::I8,
            Some("uint8") => Int::U8,
            Some("int16") => Int::I16,
            Some("uint16") => Int::U16,
            Some("int32") => Int::I32,
            Some("uint32") => Int::U32,
            Some("uint64") => Int::U64,
            _ => Int::I64,
        }
    }

    /// The Rust type's name.
    pub fn rust(self) -> &'static str {
        match self {
            Int::I8 => "i8",
            Int::U8 => "u8",
            Int::I16 => "i16",
            Int::U16 => "u16",
            Int::I32 => "i32",
            Int::U32 => "u32",
            Int::I64 => "i64",
            Int::U64 => "u64",
        }
    }
}

/// String formats with a Rust type of their own (`harness_gen_runtime::formats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// `date-time`.
    DateTime,
    /// `date`.
    Date,
    /// `uuid`.
    Uuid,
    /// `byte`: base64 text.
    Bytes,
    /// `binary`: data a call sends as itself (a file part, an octet-stream body) and JSON
    /// carries as base64.
    Upload,
}

impl Format {
    /// The type a string schema's `format` names, if it has one.
    pub fn of(format: &str) -> Option<Self> {
        match format {
            "date-time" => Some(Format::DateTime),
            "date" => Some(Format::Date),
            "uuid" => Some(Format::Uuid),
            "byte" => Some(Format::Bytes),
            "binary" => Some(Format::Upload),
            _ => None,
        }
    }

    /// The type's name in the generated `types::formats` module.
    pub fn rust(self) -> &'static str {
        match self {
            Format::DateTime => "DateTime",
            Format::Date => "Date",
            Format::Uuid => "Uuid",
            Format::Bytes => "Bytes",
            Format::Upload => "Upload",
        }
    }
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
    /// The JSON pointer of the schema it was made from (in the document, or a tool's schema
    /// in a catalog), for diagnostics about the type.
    pub origin: String,
}

/// The shape of a named type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    /// An untagged union of variants, tried in order (most specific first once settled).
    Union(Vec<(String, Ty)>),
    /// A union told apart by one property's value: each variant with the values that select
    /// it, and an `Unknown(serde_json::Value)` fallback for any other value.
    Tagged {
        /// The property's wire name.
        property: String,
        /// (variant, type, the tag values that select it).
        variants: Vec<(String, Ty, Vec<String>)>,
    },
    /// A plain alias.
    Alias(Ty),
    /// A transparent newtype: an alias that would refer to itself.
    Newtype(Ty),
    /// Not yet converted (ids are assigned before conversion so cycles resolve).
    Pending,
}

/// One struct field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

/// How a struct is built (`TypeSpace::built`): `new`'s arguments, the values it fixes
/// itself, and the setters.
#[derive(Default)]
pub(super) struct Built<'f> {
    pub new: Vec<&'f Field>,
    pub fix: Vec<TokenStream>,
    pub set: Vec<&'f Field>,
}

/// How an operation's input struct is built, as text (the client is emitted on a thread of
/// its own): its name, `new`'s arguments in order, and the optional fields' setters.
#[derive(Clone, Debug)]
pub struct InputShape {
    /// The struct's name.
    pub name: String,
    /// `new`'s arguments, in order.
    pub new: Vec<InputField>,
    /// The optional fields, each with a setter.
    pub set: Vec<InputField>,
}

/// One field of an input struct: Rust name, JSON name, type (named from the client's
/// `resources` module) and doc.
#[derive(Clone, Debug)]
pub struct InputField {
    /// Rust name.
    pub ident: String,
    /// JSON name.
    pub wire: String,
    /// Type, as text.
    pub ty: String,
    /// Doc text.
    pub doc: Option<String>,
    /// A literal of its type for an example (a string by its wire name, `1`, `1.0`, `true`);
    /// `None` for a type no literal writes.
    pub example: Option<String>,
}

/// Where an optional part of the generated types goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optional {
    /// Behind a cargo feature of the generated crate.
    Feature,
    /// Always: a build script's module is part of the including crate, which has no such
    /// feature to gate it on.
    Always,
    /// Left out.
    Never,
}

/// The optional parts of the generated types, and where each goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extras {
    /// `PartialEq` on every type, and `Eq`, `Hash`, `PartialOrd` and `Ord` on string enums.
    /// They were a sixth of a big SDK's check time (Stripe: ≈ 11 s of 58 s) and most users
    /// never compare API values, so a generated crate offers them as its `compare` feature
    /// (off by default).
    pub comparisons: Optional,
    /// `date-time` and `date` strings as chrono types (the runtime's `formats::DateTime` and
    /// `Date`), else `String`: a generated crate's `dates` feature, on by default.
    pub dates: Optional,
    /// The component types as schemas that point at the catalog's components (schemars'
    /// `JsonSchema`, for tools written in Rust): a generated crate's `schemars` feature.
    pub schemas: Optional,
    /// Reading the structs only requests carry (an operation's input, its body, what only
    /// they contain) from JSON: the registry's handlers do, the SDK never does, and it was an
    /// eighth of a big SDK's check memory (GHES: 697 of its 1,160 structs). A generated
    /// crate's `registry` feature.
    pub sent_read: Optional,
}

impl Extras {
    /// A generated crate's: each behind its feature.
    pub const CRATE: Extras = Extras {
        comparisons: Optional::Feature,
        dates: Optional::Feature,
        schemas: Optional::Feature,
        sent_read: Optional::Feature,
    };

    /// The condition of what reads a type only requests carry (`object!`'s reading half, a
    /// union's `Deserialize`): `None` when it is always there.
    pub fn sent_read_condition(&self) -> Option<TokenStream> {
        match self.sent_read {
            Optional::Feature => Some(quote!(feature = "registry")),
            Optional::Always => None,
            Optional::Never => Some(quote!(any())),
        }
    }
}

/// Every type of one crate.
pub struct TypeSpace<'a> {
    components: &'a BTreeMap<String, Value>,
    /// The named types, by id.
    pub defs: Vec<Def>,
    component_ids: BTreeMap<String, usize>,
    /// The type of each schema inside a component already converted, by its JSON pointer, so a
    /// schema reached again (through an `allOf` copy or a reference into a component) is the
    /// same Rust type, not an identical second one.
    converted: BTreeMap<String, Ty>,
    names: Unique,
    /// What the types lost: schemas that fell back to `serde_json::Value`, required properties
    /// no schema declares (where, the whole message).
    pub warnings: Vec<(String, String)>,
    /// Where the optional parts go.
    extras: Extras,
    /// The unions whose shape is decided once every type is converted (`settle_unions`).
    unsettled: Vec<Unsettled>,
    /// Request view component → the component it is a view of, so a union member is named
    /// alike in both views.
    views_of: BTreeMap<String, String>,
}

/// Where component schemas are, as JSON pointers.
const COMPONENTS: &str = "#/components/schemas/";

/// How deep inline schemas nest before they become `Value`.
const MAX_DEPTH: usize = 48;

impl<'a> TypeSpace<'a> {
    /// The component types that are types of their own (not aliases), by id, with their
    /// component's name, when `extras` asks for their schemas.
    pub fn component_types(&self) -> Vec<(usize, &str)> {
        if self.extras.schemas == Optional::Never {
            return Vec::new();
        }
        self.component_ids
            .iter()
            .filter(|&(_, &id)| !matches!(self.defs[id].kind, Kind::Alias(_) | Kind::Pending))
            .map(|(name, &id)| (id, name.as_str()))
            .collect()
    }

    /// A space holding one type per component schema, its optional parts where `extras` says.
    pub fn new(components: &'a BTreeMap<String, Value>, extras: Extras) -> Self {
        Self::with_views(components, extras, &BTreeMap::new())
    }

    /// [`TypeSpace::new`], where `request_views` (component → the component holding its
    /// request view) says which components are views of others: each view's type says so, and
    /// a union names a view member as it names the component.
    pub fn with_views(
        components: &'a BTreeMap<String, Value>,
        extras: Extras,
        request_views: &BTreeMap<String, String>,
    ) -> Self {
        let mut space = Self {
            components,
            defs: Vec::new(),
            component_ids: BTreeMap::new(),
            converted: BTreeMap::new(),
            names: Unique::idents(),
            warnings: Vec::new(),
            extras,
            unsettled: Vec::new(),
            views_of: request_views
                .iter()
                .map(|(of, view)| (view.clone(), of.clone()))
                .collect(),
        };
        // Names the prelude and the generated code use, and the public names of a crate's
        // other modules (its client's, a bindings crate's root): no two public types of one
        // crate share a name.
        for name in [
            "Value",
            "Option",
            "Result",
            "Vec",
            "String",
            "Box",
            "BTreeMap",
            // client.rs
            "Client",
            "CallOptions",
            "Replies",
            "ReplyInfo",
            "RetryPolicy",
            "Pages",
            "ServerSentEvent",
            "Events",
            "Download",
            // a bindings crate's root
            "Tools",
            "BridgeError",
            "Compatibility",
            "ConnectError",
            "Mismatch",
            "NoError",
        ] {
            space.names.reserve(name);
        }
        for name in components.keys() {
            let pointer = format!(
                "#/components/schemas/{}",
                harness_gen_contract::schema::escape(name)
            );
            let id = space.reserve(&camel(name), &pointer);
            space.component_ids.insert(name.clone(), id);
        }
        for (name, schema) in components {
            let id = space.component_ids[name];
            let pointer = format!(
                "#/components/schemas/{}",
                harness_gen_contract::schema::escape(name)
            );
            let hint = crate::names::stem(&space.defs[id].name).to_string();
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
        for (of, view) in request_views {
            space.request_view(of, view);
        }
        space
    }

    /// The type of an inline schema (an operation's input, output or error), named after `hint`.
    pub fn inline(&mut self, schema: &Value, hint: &str, pointer: &str) -> Ty {
        let hint = camel(hint);
        self.convert(schema, None, &hint, pointer, 0)
    }

    /// The name `ty` goes by as `hint`: `hint` itself when that is already `ty`'s name (an
    /// inline object named after it), else a fresh name based on it, with `true`: the caller
    /// declares that name as an alias of `ty`.
    pub fn name_as(&mut self, ty: &Ty, hint: &str) -> (String, bool) {
        if self.name_of(ty) == Some(hint) {
            return (hint.to_string(), false);
        }
        (self.claim_name(hint), true)
    }

    /// A type name no generated type has, based on `name`.
    pub fn claim_name(&mut self, name: &str) -> String {
        self.names.claim(&camel(name), "")
    }

    /// The type of the list items a JSON pointer leads to in values of `ty` (through struct
    /// fields by wire name; aliases, options and boxes seen through); `Value` where the types
    /// do not say.
    pub fn item_at(&self, ty: &Ty, pointer: &str) -> Ty {
        let mut here = ty.clone();
        let segments = pointer.strip_prefix('/').map(|p| p.split('/'));
        for segment in segments.into_iter().flatten() {
            let segment = harness_gen_contract::schema::unescape(segment);
            let field = match self.see_through(&here) {
                Ty::Named(id) => match &self.defs[id].kind {
                    Kind::Struct { fields, .. } => fields
                        .iter()
                        .find(|f| f.wire == segment)
                        .map(|f| f.ty.clone()),
                    _ => None,
                },
                _ => None,
            };
            match field {
                Some(ty) => here = ty,
                None => return Ty::Value,
            }
        }
        match self.see_through(&here) {
            Ty::Vec(item) => *item,
            _ => Ty::Value,
        }
    }

    /// `ty` without the options, boxes, aliases and newtypes around it.
    fn see_through(&self, ty: &Ty) -> Ty {
        let mut ty = ty.clone();
        for _ in 0..64 {
            ty = match ty {
                Ty::Nullable(inner) | Ty::Boxed(inner) => *inner,
                Ty::Named(id) => match &self.defs[id].kind {
                    Kind::Alias(inner) => inner.clone(),
                    _ => return Ty::Named(id),
                },
                other => return other,
            };
        }
        ty
    }

    /// Gives the named type `ty` the doc `doc` unless its schema has one.
    pub fn describe(&mut self, ty: &Ty, doc: String) {
        if let Ty::Named(id) = ty
            && self.defs[*id].doc.is_none()
        {
            self.defs[*id].doc = Some(doc);
        }
    }

    /// The name of a named type.
    pub fn name_of(&self, ty: &Ty) -> Option<&str> {
        match ty {
            Ty::Named(id) => Some(&self.defs[*id].name),
            _ => None,
        }
    }

    fn reserve(&mut self, name: &str, origin: &str) -> usize {
        let name = self.names.claim(name, "");
        self.defs.push(Def {
            name,
            doc: None,
            kind: Kind::Pending,
            origin: origin.to_string(),
        });
        self.defs.len() - 1
    }

    /// The id a named shape found at `pointer` goes to: the component being defined, or a
    /// fresh one.
    fn claim(&mut self, target: Option<usize>, hint: &str, pointer: &str) -> usize {
        target.unwrap_or_else(|| self.reserve(hint, pointer))
    }

    /// Says of the component `view` that it is the component `of` as a request sends it.
    fn request_view(&mut self, of: &str, view: &str) {
        let (Some(&of), Some(&view)) = (self.component_ids.get(of), self.component_ids.get(view))
        else {
            return;
        };
        let what = format!(
            "[`{}`] as a request sends it: without what the server assigns (its `readOnly` properties).",
            self.defs[of].name
        );
        let doc = match self.defs[view].doc.take() {
            Some(doc) => format!("{what}\n\n{doc}"),
            None => what,
        };
        self.defs[view].doc = Some(doc);
        let sent = format!("Requests send it as [`{}`].", self.defs[view].name);
        let doc = match self.defs[of].doc.take() {
            Some(doc) => format!("{doc}\n\n{sent}"),
            None => format!("An object of the API, as replies carry it. {sent}"),
        };
        self.defs[of].doc = Some(doc);
    }

    /// Each named type's name and the pointer of the schema it was made from.
    pub fn origins(&self) -> impl Iterator<Item = (&str, &str)> {
        self.defs
            .iter()
            .map(|def| (def.name.as_str(), def.origin.as_str()))
    }

    fn fallback(&mut self, pointer: &str, why: &str) -> Ty {
        self.warnings.push((
            pointer.to_string(),
            format!("this schema is typed as serde_json::Value: {why}"),
        ));
        Ty::Value
    }
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

//! Types → tokens: the Rust items and type expressions of the space.

use super::*;

impl TypeSpace<'_> {
    /// The Rust tokens of a type expression.
    pub fn tokens(&self, ty: &Ty) -> TokenStream {
        self.tokens_at(ty, None)
    }

    /// The Rust tokens of a type expression used outside `types.rs`, each generated type
    /// named through `module` (`super::types`): a module that defines or imports a name of
    /// its own (`client.rs`: `Client`, `Error`, `Pages`, `Event`, …) cannot shadow the API's.
    pub fn qualified_tokens(&self, ty: &Ty, module: &TokenStream) -> TokenStream {
        self.tokens_at(ty, Some(module))
    }

    fn tokens_at(&self, ty: &Ty, module: Option<&TokenStream>) -> TokenStream {
        let at = module.map(|m| quote!(#m::));
        match ty {
            Ty::String => quote!(String),
            Ty::Integer(width) => {
                let width = format_ident!("{}", width.rust());
                quote!(#width)
            }
            Ty::Number => quote!(f64),
            Ty::Float => quote!(f32),
            Ty::Format(format) => {
                let name = format_ident!("{}", format.rust());
                quote!(#at formats::#name)
            }
            Ty::Bool => quote!(bool),
            Ty::Unit => quote!(()),
            Ty::Value => quote!(serde_json::Value),
            Ty::Vec(inner) => {
                let inner = self.tokens_at(inner, module);
                quote!(Vec<#inner>)
            }
            Ty::Map(inner) => {
                let inner = self.tokens_at(inner, module);
                quote!(std::collections::BTreeMap<String, #inner>)
            }
            Ty::Nullable(inner) => {
                let inner = self.tokens_at(inner, module);
                quote!(Option<#inner>)
            }
            Ty::Boxed(inner) => {
                let inner = self.tokens_at(inner, module);
                quote!(Box<#inner>)
            }
            Ty::Named(id) => {
                let name = format_ident!("{}", self.defs[*id].name);
                quote!(#at #name)
            }
        }
    }

    /// Every named type as Rust items with the attribute `cfg` gives its id (empty for none),
    /// which the items themselves do not carry (the caller puts them under it, [`super::super::Gated`]);
    /// a type for which it gives `None` is left out. The structs `built` marks (by id) get a
    /// constructor and setters.
    pub fn items(
        &self,
        cfg: impl Fn(usize) -> Option<TokenStream>,
        built: &[bool],
        sent_only: &[bool],
    ) -> Vec<(TokenStream, TokenStream)> {
        let tags = self.member_tags();
        let none = TokenStream::new();
        self.defs
            .iter()
            .enumerate()
            .filter_map(|(id, def)| {
                let built = built[id].then(|| tags.get(&id).map(String::as_str));
                let read = if sent_only[id] {
                    self.extras.sent_read_condition()
                } else {
                    None
                };
                Some((cfg(id)?, self.item(def, &none, built, read)))
            })
            .collect()
    }

    /// The `formats` module: the types formatted strings have (the runtime's, and `String` for
    /// dates where the crate's `dates` feature is off).
    pub fn formats_module(&self) -> TokenStream {
        let dates = match self.extras.dates {
            Optional::Feature => quote! {
                #[cfg(feature = "dates")]
                pub use harness_gen_runtime::formats::{Date, DateTime};
                /// `format: date` (the crate's `dates` feature makes it `chrono::NaiveDate`).
                #[cfg(not(feature = "dates"))]
                pub type Date = String;
                /// `format: date-time` (the crate's `dates` feature makes it `chrono::DateTime<Utc>`).
                #[cfg(not(feature = "dates"))]
                pub type DateTime = String;
            },
            Optional::Always => quote!(
                pub use harness_gen_runtime::formats::{Date, DateTime};
            ),
            Optional::Never => TokenStream::new(),
        };
        quote! {
            /// The types of strings with a `format` (see `harness_gen_runtime::formats`).
            pub mod formats {
                pub use harness_gen_runtime::formats::{Bytes, Upload, Uuid};
                #dates
            }
        }
    }

    /// The derive attributes for comparing values of a type: `traits`, always or behind the
    /// crate's `compare` feature, or not at all ([`Extras::comparisons`]).
    pub fn compare_derive(&self, traits: TokenStream) -> TokenStream {
        match self.extras.comparisons {
            Optional::Feature => quote!(#[cfg_attr(feature = "compare", derive(#traits))]),
            Optional::Always => quote!(#[derive(#traits)]),
            Optional::Never => TokenStream::new(),
        }
    }

    /// The tag property of each struct that is a member of a tagged union, by id.
    fn member_tags(&self) -> BTreeMap<usize, String> {
        let mut tags = BTreeMap::new();
        for def in &self.defs {
            if let Kind::Tagged { property, variants } = &def.kind {
                for (_, ty, _) in variants {
                    if let Ty::Named(id) = self.see_through(ty) {
                        tags.insert(id, property.clone());
                    }
                }
            }
        }
        tags
    }

    /// The items of one type, each under `cfg` (an attribute, or nothing); `built` says
    /// whether a struct gets a constructor and setters, and the tag property it has as a
    /// member of a tagged union.
    /// The item of `def`; `read`, the condition under which it is read from JSON when that is
    /// not always (a type only requests carry: [`Extras::sent_read`]).
    fn item(
        &self,
        def: &Def,
        cfg: &TokenStream,
        built: Option<Option<&str>>,
        read: Option<TokenStream>,
    ) -> TokenStream {
        let name = format_ident!("{}", def.name);
        let doc = doc_attr(Some(&self.doc_of(def)));
        let partial_eq = self.compare_derive(quote!(PartialEq));
        // The derives of unions and newtypes: `Deserialize` under `read`'s condition, if any.
        let derive = match &read {
            None => quote! {
                #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
                #partial_eq
            },
            Some(read) => quote! {
                #[derive(Debug, Clone, serde::Serialize)]
                #[cfg_attr(#read, derive(serde::Deserialize))]
                #partial_eq
            },
        };
        match &def.kind {
            Kind::Struct { fields, extra } => {
                self.struct_item(def, cfg, (built, read), fields, extra.as_ref())
            }
            Kind::StringEnum(variants) => Self::string_enum_item(
                &doc,
                cfg,
                &name,
                variants,
                self.compare_derive(quote!(PartialEq, Eq, Hash, PartialOrd, Ord)),
            ),
            Kind::Union(members) => {
                let variants = members.iter().map(|(v, ty)| {
                    let doc = format!(" As {}.", self.member_doc(ty));
                    let v = format_ident!("{}", v);
                    let ty = self.tokens(ty);
                    quote!(#[doc = #doc] #v(#ty),)
                });
                let from = built
                    .is_some()
                    .then(|| self.union_from(&name, cfg, members.iter().map(|(v, ty)| (v, ty))));
                quote! {
                    #doc
                    #cfg
                    #[allow(clippy::large_enum_variant)]
                    #derive
                    #[serde(untagged)]
                    pub enum #name {
                        #(#variants)*
                    }
                    #from
                }
            }
            Kind::Tagged { property, variants } => {
                let definitions = variants.iter().map(|(v, ty, tags)| {
                    let values: Vec<String> = tags
                        .iter()
                        .map(|t| format!("`{}`", t.to_string().trim_matches('"')))
                        .collect();
                    let doc = format!(
                        " As {}, when `{property}` is {}.",
                        self.member_doc(ty),
                        values.join(" or ")
                    );
                    let v = format_ident!("{}", v);
                    let ty = self.tokens(ty);
                    quote!(#[doc = #doc] #v(#ty),)
                });
                let selectors = variants.iter().map(|(v, _, tags)| {
                    let v = format_ident!("{}", v);
                    quote!(#v(#(#tags),*))
                });
                let unknown = format!(
                    " A member whose `{property}` this version of the API description does not list, as sent."
                );
                let partial_eq = self.compare_derive(quote!(PartialEq));
                let from = built.is_some().then(|| {
                    self.union_from(&name, cfg, variants.iter().map(|(v, ty, _)| (v, ty)))
                });
                quote! {
                    #from
                    #doc
                    #cfg
                    #[derive(Debug, Clone)]
                    #partial_eq
                    #[allow(clippy::large_enum_variant)]
                    pub enum #name {
                        #(#definitions)*
                        #[doc = #unknown]
                        Unknown(serde_json::Value),
                    }
                    #cfg
                    harness_gen_runtime::tagged! { #name #property { #(#selectors),* } }
                }
            }
            Kind::Alias(ty) => {
                let ty = self.tokens(ty);
                quote! {
                    #doc
                    #cfg
                    pub type #name = #ty;
                }
            }
            Kind::Newtype(ty) => {
                let ty = self.tokens(ty);
                quote! {
                    #doc
                    #cfg
                    #derive
                    #[serde(transparent)]
                    pub struct #name(pub #ty);
                }
            }
            Kind::Pending => quote! {
                #doc
                #cfg
                pub type #name = serde_json::Value;
            },
        }
    }

    /// How a union that callers build is made from its members: `From` each member type no
    /// other member has (and `From<&str>` for its string member), so `title: "Fix it".into()`
    /// reads as the value it is.
    fn union_from<'v>(
        &self,
        name: &proc_macro2::Ident,
        cfg: &TokenStream,
        variants: impl Iterator<Item = (&'v String, &'v Ty)> + Clone,
    ) -> TokenStream {
        let mut out = TokenStream::new();
        // Compared as Rust sees them, through aliases (two names merged into one type); only
        // members whose Rust type that comparison settles (a scalar, a named type), and no
        // dates (a `String` without the `dates` feature).
        let seen: Vec<Ty> = variants
            .clone()
            .map(|(_, ty)| self.see_through(ty))
            .collect();
        for ((v, ty), rust) in variants.zip(&seen) {
            let plain = matches!(
                rust,
                Ty::String | Ty::Integer(_) | Ty::Number | Ty::Float | Ty::Bool | Ty::Named(_)
            );
            if !plain || seen.iter().filter(|other| *other == rust).count() > 1 {
                continue;
            }
            let variant = format_ident!("{}", v);
            let tokens = self.tokens(ty);
            out.extend(quote! {
                #cfg
                impl From<#tokens> for #name {
                    fn from(value: #tokens) -> Self {
                        Self::#variant(value)
                    }
                }
            });
            if *ty == Ty::String {
                out.extend(quote! {
                    #cfg
                    impl From<&str> for #name {
                        fn from(value: &str) -> Self {
                            Self::#variant(value.to_string())
                        }
                    }
                });
            }
        }
        out
    }

    /// A struct, its JSON impls and (when `built`) its constructor and setters.
    fn struct_item(
        &self,
        def: &Def,
        cfg: &TokenStream,
        (built, read): (Option<Option<&str>>, Option<TokenStream>),
        fields: &[Field],
        extra: Option<&Ty>,
    ) -> TokenStream {
        let name = format_ident!("{}", def.name);
        let doc = doc_attr(Some(&self.doc_of(def)));
        let partial_eq = self.compare_derive(quote!(PartialEq));
        // A struct whose fields are all optional can be built with `..Default::default()`.
        let default = fields
            .iter()
            .all(|f| !f.required)
            .then(|| quote!(#[derive(Default)]));
        let deserialize = Self::object_impls(&def.name, fields, extra.is_some(), read);
        let builder = built
            .map(|tag| self.builder(&def.name, fields, extra.is_some(), tag))
            .map(|builder| quote!(#cfg #builder));
        let fields = fields.iter().map(|f| self.field(f));
        let extra = extra.as_ref().map(|ty| {
            let ty = self.tokens(ty);
            quote! {
                /// Properties beyond the declared ones.
                pub additional_properties: std::collections::BTreeMap<String, #ty>,
            }
        });
        quote! {
            #doc
            #cfg
            #[derive(Debug, Clone)]
            #partial_eq
            #default
            pub struct #name {
                #(#fields)*
                #extra
            }
            #cfg
            #deserialize
            #builder
        }
    }

    /// A string enum with its `Other(String)` fallback, written and read as its wire string,
    /// and made from one (`"gpt-4o".into()`: a value the description lists is its variant).
    fn string_enum_item(
        doc: &TokenStream,
        cfg: &TokenStream,
        name: &proc_macro2::Ident,
        variants: &[(String, String)],
        compare: TokenStream,
    ) -> TokenStream {
        let idents: Vec<_> = variants
            .iter()
            .map(|(v, _)| format_ident!("{}", v))
            .collect();
        let wires: Vec<&String> = variants.iter().map(|(_, w)| w).collect();
        let docs = wires.iter().map(|w| format!(" `{w}`"));
        quote! {
            #doc
            #cfg
            #[derive(Debug, Clone)]
            #compare
            pub enum #name {
                #( #[doc = #docs] #idents, )*
                /// A value this version of the API description does not list.
                Other(String),
            }

            // `as_str`, `Serialize`, `From<String>`, `From<&str>` and `Deserialize`.
            #cfg
            harness_gen_runtime::string_enum! { #name { #( #wires => #idents ),* } }
        }
    }

    /// A struct's `Deserialize` and `Serialize` through `harness_gen_runtime::object!`: one
    /// loop with an arm per field instead of the derived visitors, and one call over a table
    /// of its fields instead of a derived `Serialize` (together most of a big API's check time).
    /// Fields are listed in declaration order, each with its index (the arm its key takes).
    fn object_impls(
        name: &str,
        fields: &[Field],
        extra: bool,
        read: Option<TokenStream>,
    ) -> TokenStream {
        let ident = format_ident!("{}", name);
        let entries = fields.iter().enumerate().map(|(index, f)| {
            let index = proc_macro2::Literal::usize_unsuffixed(index);
            let field = format_ident!("{}", f.ident);
            let wire = &f.wire;
            // A required nullable field reads as an `Option` (missing is `None`, as serde's
            // derive has it) and is always written; an optional nullable one keeps a present
            // null apart from absent.
            let how = match (f.required, matches!(f.ty, Ty::Nullable(_))) {
                (true, false) => quote!(required),
                (true, true) => quote!(nullable),
                (false, true) => quote!(present),
                (false, false) => quote!(optional),
            };
            quote!(#index #field: #wire #how)
        });
        let extra = extra.then(|| quote!(+ additional_properties));
        let read = read.map(|condition| quote!(#[cfg(#condition)]));
        quote! {
            harness_gen_runtime::object! { #read #ident { #(#entries),* } #extra }
        }
    }

    /// A struct's constructor and setters through `harness_gen_runtime::builder!`: `new` with
    /// the required fields in schema order, a setter per optional field (see [`Self::built`]).
    fn builder(&self, name: &str, fields: &[Field], extra: bool, tag: Option<&str>) -> TokenStream {
        let Some(built) = self.built(fields, tag) else {
            return TokenStream::new();
        };
        let ident = format_ident!("{}", name);
        let typed = |f: &&Field| {
            let field = format_ident!("{}", f.ident);
            let ty = self.tokens(&f.ty);
            quote!(#field: #ty)
        };
        let required = built.new.iter().map(typed);
        let optional: Vec<TokenStream> = built.set.iter().map(typed).collect();
        let fix = &built.fix;
        let fix = (!fix.is_empty()).then(|| quote!(fix #(#fix),*;));
        let set = (!optional.is_empty()).then(|| quote!(set #(#optional),*;));
        let extra = extra.then(|| quote!(+ additional_properties));
        quote! {
            harness_gen_runtime::builder! { #ident { new(#(#required),*) #fix #set #extra } }
        }
    }

    /// How a struct is built: `new` takes the required fields in schema order, a setter sets
    /// each optional one. A field that can hold one value only (a one-value string enum) is
    /// set by `new` itself when it is required or is the `tag` that tells this struct apart as
    /// a union member, so a built member always carries its tag. `None` for a struct with an
    /// optional field named `new` (its setter would be the constructor's name).
    pub(super) fn built<'f>(&self, fields: &'f [Field], tag: Option<&str>) -> Option<Built<'f>> {
        if fields.iter().any(|f| !f.required && f.ident == "new") {
            return None;
        }
        let fixed = |f: &Field| -> Option<TokenStream> {
            if !f.required && tag != Some(f.wire.as_str()) {
                return None;
            }
            let Ty::Named(id) = f.ty else { return None };
            let (variant, _) = self.one_value(id)?;
            let ty = format_ident!("{}", self.defs[id].name);
            let variant = format_ident!("{}", variant);
            let field = format_ident!("{}", f.ident);
            Some(match f.required {
                true => quote!(#field = #ty::#variant),
                false => quote!(#field = ::core::option::Option::Some(#ty::#variant)),
            })
        };
        let mut built = Built::default();
        for f in fields {
            match (fixed(f), f.required) {
                (Some(value), _) => built.fix.push(value),
                (None, true) => built.new.push(f),
                (None, false) => built.set.push(f),
            }
        }
        Some(built)
    }

    /// How an operation's input is built, for the request builders of the client by
    /// resource: `None` when it is not a struct with a constructor.
    pub fn input_shape(&self, input: &Ty) -> Option<InputShape> {
        let Ty::Named(id) = self.see_through(input) else {
            return None;
        };
        let Kind::Struct { fields, .. } = &self.defs[id].kind else {
            return None;
        };
        let built = self.built(fields, None)?;
        let module = quote!(types);
        let arg = |f: &&Field| InputField {
            ident: f.ident.clone(),
            wire: f.wire.clone(),
            ty: self.qualified_tokens(&f.ty, &module).to_string(),
            doc: f.doc.clone(),
            example: match f.ty {
                Ty::String => Some(format!("{:?}", f.wire)),
                Ty::Integer(_) => Some("1".into()),
                Ty::Number | Ty::Float => Some("1.0".into()),
                Ty::Bool => Some("true".into()),
                _ => None,
            },
        };
        Some(InputShape {
            name: self.defs[id].name.clone(),
            new: built.new.iter().map(arg).collect(),
            set: built.set.iter().map(arg).collect(),
        })
    }

    /// A struct field: its doc, name and type (an optional one in an `Option`; how it
    /// travels is in the struct's `object!` invocation).
    pub(super) fn field(&self, field: &Field) -> TokenStream {
        let ident = format_ident!("{}", field.ident);
        // Every field says something (generated crates deny missing docs): the property's
        // description, or its name on the wire.
        let fallback = format!("`{}`.", field.wire);
        let doc = doc_attr(Some(field.doc.as_deref().unwrap_or(&fallback)));
        let ty = self.field_type(field);
        quote! {
            #doc
            pub #ident: #ty,
        }
    }

    /// A struct field's type: an optional one in an `Option`.
    fn field_type(&self, field: &Field) -> TokenStream {
        let ty = self.tokens(&field.ty);
        match field.required {
            true => ty,
            false => quote!(Option<#ty>),
        }
    }
}

impl TypeSpace<'_> {
    /// A named type's doc: the schema's description, or what the type is (generated crates
    /// deny missing docs, and a reader is better served by "one of the values the API lists"
    /// than by nothing).
    fn doc_of(&self, def: &Def) -> String {
        if let Some(doc) = &def.doc {
            return doc.clone();
        }
        match &def.kind {
            Kind::Struct { .. } => "An object of the API (its description says no more).".into(),
            Kind::StringEnum(_) => "One of the values the API lists, or another it sends.".into(),
            Kind::Union(_) | Kind::Tagged { .. } => "One of several shapes the API allows.".into(),
            Kind::Alias(ty) => format!("The same as {}.", self.member_doc(ty)),
            Kind::Newtype(ty) => format!("A value held as {}.", self.member_doc(ty)),
            Kind::Pending => "Any JSON value.".into(),
        }
    }

    /// How a member or alias target is named in a doc: "[`Name`]", "`Vec<String>`".
    fn member_doc(&self, ty: &Ty) -> String {
        let text: String = self
            .tokens(ty)
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let text = text
            .replace(" < ", "<")
            .replace(" >", ">")
            .replace(" :: ", "::")
            .replace(" ,", ",");
        match ty {
            Ty::Named(_) => format!("[`{text}`]"),
            _ => format!("`{text}`"),
        }
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

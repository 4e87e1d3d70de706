//! The shape of each union, decided once every type it names is converted (a member may be a
//! component converted after the union): tagged where one property tells the members apart,
//! else untagged with the most specific member tried first.
//!
//! A union is **tagged** on property `p` when every member is a struct with a field `p` and
//! - the union has a `discriminator` on `p`: a member's values are the `mapping` entries naming
//!   it, else the one value its `p` pins (`const`, or a one-value `enum`), else its component's
//!   name (the implicit value of OpenAPI); or
//! - without one, when every member pins `p` to one value (the first such property of the first
//!   member: Stripe's `object`, OpenAI's `type`).
//!
//! The values must tell the members apart (no value selects two). A tagged union gets an
//! `Unknown(serde_json::Value)` variant for every other value. Other unions are untagged, and
//! serde tries their members in order, so members are ordered by [`TypeSpace::specificity`]
//! (stable: equally specific members keep the description's order).

use super::*;

/// A union's `discriminator`: the property and its `mapping` (value → reference or name).
pub struct Discriminator {
    property: String,
    mapping: Vec<(String, String)>,
}

impl Discriminator {
    /// The discriminator of a union schema, if it has a usable one.
    pub fn of(map: &Map<String, Value>) -> Option<Self> {
        let discriminator = map.get("discriminator")?;
        let property = discriminator.get("propertyName")?.as_str()?.to_string();
        let mapping = discriminator
            .get("mapping")
            .and_then(Value::as_object)
            .map(|mapping| {
                mapping
                    .iter()
                    .filter_map(|(value, target)| {
                        Some((value.clone(), target.as_str()?.to_string()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Self { property, mapping })
    }

    /// Whether a mapping target (`#/components/schemas/Name` or a bare `Name`) is `component`.
    fn names(target: &str, component: &str) -> bool {
        match harness_gen_contract::schema::standalone::classify(target) {
            harness_gen_contract::schema::standalone::RefTarget::Component { name, rest } => {
                rest.is_empty() && name == component
            }
            _ => target == component,
        }
    }
}

/// A union waiting for its shape.
pub struct Unsettled {
    /// The union's id.
    pub id: usize,
    /// Its `discriminator`.
    pub discriminator: Option<Discriminator>,
    /// Per member (in the union's variant order), the component it references, if it is one.
    pub components: Vec<Option<String>>,
    /// Where the union's schema is, for a report.
    pub pointer: String,
}

impl TypeSpace<'_> {
    /// Gives every union converted so far its shape (see the module docs).
    pub fn settle_unions(&mut self) {
        for union in std::mem::take(&mut self.unsettled) {
            let Kind::Union(variants) = &self.defs[union.id].kind else {
                continue;
            };
            let tagged = union
                .discriminator
                .as_ref()
                .and_then(|d| self.discriminated(d, variants, &union.components))
                .or_else(|| self.pinned_tags(variants));
            let kind = match tagged {
                Some((property, tags)) => Kind::Tagged {
                    property,
                    variants: variants
                        .iter()
                        .cloned()
                        .zip(tags)
                        .map(|((ident, ty), tags)| (ident, ty, tags))
                        .collect(),
                },
                None => {
                    let mut ordered = variants.clone();
                    ordered.sort_by_key(|(_, ty)| self.specificity(ty));
                    if let Some(why) = self.shadowed(&self.defs[union.id].name, &ordered) {
                        self.warnings.push((union.pointer.clone(), why));
                    }
                    Kind::Union(ordered)
                }
            };
            self.defs[union.id].kind = kind;
        }
    }

    /// The tag values of each member under `discriminator`, if every member is a struct with
    /// its property and the values tell them apart.
    fn discriminated(
        &self,
        discriminator: &Discriminator,
        variants: &[(String, Ty)],
        components: &[Option<String>],
    ) -> Option<(String, Vec<Vec<String>>)> {
        let property = &discriminator.property;
        let mut tags = Vec::new();
        for ((_, ty), component) in variants.iter().zip(components) {
            let field = self.field_of(ty, property)?;
            let mapped: Vec<String> = match component {
                Some(component) => discriminator
                    .mapping
                    .iter()
                    .filter(|(_, target)| Discriminator::names(target, component))
                    .map(|(value, _)| value.clone())
                    .collect(),
                None => Vec::new(),
            };
            let values = if !mapped.is_empty() {
                mapped
            } else if let Some(pinned) = self.pinned(&field.ty) {
                vec![pinned.to_string()]
            } else {
                vec![component.clone()?]
            };
            tags.push(values);
        }
        distinct(&tags).then(|| (property.clone(), tags))
    }

    /// The first property of the first member that every member pins to one value of its
    /// own, with those values.
    fn pinned_tags(&self, variants: &[(String, Ty)]) -> Option<(String, Vec<Vec<String>>)> {
        if variants.len() < 2 {
            return None;
        }
        let Kind::Struct { fields, .. } = self.kind_of(&variants[0].1)? else {
            return None;
        };
        fields.iter().find_map(|candidate| {
            let tags: Option<Vec<Vec<String>>> = variants
                .iter()
                .map(|(_, ty)| {
                    let field = self.field_of(ty, &candidate.wire)?;
                    Some(vec![self.pinned(&field.ty)?.to_string()])
                })
                .collect();
            let tags = tags?;
            distinct(&tags).then(|| (candidate.wire.clone(), tags))
        })
    }

    /// The kind of the named type `ty` is, seen through aliases, options and boxes.
    fn kind_of(&self, ty: &Ty) -> Option<&Kind> {
        match self.see_through(ty) {
            Ty::Named(id) => Some(&self.defs[id].kind),
            _ => None,
        }
    }

    /// Field `wire` of the struct `ty` is.
    fn field_of(&self, ty: &Ty, wire: &str) -> Option<&Field> {
        match self.kind_of(ty)? {
            Kind::Struct { fields, .. } => fields.iter().find(|f| f.wire == wire),
            _ => None,
        }
    }

    /// The one value a field's type pins: a string enum of one value.
    fn pinned(&self, ty: &Ty) -> Option<&str> {
        match self.see_through(ty) {
            Ty::Named(id) => self.one_value(id).map(|(_, wire)| wire.as_str()),
            _ => None,
        }
    }

    /// The (variant, wire value) of named type `id` when it is a string enum of one value.
    pub(super) fn one_value(&self, id: usize) -> Option<&(String, String)> {
        match &self.defs[self.aliased(id)].kind {
            Kind::StringEnum(values) if values.len() == 1 => values.first(),
            _ => None,
        }
    }

    /// How specific a member of an untagged union is: lower is tried first. Values of a
    /// narrower type come before those of a wider one that also accepts them: null, booleans,
    /// integers (narrow widths first) and formatted strings; structs, those with more required
    /// fields first (a struct ignores unknown fields, so one with fewer required fields
    /// accepts more objects), then tagged unions; lists and untagged unions; numbers and base64
    /// bytes; string enums (their `Other` takes any string), plain strings; structs without
    /// required fields and maps (any object); anything.
    pub(super) fn specificity(&self, ty: &Ty) -> (u8, usize) {
        match self.see_through(ty) {
            Ty::Unit | Ty::Bool => (0, 0),
            Ty::Integer(width) => (1, width as usize),
            Ty::Format(Format::DateTime | Format::Date | Format::Uuid) => (2, 0),
            Ty::Named(id) => match &self.defs[id].kind {
                Kind::Struct { fields, .. } => match fields.iter().filter(|f| f.required).count() {
                    0 => (8, 0),
                    required => (3, usize::MAX - required),
                },
                Kind::Tagged { .. } => (4, 0),
                Kind::Union(_) => (5, 0),
                Kind::StringEnum(_) => (6, 0),
                Kind::Newtype(inner) => self.specificity(inner),
                Kind::Alias(_) | Kind::Pending => (9, 0),
            },
            Ty::Vec(_) => (5, 0),
            Ty::Number | Ty::Float | Ty::Format(Format::Bytes | Format::Upload) => (5, 1),
            Ty::String => (7, 0),
            Ty::Map(_) => (8, 1),
            Ty::Value => (9, 0),
            Ty::Nullable(_) | Ty::Boxed(_) => (9, 0),
        }
    }
}

impl TypeSpace<'_> {
    /// Why an untagged union (members in the order serde tries them) has a member that can
    /// never be read: an earlier member of the same Rust type, or an earlier struct that
    /// requires no property and types every property the later one shares with it alike (it
    /// reads every value of the later one). `None` when every member can be read.
    fn shadowed(&self, union: &str, members: &[(String, Ty)]) -> Option<String> {
        let seen: Vec<Ty> = members.iter().map(|(_, ty)| self.see_through(ty)).collect();
        let fields = |ty: &Ty| match ty {
            Ty::Named(id) => match &self.defs[*id].kind {
                Kind::Struct { fields, .. } => Some(fields),
                _ => None,
            },
            _ => None,
        };
        for (later, (rust, (name, _))) in seen.iter().zip(members).enumerate() {
            let dated = matches!(rust, Ty::Format(Format::Date | Format::DateTime));
            for (earlier, first) in seen[..later].iter().enumerate() {
                let same = first == rust && !dated;
                let covers = match (fields(first), fields(rust)) {
                    (Some(first), Some(theirs)) => {
                        first.iter().all(|f| !f.required)
                            && theirs.iter().all(|t| {
                                first.iter().find(|f| f.wire == t.wire).is_none_or(|f| {
                                    self.see_through(&f.ty) == self.see_through(&t.ty)
                                })
                            })
                    }
                    _ => false,
                };
                if same || covers {
                    let other = &members[earlier].0;
                    let how = match same {
                        true => "is the same Rust type",
                        false => "requires no property, so it reads every value of it",
                    };
                    return Some(format!(
                        "`{union}`: member `{name}` is never read: `{other}`, tried first, {how}; give the members required properties that tell them apart, or a `discriminator`"
                    ));
                }
            }
        }
        None
    }
}

/// Whether no tag value selects two members (and every member has one).
fn distinct(tags: &[Vec<String>]) -> bool {
    let mut seen = BTreeSet::new();
    tags.iter()
        .all(|values| !values.is_empty() && values.iter().all(|v| seen.insert(v.as_str())))
}

//! Types of one shape are one type. Real descriptions repeat inline schemas: Stripe declares
//! `object: {enum: [list]}` on 123 list objects and the `enum: [""]` that unsets a field on
//! 638 parameters, and many operations take the same `expand`-only input. Each repetition used
//! to be a type of its own with its own impls, a third of Stripe's generated lines and of its
//! check time. Here a type whose shape (fields with their names, types and docs, variants,
//! tags) equals an earlier one's becomes an alias of it (`pub type ChargeRefundsObject =
//! AccountExternalAccountsObject;`): the name, its doc and every use stay, the code is
//! compiled once, and the cargo features that need either compile the one. Only `Debug`
//! output and "expected" messages name the type that kept the shape.
//!
//! Shapes compare with references seen through aliases, so merging is repeated until nothing
//! changes: two structs become one once the enums their fields use have. The earliest type of
//! a shape keeps it (components before inline schemas, each in description order), so the
//! names an author chose win over names made up from where a schema sits.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use super::*;

impl TypeSpace<'_> {
    /// Makes each type whose shape an earlier type has an alias of that type; the number
    /// of types that became aliases.
    pub fn merge_identical(&mut self) -> usize {
        let mut merged = 0;
        loop {
            let mut first: HashMap<Kind, usize> = HashMap::new();
            let mut same = Vec::new();
            for (id, def) in self.defs.iter().enumerate() {
                let mergeable = matches!(
                    def.kind,
                    Kind::Struct { .. }
                        | Kind::StringEnum(_)
                        | Kind::Union(_)
                        | Kind::Tagged { .. }
                );
                if !mergeable {
                    continue;
                }
                match first.entry(self.shape(&def.kind)) {
                    Entry::Occupied(earlier) => same.push((id, *earlier.get())),
                    Entry::Vacant(slot) => {
                        slot.insert(id);
                    }
                }
            }
            if same.is_empty() {
                return merged;
            }
            merged += same.len();
            for (id, earlier) in same {
                self.defs[id].kind = Kind::Alias(Ty::Named(earlier));
                if self.defs[id].doc.is_none() {
                    let doc = format!(
                        "The same shape as [`{}`], so the same type.",
                        self.defs[earlier].name
                    );
                    self.defs[id].doc = Some(doc);
                }
            }
        }
    }

    /// `kind` with every named type it refers to replaced by what that name is an alias of.
    fn shape(&self, kind: &Kind) -> Kind {
        let mut kind = kind.clone();
        let resolve = |ty: &mut Ty| self.resolve_names(ty);
        match &mut kind {
            Kind::Struct { fields, extra } => {
                fields.iter_mut().for_each(|f| resolve(&mut f.ty));
                extra.iter_mut().for_each(resolve);
            }
            Kind::Union(variants) => variants.iter_mut().for_each(|(_, ty)| resolve(ty)),
            Kind::Tagged { variants, .. } => variants.iter_mut().for_each(|(_, ty, _)| resolve(ty)),
            Kind::StringEnum(_) | Kind::Alias(_) | Kind::Newtype(_) | Kind::Pending => {}
        }
        kind
    }

    /// `ty` with every named type in it replaced by what that name is an alias of.
    pub fn unaliased(&self, ty: &Ty) -> Ty {
        let mut ty = ty.clone();
        self.resolve_names(&mut ty);
        ty
    }

    fn resolve_names(&self, ty: &mut Ty) {
        match ty {
            Ty::Vec(inner) | Ty::Map(inner) | Ty::Nullable(inner) | Ty::Boxed(inner) => {
                self.resolve_names(inner)
            }
            Ty::Named(id) => *id = self.aliased(*id),
            _ => {}
        }
    }

    /// The type named type `id` is another name for (through plain aliases of named types),
    /// or `id` itself.
    pub(super) fn aliased(&self, mut id: usize) -> usize {
        for _ in 0..64 {
            match &self.defs[id].kind {
                Kind::Alias(Ty::Named(next)) => id = *next,
                _ => break,
            }
        }
        id
    }
}

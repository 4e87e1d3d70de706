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

use super::*;

impl TypeSpace<'_> {
    /// Makes the types of one shape aliases of one of them; the number of types that became
    /// aliases. The one kept is a component's if any is one (a name an author chose beats a
    /// name made up from where a schema sits), then the most `used` (how many operations and
    /// types name it: OpenAI's `ModelIdsShared` over its copy `BetaModelIdsShared`), then the
    /// earliest.
    pub fn merge_identical(&mut self, used: &[usize]) -> usize {
        let components: std::collections::HashSet<usize> =
            self.component_ids.values().copied().collect();
        let rank = |id: usize| {
            (
                components.contains(&id),
                used.get(id).copied().unwrap_or(0),
                std::cmp::Reverse(id),
            )
        };
        let mut merged = 0;
        loop {
            let mut groups: HashMap<Kind, Vec<usize>> = HashMap::new();
            for (id, def) in self.defs.iter().enumerate() {
                let mergeable = matches!(
                    def.kind,
                    Kind::Struct { .. }
                        | Kind::StringEnum(_)
                        | Kind::Union(_)
                        | Kind::Tagged { .. }
                );
                if mergeable {
                    groups.entry(self.shape(&def.kind)).or_default().push(id);
                }
            }
            let mut same = Vec::new();
            for ids in groups.into_values().filter(|ids| ids.len() > 1) {
                let Some(&kept) = ids.iter().max_by_key(|id| rank(**id)) else {
                    continue;
                };
                same.extend(
                    ids.into_iter()
                        .filter(|id| *id != kept)
                        .map(|id| (id, kept)),
                );
            }
            if same.is_empty() {
                return merged;
            }
            same.sort_unstable();
            merged += same.len();
            for (id, kept) in same {
                self.defs[id].kind = Kind::Alias(Ty::Named(kept));
                if self.defs[id].doc.is_none() {
                    let doc = format!(
                        "The same shape as [`{}`], so the same type.",
                        self.defs[kept].name
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

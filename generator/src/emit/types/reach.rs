//! Which named types use which: what an operation needs compiled, so each type can be put
//! behind the cargo features of the operations that use it.

use super::*;

impl TypeSpace<'_> {
    /// The named types `ty` refers to directly (through `Vec`, maps, `Option` and `Box`, not
    /// through other named types).
    pub fn named_in(ty: &Ty, out: &mut Vec<usize>) {
        match ty {
            Ty::Vec(inner) | Ty::Map(inner) | Ty::Nullable(inner) | Ty::Boxed(inner) => {
                Self::named_in(inner, out)
            }
            Ty::Named(id) => out.push(*id),
            _ => {}
        }
    }

    /// The named types each named type's fields, variants or target refer to directly, by id.
    pub fn uses(&self) -> Vec<Vec<usize>> {
        self.defs
            .iter()
            .map(|def| {
                let mut out = Vec::new();
                match &def.kind {
                    Kind::Struct { fields, extra } => {
                        for ty in fields.iter().map(|f| &f.ty).chain(extra) {
                            Self::named_in(ty, &mut out);
                        }
                    }
                    Kind::Union(variants) => {
                        for (_, ty) in variants {
                            Self::named_in(ty, &mut out);
                        }
                    }
                    Kind::Tagged { variants, .. } => {
                        for (_, ty, _) in variants {
                            Self::named_in(ty, &mut out);
                        }
                    }
                    Kind::Alias(ty) | Kind::Newtype(ty) => Self::named_in(ty, &mut out),
                    Kind::StringEnum(_) | Kind::Pending => {}
                }
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect()
    }
}

impl TypeSpace<'_> {
    /// Which named types (by id) `roots` reach, directly or through other named types (`uses`
    /// is [`TypeSpace::uses`]).
    pub fn reached(&self, uses: &[Vec<usize>], roots: &[&Ty]) -> Vec<bool> {
        let mut reached = vec![false; self.defs.len()];
        let mut work = Vec::new();
        for ty in roots {
            Self::named_in(ty, &mut work);
        }
        while let Some(id) = work.pop() {
            if !std::mem::replace(&mut reached[id], true) {
                work.extend(&uses[id]);
            }
        }
        reached
    }
}

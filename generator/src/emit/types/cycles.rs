//! Cycle analysis over the defined types: recursive aliases become newtypes, and fields that
//! would make a type infinitely large are boxed.

use super::*;

impl TypeSpace<'_> {
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
                Kind::Tagged { variants, .. } => variants.iter_mut().for_each(|(_, ty, _)| fix(ty)),
                Kind::Alias(ty) | Kind::Newtype(ty) => fix(ty),
                _ => {}
            }
            self.defs[i].kind = kind;
        }
    }

    /// Type aliases cannot refer to themselves, even through `Vec` or a map: an alias that
    /// reaches itself through other aliases becomes a transparent newtype.
    pub(super) fn newtype_recursive_aliases(&mut self) {
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
    pub(super) fn break_alias_cycles(&mut self) {
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
        Kind::Tagged { variants, .. } => {
            variants.iter().for_each(|(_, ty, _)| collect(ty, &mut out))
        }
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

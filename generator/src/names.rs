//! Every name the generator makes from a document, one rule per kind, and the deterministic,
//! reported uniquifying of each.
//!
//! Two kinds of name come out of here:
//!
//! - **Stems**: the words of a document's name in the case an identifier kind uses
//!   ([`camel`] for types, enum variants and union members; [`snake`] for fields, methods,
//!   modules and tool names), restricted to ASCII letters, digits and `_`, never empty, never
//!   starting with a digit. A stem may be a keyword (`Self`, `type`). Names are composed from
//!   stems only (`Self` + `LinksItem` is `SelfLinksItem`), never from identifiers, so an escape
//!   never ends up inside a name.
//! - **Identifiers**: a stem made safe to stand as a Rust identifier by [`ident`]: a stem that
//!   is a keyword of the 2024 edition (strict or reserved) or `_` gets a trailing `_` (`type_`,
//!   `Self_`). [`Unique::idents`] hands out identifiers of one namespace, escaping each
//!   candidate, so a keyword can never be claimed bare; [`stem`] gives a claimed identifier's
//!   stem back for composing.
//!
//! A suffix rather than a raw identifier (`r#type`) escapes every keyword: `self`, `Self`,
//! `super` and `crate` have no raw form, and one rule for all keeps names predictable across
//! identifier kinds (the field `type_`, its setter `type_`, the CLI option `--type`).
//! Weak keywords (`union`, `raw`, `safe`, `macro_rules`) are ordinary identifiers wherever the
//! generator puts a name and stay as they are.

use std::collections::BTreeSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Longest default tool name (MCP clients commonly cap names at 64 characters).
pub const MAX_TOOL_NAME: usize = 64;

/// Rust keywords, strict and reserved, of the 2024 edition: a stem equal to one gets a
/// trailing `_` as an identifier ([`ident`]).
pub const RUST_KEYWORDS: &[&str] = &[
    // Strict.
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", // Reserved.
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// `text` with everything but ASCII letters and digits turned into word breaks.
pub fn ascii_words(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// The UpperCamelCase stem of `text`: its ASCII words, `Type` when there are none, `T` before a
/// leading digit. May be `Self`: make it an identifier with [`ident`].
pub fn camel(text: &str) -> String {
    let mut name = ascii_words(text).to_upper_camel_case();
    if name.is_empty() {
        name.push_str("Type");
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    name
}

/// The snake_case stem of `text`: restricted to `[a-z0-9_]`, `x` when nothing is left, `_`
/// before a leading digit. May be a keyword: make it an identifier with [`ident`].
pub fn snake(text: &str) -> String {
    snake_or(text, "x")
}

/// [`snake`], with `empty` where `text` has no ASCII letter or digit.
fn snake_or(text: &str, empty: &str) -> String {
    let mut out = ascii_words(text).to_snake_case();
    if out.is_empty() {
        out.push_str(empty);
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Whether `stem` cannot stand as an identifier as it is: a strict or reserved keyword, or `_`.
pub fn is_keyword(stem: &str) -> bool {
    stem == "_" || RUST_KEYWORDS.contains(&stem)
}

/// `stem` as an identifier: a keyword (or `_`) gets a trailing `_`.
pub fn ident(stem: &str) -> String {
    match is_keyword(stem) {
        true => format!("{stem}_"),
        false => stem.to_string(),
    }
}

/// The stem of an identifier [`ident`] made: `type_` is `type`, `Self_` is `Self`; any other
/// name is its own stem.
pub fn stem(ident: &str) -> &str {
    match ident.strip_suffix('_') {
        Some(stem) if is_keyword(stem) => stem,
        _ => ident,
    }
}

/// A type, enum variant or union member identifier of `text` (UpperCamelCase, ASCII, not
/// starting with a digit, never a keyword).
pub fn type_name(text: &str) -> String {
    ident(&camel(text))
}

/// A field, method or module identifier of `text` (snake_case, ASCII, `field` when nothing is
/// left, never a keyword).
pub fn field_name(text: &str) -> String {
    ident(&snake_or(text, "field"))
}

/// An enum variant's stem for a string value: `Empty` for `""`, `Value` for a value without
/// letters or digits, else its [`camel`] stem.
pub fn variant_stem(value: &str) -> String {
    if value.is_empty() {
        return "Empty".to_string();
    }
    if !value.chars().any(|c| c.is_ascii_alphanumeric()) {
        return "Value".to_string();
    }
    camel(value)
}

/// The stems of `parts` joined into one UpperCamelCase stem (`Self_` and `LinksItem`:
/// `SelfLinksItem`); each part is a stem or an identifier.
pub fn join_camel(parts: &[&str]) -> String {
    parts.iter().map(|part| stem(part)).collect()
}

/// `base`'s stem followed by `_` and `suffix` (`type_` and `events`: `type_events`), as an
/// identifier.
pub fn join_snake(base: &str, suffix: &str) -> String {
    ident(&format!("{}_{suffix}", stem(base)))
}

/// `text` as one CLI command segment: the runtime's one kebab-case rule
/// ([`harness_gen_runtime::cli_names::kebab`]), `x` when nothing is left.
pub fn kebab(text: &str) -> String {
    match harness_gen_contract::cli_names::kebab(text) {
        empty if empty.is_empty() => "x".to_string(),
        segment => segment,
    }
}

/// The default tool name: the [`snake`] stem as an identifier (`type_`, so the SDK method of
/// the same name needs no other), shortened past [`MAX_TOOL_NAME`] to a prefix plus a hash of
/// the whole name (the runtime's one rule, [`harness_gen_runtime::cli_names::shorten`], which
/// the MCP server's name budget uses too).
pub fn tool_name(raw: &str) -> String {
    harness_gen_contract::cli_names::shorten(&ident(&snake(raw)), MAX_TOOL_NAME)
}

/// Hands out unique names of one namespace: the first claim of a name gets it, later ones get
/// `_2`, `_3`, … A namespace of Rust identifiers ([`Unique::idents`]) escapes each candidate
/// ([`ident`]); one of other names ([`Unique::plain`]: tool names, input properties, CLI
/// options) takes them as they are.
pub struct Unique {
    taken: BTreeSet<String>,
    idents: bool,
}

impl Unique {
    /// A namespace of Rust identifiers: no claim is ever a keyword.
    pub fn idents() -> Self {
        Self {
            taken: BTreeSet::new(),
            idents: true,
        }
    }

    /// A namespace of names that are not Rust identifiers.
    pub fn plain() -> Self {
        Self {
            taken: BTreeSet::new(),
            idents: false,
        }
    }

    /// Marks `name` as taken; false if it already was.
    pub fn reserve(&mut self, name: &str) -> bool {
        self.taken.insert(name.to_string())
    }

    /// `base` if free, else the first free `{stem}{sep}{n}` (n = 2, 3, …). Among identifiers,
    /// `base` is escaped when it is a keyword and the number goes on its stem: `Self`, then
    /// `Self2` (CamelCase has no `_`); `type`, then `type_2`.
    pub fn claim(&mut self, base: &str, sep: &str) -> String {
        let (mut name, stem) = match self.idents {
            true => (ident(stem(base)), stem(base)),
            false => (base.to_string(), base),
        };
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{stem}{sep}{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weak keywords: keywords only in one place of the grammar, ordinary identifiers wherever
    /// the generator puts a name.
    const WEAK_KEYWORDS: &[&str] = &["macro_rules", "raw", "safe", "union"];

    #[test]
    fn snake_names_are_mcp_friendly() {
        assert_eq!(snake("getPetById"), "get_pet_by_id");
        assert_eq!(snake("repos/get-content"), "repos_get_content");
        assert_eq!(snake("Ünïcode op"), "n_code_op");
        assert_eq!(snake("2fa-enable"), "_2fa_enable");
        assert_eq!(snake("***"), "x");
    }

    #[test]
    fn keywords_get_a_suffix() {
        assert_eq!(tool_name("type"), "type_");
        assert_eq!(tool_name("Match"), "match_");
        assert_eq!(type_name("self"), "Self_");
        assert_eq!(field_name("Self"), "self_");
        assert_eq!(field_name("_"), "field");
        assert_eq!(ident("_"), "__");
    }

    #[test]
    fn names_are_composed_from_stems_never_from_escapes() {
        assert_eq!(join_camel(&["Self_", "Super", "Item"]), "SelfSuperItem");
        assert_eq!(join_camel(&["Pinned", "Self_"]), "PinnedSelf");
        assert_eq!(join_snake("type_", "events"), "type_events");
        assert_eq!(join_snake("self_", "pages"), "self_pages");
        assert_eq!(stem("Self2"), "Self2");
        assert_eq!(stem("raw_"), "raw_");
    }

    #[test]
    fn long_names_are_shortened_deterministically() {
        let long = "a".repeat(50) + &"b".repeat(50);
        let short = tool_name(&long);
        assert_eq!(short.len(), MAX_TOOL_NAME);
        assert_eq!(short, tool_name(&long));
        assert_ne!(short, tool_name(&(long + "c")));
    }

    #[test]
    fn unique_claims_number_repeats() {
        let mut unique = Unique::plain();
        assert_eq!(unique.claim("a", "_"), "a");
        assert_eq!(unique.claim("a", "_"), "a_2");
        assert_eq!(unique.claim("a", "_"), "a_3");
        assert_eq!(unique.claim("type", "_"), "type");
    }

    #[test]
    fn identifiers_are_never_claimed_bare_when_keywords() {
        let mut unique = Unique::idents();
        assert_eq!(unique.claim("Self", ""), "Self_");
        assert_eq!(unique.claim("Self_", ""), "Self2");
        assert_eq!(unique.claim("type", "_"), "type_");
        assert_eq!(unique.claim("type_", "_"), "type_2");
        assert_eq!(unique.claim("_", "_"), "__");
    }

    /// Every strict, reserved and weak keyword, in every case a document's name can take, made
    /// into each kind of identifier and put where the generator puts that kind: the file parses.
    #[test]
    fn every_keyword_makes_identifiers_of_every_kind_that_parse() {
        let spellings = |k: &str| {
            [
                k.to_string(),
                k.to_uppercase(),
                camel(k),
                format!("r#{k}"),
                format!("{k}_"),
                format!("_{k}"),
                format!("{k}-"),
            ]
        };
        for keyword in RUST_KEYWORDS
            .iter()
            .chain(WEAK_KEYWORDS)
            .chain(&["_", "r#", ""])
        {
            for text in spellings(keyword) {
                let ty = type_name(&text);
                let field = field_name(&text);
                let tool = tool_name(&text);
                let composed = join_camel(&[&ty, &type_name(keyword)]);
                let method = join_snake(&field, "events");
                let file = format!(
                    "pub struct {ty} {{ pub {field}: u8 }}\n\
                     pub enum E {{ {ty}, {composed} }}\n\
                     pub mod {field} {{ pub fn {tool}() {{}} pub fn {method}() {{}} }}\n\
                     pub type {composed} = {ty};\n\
                     impl {ty} {{ pub fn {field}(self) -> Self {{ Self {{ {field}: self.{field} }} }} }}\n"
                );
                assert!(
                    syn::parse_file(&file).is_ok(),
                    "{text:?} made Rust that does not parse:\n{file}"
                );
                assert!(
                    !composed.contains("_") || composed.ends_with('_'),
                    "{composed}"
                );
            }
        }
    }
}

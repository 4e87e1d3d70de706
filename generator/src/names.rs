//! Names derived from a document: tool names, CLI segments, property names; and the
//! deterministic, reported uniquifying of each.

use std::collections::BTreeSet;

use heck::ToSnakeCase;

/// Longest default tool name (MCP clients commonly cap names at 64 characters).
pub const MAX_TOOL_NAME: usize = 64;

/// Rust keywords (strict and reserved, 2024 edition): a default tool name equal to one gets a
/// trailing `_`, so the SDK function of the same name is an ordinary identifier.
pub const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// `text` with everything but ASCII letters and digits turned into word breaks.
pub fn ascii_words(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// `text` in snake_case restricted to `[a-z0-9_]`, never empty, never starting with a digit.
pub fn snake(text: &str) -> String {
    let mut out = ascii_words(text).to_snake_case();
    if out.is_empty() {
        out.push('x');
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `text` as one CLI command segment: the runtime's one kebab-case rule
/// ([`harness_gen_runtime::cli_names::kebab`]), `x` when nothing is left.
pub fn kebab(text: &str) -> String {
    match harness_gen_contract::cli_names::kebab(text) {
        empty if empty.is_empty() => "x".to_string(),
        segment => segment,
    }
}

/// The default tool name: snake_case, Rust keywords suffixed with `_`, shortened past
/// [`MAX_TOOL_NAME`] to a prefix plus a hash of the whole name (the runtime's one rule,
/// [`harness_gen_runtime::cli_names::shorten`], which the MCP server's name budget uses too).
pub fn tool_name(raw: &str) -> String {
    let mut name = snake(raw);
    if RUST_KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    harness_gen_contract::cli_names::shorten(&name, MAX_TOOL_NAME)
}

/// Hands out unique names: the first claim of a name gets it, later ones get `_2`, `_3`, …
#[derive(Default)]
pub struct Unique {
    taken: BTreeSet<String>,
}

impl Unique {
    /// Marks `name` as taken; false if it already was.
    pub fn reserve(&mut self, name: &str) -> bool {
        self.taken.insert(name.to_string())
    }

    /// `base` if free, else the first free `base{sep}n` (n = 2, 3, …). Without a separator, a
    /// CamelCase keyword's escape (`Self_`) takes the number in its place (`Self2`: CamelCase
    /// has no `_`).
    pub fn claim(&mut self, base: &str, sep: &str) -> String {
        let mut name = base.to_string();
        let camel = base.starts_with(|c: char| c.is_ascii_uppercase());
        let stem = match sep {
            "" if camel => base.trim_end_matches('_'),
            _ => base,
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
        let mut unique = Unique::default();
        assert_eq!(unique.claim("a", "_"), "a");
        assert_eq!(unique.claim("a", "_"), "a_2");
        assert_eq!(unique.claim("a", "_"), "a_3");
        assert_eq!(unique.claim("Self_", ""), "Self_");
        assert_eq!(unique.claim("Self_", ""), "Self2");
    }
}

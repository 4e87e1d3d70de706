//! Naming rules shared by the catalog's validation, the generated CLI, the MCP server and the
//! generator: the reserved global options, the one kebab-case rule, the default option name of
//! an input property, the options of a request body's fields ([`body`]), and the one rule that
//! shortens a name to a length budget. A leaf: it depends on nothing else in the crate.

pub mod body;

/// `--input-json`: the whole input as JSON.
pub const INPUT_JSON: &str = "input-json";
/// `--output-format`: json, pretty or text.
pub const OUTPUT_FORMAT: &str = "output-format";
/// `--base-url`: the API's base URL (the MCP program has it too).
pub const BASE_URL: &str = "base-url";
/// `--completions`: print shell completions.
pub const COMPLETIONS: &str = "completions";
/// `--paginate`: follow every page of a tool that lists in pages and print every item.
pub const PAGINATE: &str = "paginate";
/// `--max-pages`: with `--paginate`, how many pages at most (default `binding::MAX_PAGES`).
pub const PAGE_LIMIT: &str = "max-pages";
/// `--include`: print each reply's status and headers on standard error.
pub const INCLUDE: &str = "include";
/// `--output`: write the output to a file (`-` for standard output), whole or not at all;
/// needed for binary output on a terminal.
pub const OUTPUT_FILE: &str = "output";

/// Long options every generated CLI defines itself (`help` and `version` by clap, the others by
/// [`crate::cli`] from the constants above); no tool argument may use them.
pub const RESERVED_LONG: &[&str] = &[
    "help",
    "version",
    INPUT_JSON,
    OUTPUT_FORMAT,
    BASE_URL,
    COMPLETIONS,
    PAGINATE,
    PAGE_LIMIT,
    OUTPUT_FILE,
    INCLUDE,
];

/// Short options every generated CLI defines itself.
pub const RESERVED_SHORT: &[char] = &['h', 'V'];

/// One way to name an argument on the command line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArgumentName {
    /// `--name`.
    Long(String),
    /// `-c`.
    Short(char),
    /// The n-th positional argument.
    Position(u32),
}

impl std::fmt::Display for ArgumentName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgumentName::Long(name) => write!(f, "option `--{name}`"),
            ArgumentName::Short(c) => write!(f, "option `-{c}`"),
            ArgumentName::Position(n) => write!(f, "position {n}"),
        }
    }
}

/// Whether the CLI itself owns `name`.
pub fn is_reserved(name: &ArgumentName) -> bool {
    match name {
        ArgumentName::Long(long) => RESERVED_LONG.contains(&long.as_str()),
        ArgumentName::Short(c) => RESERVED_SHORT.contains(c),
        ArgumentName::Position(_) => false,
    }
}

/// The one kebab-case rule of every CLI name (command segments, default long options, crate and
/// catalog names): ASCII letters and digits are kept and lowercased, anything else is a word
/// break; a word also breaks before a capital that follows a lowercase letter or a digit, and
/// before the last capital of an acronym that a lowercase letter follows (`XMLHttpRequest` →
/// `xml-http-request`, `petId` → `pet-id`). Empty when the text has no letter or digit.
pub fn kebab(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 4);
    let mut break_pending = false;
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            break_pending = true;
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let acronym_ends = prev.is_ascii_uppercase()
                && chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            break_pending |= prev.is_ascii_lowercase() || prev.is_ascii_digit() || acronym_ends;
        }
        if break_pending && !out.is_empty() {
            out.push('-');
        }
        break_pending = false;
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The long option a property gets without an explicit `long`: its name in kebab-case
/// ([`kebab`]), or `arg` when that is empty.
pub fn default_long(property: &str) -> String {
    match kebab(property) {
        empty if empty.is_empty() => "arg".to_string(),
        name => name,
    }
}

/// `name` cut to at most `max` bytes, deterministically and stable across runs: unchanged when
/// it fits, else a readable prefix, `_`, and 8 hex digits of the SHA-256 of the whole name
/// (`max` below 9 keeps the hash alone, cut).
pub fn shorten(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let hash: String = crate::sha256::hex(name.as_bytes())[..8].to_string();
    if max <= hash.len() {
        return hash[..max].to_string();
    }
    let mut cut = max - hash.len() - 1;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix = name[..cut].trim_end_matches('_');
    if prefix.is_empty() {
        hash
    } else {
        format!("{prefix}_{hash}")
    }
}

/// Each of `names` within `max` bytes ([`shorten`]) and unique: a shortened name that another
/// already has is shortened again from the name with `#2`, `#3`, … appended (so it gets another
/// hash), in order. The result is the same for the same names in the same order.
pub fn short_names<'a>(names: impl IntoIterator<Item = &'a str>, max: usize) -> Vec<String> {
    let names: Vec<&str> = names.into_iter().collect();
    // Names that fit keep themselves first, so a long name never takes a short one's place.
    let mut taken: std::collections::BTreeSet<String> = names
        .iter()
        .filter(|n| n.len() <= max)
        .map(|n| n.to_string())
        .collect();
    names
        .iter()
        .map(|name| {
            if name.len() <= max {
                return name.to_string();
            }
            let mut short = shorten(name, max);
            let mut n = 2;
            while !taken.insert(short.clone()) {
                short = shorten(&format!("{name}#{n}"), max);
                n += 1;
            }
            short
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_long_names_are_kebab_case() {
        assert_eq!(default_long("petId"), "pet-id");
        assert_eq!(default_long("page_size"), "page-size");
        assert_eq!(default_long("X-Request-ID"), "x-request-id");
        assert_eq!(default_long("filter[name]"), "filter-name");
        assert_eq!(default_long("__"), "arg");
    }

    /// The cases on which the generator's segments and the runtime's options once disagreed.
    #[test]
    fn one_kebab_rule_splits_acronyms_words_and_digits_alike() {
        for (text, kebab_case) in [
            ("XMLHttpRequest", "xml-http-request"),
            ("getHTTPSUrl", "get-https-url"),
            ("petId", "pet-id"),
            ("PetID", "pet-id"),
            ("v2Api", "v2-api"),
            ("page2", "page2"),
            ("ABC", "abc"),
            ("repos/get", "repos-get"),
            ("  Pet  Store!! ", "pet-store"),
            ("snake_case_name", "snake-case-name"),
            ("Ünïcode names", "n-code-names"),
            ("", ""),
        ] {
            assert_eq!(kebab(text), kebab_case, "{text}");
        }
    }

    #[test]
    fn names_are_shortened_to_a_budget_uniquely_and_stably() {
        let long = "enterprise_admin_list_self_hosted_runners_for_enterprise";
        let short = shorten(long, 40);
        assert!(short.len() <= 40 && short.starts_with("enterprise_admin_list_self_host_"));
        assert_eq!(short, shorten(long, 40), "the same every run");
        assert_eq!(shorten("get_pet", 40), "get_pet");
        let names = [
            "a_very_long_tool_name_number_one_aaaaaa",
            "a_very_long_tool_name_number_one_bbbbbb",
            "short",
        ];
        let shortened = short_names(names, 24);
        assert_eq!(shortened[2], "short");
        assert!(shortened.iter().all(|n| n.len() <= 24));
        assert_ne!(shortened[0], shortened[1]);
        // A clash of two shortened names (forced by a tiny budget) is resolved too.
        let tiny = short_names(["abcdefghijk", "abcdefghijl", "abcdefghijm"], 3);
        let unique: std::collections::BTreeSet<_> = tiny.iter().collect();
        assert_eq!(unique.len(), 3, "{tiny:?}");
    }

    #[test]
    fn shortening_respects_character_boundaries() {
        let name = "é".repeat(40);
        let short = shorten(&name, 20);
        assert!(short.len() <= 20, "{short}");
        assert_eq!(short, shorten(&name, 20));
    }
}

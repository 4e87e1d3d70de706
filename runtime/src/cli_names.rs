//! Naming rules shared by CLI validation and the generated CLI: the reserved global options and
//! the option names an input property gets.

use crate::catalog::ArgumentSpec;

/// Long options every generated CLI defines itself; no tool argument may use them.
pub const RESERVED_LONG: &[&str] = &[
    "help",
    "version",
    "input-json",
    "output-format",
    "base-url",
    "completions",
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

/// The long option a property gets without an explicit `long`: its name in kebab-case.
pub fn default_long(property: &str) -> String {
    let mut out = String::with_capacity(property.len() + 4);
    let mut prev: Option<char> = None;
    for c in property.chars() {
        if c.is_ascii_alphanumeric() {
            let boundary = c.is_ascii_uppercase()
                && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if boundary && !out.ends_with('-') {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        prev = Some(c);
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("arg");
    }
    out
}

/// Every name by which `property` can be given: position, or long name, aliases and short.
pub fn argument_names(property: &str, spec: Option<&ArgumentSpec>) -> Vec<ArgumentName> {
    let Some(spec) = spec else {
        return vec![ArgumentName::Long(default_long(property))];
    };
    if let Some(position) = spec.position {
        return vec![ArgumentName::Position(position)];
    }
    let mut names = vec![ArgumentName::Long(
        spec.long
            .as_ref()
            .map_or_else(|| default_long(property), |l| l.to_string()),
    )];
    names.extend(
        spec.aliases
            .iter()
            .map(|a| ArgumentName::Long(a.to_string())),
    );
    names.extend(spec.short.map(ArgumentName::Short));
    names
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
}

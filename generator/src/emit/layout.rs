//! What prettyplease cannot print: comments, and our runtime's macro invocations laid out as a
//! person would write them. A comment travels to the rendered file as a marker attribute on
//! the item it precedes ([`comment`]), which becomes `//` lines here. prettyplease prints
//! the body of a macro it does not know as one run of tokens (`NewPet { name : "name" required,
//! species : … } + additional_properties`); here each invocation of `object!`, `builder!`,
//! `tagged!`, `operation_error!` and `string_enum!` in a rendered file is printed again by its
//! grammar: one field, member, error kind or value per line, types spaced as rustfmt spaces them.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// The macros laid out here, by the last segment of their path, each with its layout (`None`
/// when a body does not read as the macro's grammar).
const MACROS: &[(&str, Layout)] = &[
    ("object", object),
    ("builder", builder),
    ("tagged", tagged),
    ("operation_error", keyed),
    ("string_enum", keyed),
];

/// How one macro's body is laid out.
type Layout = fn(&[TokenTree]) -> Option<String>;

/// Lines longer than this break a list into one entry per line.
const WIDTH: usize = 100;

/// The attribute that carries a comment to the rendered file.
const COMMENT: &str = "harness_gen_comment";

/// A `// text` comment (each line of `text` a line of it) before the item that follows, in a
/// file made by [`super::render`]; `inner`: among the file's inner attributes (before its first
/// item). The marker attribute never reaches a compiler: it is replaced while the file is laid
/// out (and an unknown attribute would not compile).
pub fn comment(text: &str, inner: bool) -> proc_macro2::TokenStream {
    let name = proc_macro2::Ident::new(COMMENT, proc_macro2::Span::call_site());
    match inner {
        true => quote::quote!(#![#name = #text]),
        false => quote::quote!(#[#name = #text]),
    }
}

/// The comment a marker line carries, if `line` is one.
fn commented(line: &str) -> Option<String> {
    let literal = line
        .strip_prefix("#![")
        .or_else(|| line.strip_prefix("#["))?
        .strip_prefix(COMMENT)?
        .strip_prefix(" = ")?
        .strip_suffix(']')?;
    match syn::parse_str::<syn::Lit>(literal).ok()? {
        syn::Lit::Str(text) => Some(text.value()),
        _ => None,
    }
}

/// `file` (prettyplease's output) with comment markers as comments and every invocation of our
/// macros laid out by its grammar; an invocation whose body does not read as that grammar is
/// left as it was.
pub fn macros(file: &str) -> String {
    let mut out = String::with_capacity(file.len() + file.len() / 8);
    let mut lines = file.lines();
    while let Some(line) = lines.next() {
        let indent = &line[..line.len() - line.trim_start().len()];
        if let Some(text) = commented(line.trim_start()) {
            for text_line in text.lines() {
                out.push_str(format!("{indent}// {text_line}").trim_end());
                out.push('\n');
            }
            continue;
        }
        // prettyplease keeps an expression statement's attribute on its line
        // (`#[cfg(feature = "pets")] add(…);`); rustfmt, and a reader, put it on its own.
        if let Some((attribute, statement)) = attributed(line.trim_start()) {
            out.push_str(&format!("{indent}{attribute}\n{indent}{statement}\n"));
            continue;
        }
        let Some(layout) = opener(line.trim_start()) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let close = format!("{indent}}}");
        let mut body = String::new();
        let mut closed = false;
        let mut taken = vec![line];
        for inner in lines.by_ref() {
            taken.push(inner);
            if inner == close {
                closed = true;
                break;
            }
            body.push_str(inner);
            body.push('\n');
        }
        let laid = closed
            .then(|| body.parse::<TokenStream>().ok())
            .flatten()
            .and_then(|tokens| layout(&tokens.into_iter().collect::<Vec<_>>()));
        match laid {
            Some(laid) => {
                let path = line.trim_start().trim_end_matches('{').trim_end();
                out.push_str(&format!("{indent}{path} {{\n"));
                for laid_line in laid.lines() {
                    out.push_str(&format!("{indent}    {laid_line}\n"));
                }
                out.push_str(&close);
                out.push('\n');
            }
            None => {
                for taken in taken {
                    out.push_str(taken);
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// A line that is an outer attribute followed by a statement (it ends with `;`), split after
/// the attribute's `]` (brackets inside string literals not counted).
fn attributed(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("#[").filter(|_| line.ends_with(';'))?;
    let (mut depth, mut quoted, mut escaped) = (1usize, false, false);
    for (at, c) in rest.char_indices() {
        match (quoted, c) {
            (true, _) if escaped => escaped = false,
            (true, '\\') => escaped = true,
            (_, '"') => quoted = !quoted,
            (false, '[') => depth += 1,
            (false, ']') => {
                depth -= 1;
                if depth == 0 {
                    let end = at + 3;
                    let statement = line[end..].trim_start();
                    return (!statement.is_empty()).then(|| (&line[..end], statement));
                }
            }
            _ => {}
        }
    }
    None
}

/// The layout of the macro a line opens (`harness_gen_runtime::object! {`), if it is ours.
fn opener(line: &str) -> Option<Layout> {
    let path = line
        .strip_suffix("! {")?
        .strip_prefix("harness_gen_runtime::")?;
    MACROS
        .iter()
        .find(|(name, _)| *name == path)
        .map(|&(_, layout)| layout)
}

/// `#[attribute] Name { index field: "wire" how, … } + extra`, the attribute (of the reading
/// half) on a line of its own when there is one.
fn object(tokens: &[TokenTree]) -> Option<String> {
    if let [
        TokenTree::Punct(hash),
        TokenTree::Group(attribute),
        rest @ ..,
    ] = tokens
        && hash.as_char() == '#'
        && attribute.delimiter() == Delimiter::Bracket
    {
        let attribute = text(&tokens[..2]);
        return Some(format!("{attribute}\n{}", object(rest)?));
    }
    let mut out = listed(&tokens[..2.min(tokens.len())], 1)?;
    if tokens.len() > 2 {
        out.push('\n');
        out.push_str(&text(&tokens[2..]));
    }
    Some(out)
}

/// `Name { "kind" => Variant, … }` (`operation_error!`) and `Name { "wire" => Variant, … }`
/// (`string_enum!`).
fn keyed(tokens: &[TokenTree]) -> Option<String> {
    listed(tokens, 1)
}

/// `Name "property" { Variant("tag", …), … }`.
fn tagged(tokens: &[TokenTree]) -> Option<String> {
    (tokens.len() == 3).then_some(())?;
    listed(tokens, 2)
}

/// The `head` tokens, then a brace group whose comma-separated entries go one per line.
fn listed(tokens: &[TokenTree], head: usize) -> Option<String> {
    let (TokenTree::Group(group), true) = (tokens.get(head)?, tokens.len() == head + 1) else {
        return None;
    };
    if group.delimiter() != Delimiter::Brace {
        return None;
    }
    let entries = split(group.stream(), ',');
    if entries.is_empty() {
        return Some(format!("{} {{}}", text(&tokens[..head])));
    }
    let mut out = format!("{} {{\n", text(&tokens[..head]));
    for entry in entries {
        out.push_str(&format!("    {},\n", text(&entry)));
    }
    out.push('}');
    Some(out)
}

/// `Name { new(field: Type, …) fix field = value, …; set field: Type, …; + extra }`: each
/// clause on a line of its own, a long one with an entry per line.
fn builder(tokens: &[TokenTree]) -> Option<String> {
    let [name @ TokenTree::Ident(_), TokenTree::Group(group)] = tokens else {
        return None;
    };
    let inner: Vec<TokenTree> = group.stream().into_iter().collect();
    let (new, rest) = inner.split_first_chunk::<2>()?;
    let TokenTree::Group(required) = &new[1] else {
        return None;
    };
    let mut out = format!("{name} {{\n");
    let required = split(required.stream(), ',');
    let one_line = format!("new({})", joined(&required));
    if one_line.len() + 4 <= WIDTH {
        out.push_str(&format!("    {one_line}\n"));
    } else {
        out.push_str("    new(\n");
        for entry in &required {
            out.push_str(&format!("        {},\n", text(entry)));
        }
        out.push_str("    )\n");
    }
    for clause in split(rest.iter().cloned().collect(), ';') {
        let Some((keyword, entries)) = clause.split_first() else {
            continue;
        };
        let keyword = keyword.to_string();
        if keyword == "+" {
            out.push_str(&format!("    {}\n", text(&clause)));
            continue;
        }
        let entries = split(entries.iter().cloned().collect(), ',');
        let one_line = format!("{keyword} {};", joined(&entries));
        if one_line.len() + 4 <= WIDTH {
            out.push_str(&format!("    {one_line}\n"));
        } else {
            out.push_str(&format!("    {keyword}\n"));
            let last = entries.len().saturating_sub(1);
            for (at, entry) in entries.iter().enumerate() {
                let end = if at == last { ';' } else { ',' };
                out.push_str(&format!("        {}{end}\n", text(entry)));
            }
        }
    }
    out.push('}');
    Some(out)
}

/// `tokens` cut at each top-level `separator` (empty pieces dropped).
fn split(tokens: TokenStream, separator: char) -> Vec<Vec<TokenTree>> {
    let mut pieces = vec![Vec::new()];
    for token in tokens {
        match &token {
            TokenTree::Punct(p) if p.as_char() == separator => pieces.push(Vec::new()),
            _ => pieces
                .last_mut()
                .expect("starts with one piece")
                .push(token),
        }
    }
    pieces.retain(|piece| !piece.is_empty());
    pieces
}

/// Entries joined with `, `.
fn joined(entries: &[Vec<TokenTree>]) -> String {
    entries
        .iter()
        .map(|e| text(e))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tokens as rustfmt spaces a type, a path or a short expression: `a: T`, `Option<Vec<T>>`,
/// `X::Y`, `f(a, b)`, `name = value`, `"kind" => Variant`, `+ extra`.
fn text(tokens: &[TokenTree]) -> String {
    let mut out = String::new();
    // Whether the next word is spaced from what came before, and whether that was a word.
    let (mut space, mut word) = (false, false);
    for token in tokens {
        match token {
            TokenTree::Punct(p) => {
                let c = p.as_char();
                let joint = p.spacing() == Spacing::Joint;
                let after_colon = out.ends_with(':');
                let after_equals = out.ends_with('=');
                match c {
                    // `::` glues on both sides (a path may start with it); a lone `:` is
                    // `field: Type`.
                    ':' if after_colon => space = false,
                    ':' if joint => {
                        if space && !word {
                            out.push(' ');
                        }
                        space = false;
                    }
                    ':' | ',' | ';' => space = true,
                    // `=>`
                    '>' if after_equals => space = true,
                    '=' | '+' => {
                        if !out.is_empty() && !out.ends_with(' ') {
                            out.push(' ');
                        }
                        space = !joint;
                    }
                    '<' | '>' => space = false,
                    _ => {
                        if space {
                            out.push(' ');
                        }
                        space = false;
                    }
                }
                out.push(c);
                word = false;
            }
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                // `f(a)` and `Variant("tag")` glue to their word; anything else keeps its space.
                let glued = word && group.delimiter() != Delimiter::Brace;
                if space && !glued {
                    out.push(' ');
                }
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                out.push_str(open);
                out.push_str(&text(&inner));
                out.push_str(close);
                (space, word) = (true, false);
            }
            TokenTree::Ident(_) | TokenTree::Literal(_) => {
                if space {
                    out.push(' ');
                }
                out.push_str(&token.to_string());
                (space, word) = (true, true);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn laid(file: &str) -> String {
        macros(file)
    }

    #[test]
    fn an_attribute_before_a_statement_goes_on_its_own_line() {
        let file = "    #[cfg(any(feature = \"a]\", feature = \"b\"))] add(\"x\", make::x);\n    #[cfg(feature = \"a\")]\n    add(\"y\", make::y);\n";
        assert_eq!(
            laid(file),
            "    #[cfg(any(feature = \"a]\", feature = \"b\"))]\n    add(\"x\", make::x);\n    #[cfg(feature = \"a\")]\n    add(\"y\", make::y);\n"
        );
    }

    #[test]
    fn an_objects_reading_attribute_has_a_line_of_its_own() {
        let file = "harness_gen_runtime::object! {\n    #[cfg(feature = \"registry\")] NewPet { 0 name : \"name\" required }\n}\n";
        assert_eq!(
            laid(file),
            "harness_gen_runtime::object! {\n    #[cfg(feature = \"registry\")]\n    NewPet {\n        0 name: \"name\" required,\n    }\n}\n"
        );
    }

    #[test]
    fn an_object_has_a_field_per_line_and_its_extra_map_after() {
        let file = "harness_gen_runtime::object! {\n    NewPet { 0 name : \"name\" required, 1 tag : \"tag\" present } + additional_properties\n}\n";
        assert_eq!(
            laid(file),
            "harness_gen_runtime::object! {\n    NewPet {\n        0 name: \"name\" required,\n        1 tag: \"tag\" present,\n    }\n    + additional_properties\n}\n"
        );
    }

    #[test]
    fn a_builder_has_a_clause_per_line_and_long_ones_an_entry_per_line() {
        let file = "    harness_gen_runtime::builder! {\n        NewPet { new(name : String, species : Species) fix kind = Kind :: Pet; set tag : Option < String >, more : std :: collections :: BTreeMap < String, Vec < i64 > >; + additional_properties }\n    }\n";
        assert_eq!(
            laid(file),
            "    harness_gen_runtime::builder! {\n        NewPet {\n            new(name: String, species: Species)\n            fix kind = Kind::Pet;\n            set tag: Option<String>, more: std::collections::BTreeMap<String, Vec<i64>>;\n            + additional_properties\n        }\n    }\n"
        );
        let long: Vec<String> = (0..9).map(|i| format!("field_{i} : String")).collect();
        let file = format!(
            "harness_gen_runtime::builder! {{\n    Big {{ new() set {}; }}\n}}\n",
            long.join(", ")
        );
        let out = laid(&file);
        assert!(
            out.contains("        set\n            field_0: String,\n"),
            "{out}"
        );
        assert!(out.contains("            field_8: String;\n"), "{out}");
    }

    #[test]
    fn a_tagged_union_and_error_kinds_go_one_per_line() {
        let file = "harness_gen_runtime::tagged! {\n    Source \"object\" { Card(\"card\"), Bank(\"bank_account\", \"bank\") }\n}\n";
        assert_eq!(
            laid(file),
            "harness_gen_runtime::tagged! {\n    Source \"object\" {\n        Card(\"card\"),\n        Bank(\"bank_account\", \"bank\"),\n    }\n}\n"
        );
        let file = "harness_gen_runtime::operation_error! {\n    GetPetError { \"http_404\" => Http404, \"default\" => Default }\n}\n";
        assert_eq!(
            laid(file),
            "harness_gen_runtime::operation_error! {\n    GetPetError {\n        \"http_404\" => Http404,\n        \"default\" => Default,\n    }\n}\n"
        );
    }

    #[test]
    fn a_comment_marker_becomes_comment_lines_at_its_item_indentation() {
        let tokens = quote::quote! {
            mod m {
                #[doc = " Docs stay docs."]
                fn f() {}
            }
        };
        let marker = comment("Why this \"is\" so:\nsecond line.", false);
        let tokens = quote::quote! { #marker #tokens };
        let file: syn::File = syn::parse2(tokens).unwrap();
        let laid = laid(&prettyplease::unparse(&file));
        assert_eq!(
            laid,
            "// Why this \"is\" so:\n// second line.\nmod m {\n    /// Docs stay docs.\n    fn f() {}\n}\n"
        );
    }

    #[test]
    fn other_macros_and_bodies_of_another_shape_are_left_as_they_were() {
        for file in [
            "serde_json::json! {\n    { \"a\" : 1 }\n}\n",
            "harness_gen_runtime::object! {\n    NewPet ( name )\n}\n",
            "harness_gen_runtime::require_api!(api = 11, generator = \"0.1.0\");\n",
        ] {
            assert_eq!(laid(file), file);
        }
    }
}

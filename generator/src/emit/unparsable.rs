//! Generated Rust that does not parse: found before anything is written, and told by the item
//! it happened in, so a defect of the generator becomes a located error instead of a crate
//! that fails to compile far from its cause.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};

/// The first item of a file that does not parse, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unparsable {
    /// The file it is in, relative to the output (`src/types.rs`); empty until the caller says.
    pub file: String,
    /// The names of the items it is in, outermost first, ending with its own (`resources`,
    /// `Self`; `impl Client`, `type_`). Empty when no item could be told.
    pub item: Vec<String>,
    /// What the parser said.
    pub message: String,
}

impl Unparsable {
    /// Parses `tokens` as a file. When they do not parse, the first item that fails: a `mod` or
    /// `impl` block is searched for the item inside it that fails. The tokens are parsed once
    /// and not copied (a copy of a 2 MB file's tokens is a tenth of its formatting time).
    pub fn parse_file(tokens: TokenStream) -> Result<syn::File, Self> {
        let mut path = Vec::new();
        let (parsed, failed_at) = parse_items(tokens, Level::Items);
        let (attrs, items) = match parsed {
            Ok(block) => block,
            Err(error) => {
                let message = look_inside(error, failed_at, &mut path).to_string();
                return Err(Unparsable {
                    file: String::new(),
                    item: path,
                    message,
                });
            }
        };
        Ok(syn::File {
            shebang: None,
            attrs,
            items,
        })
    }

    /// The innermost named item first, then the ones around it.
    pub fn names_inside_out(&self) -> impl Iterator<Item = &str> {
        self.item.iter().rev().map(String::as_str)
    }
}

impl std::fmt::Display for Unparsable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if !self.item.is_empty() {
            write!(f, " (item `{}`)", self.item.join("::"))?;
        }
        write!(f, ": {}", self.message)
    }
}

/// What a block holds: a file's or module's items, or an `impl`'s.
#[derive(Clone, Copy)]
enum Level {
    Items,
    ImplItems,
}

/// A block's inner attributes and items (a file's, kept to be formatted; an `impl` block's
/// items are only checked, none kept).
type Block = (Vec<syn::Attribute>, Vec<syn::Item>);

/// Parses `tokens` item by item (inner attributes first). When an item fails, its error and the
/// tokens from it to the end of the block.
fn parse_items(tokens: TokenStream, level: Level) -> (syn::Result<Block>, Option<TokenStream>) {
    let mut failed_at: Option<TokenStream> = None;
    let parser = |input: ParseStream| -> syn::Result<Block> {
        let attrs = input.call(syn::Attribute::parse_inner)?;
        let mut items = Vec::new();
        while !input.is_empty() {
            let rest = input.fork();
            let parsed = match level {
                Level::Items => input.parse::<syn::Item>().map(|item| items.push(item)),
                Level::ImplItems => input.parse::<syn::ImplItem>().map(drop),
            };
            if let Err(error) = parsed {
                failed_at = Some(rest.parse::<TokenStream>()?);
                return Err(error);
            }
        }
        Ok((attrs, items))
    };
    let parsed = parser.parse2(tokens);
    (parsed, failed_at)
}

/// The error of the item `failed_at` starts with: its name recorded in `path` and, for a `mod`
/// or `impl` block, the first item inside it that fails (else `error`).
fn look_inside(
    error: syn::Error,
    failed_at: Option<TokenStream>,
    path: &mut Vec<String>,
) -> syn::Error {
    let Some(rest) = failed_at else {
        return error;
    };
    let (name, body) = item_head(rest);
    let Some(name) = name else {
        return error;
    };
    path.push(name.clone());
    let level = match name.starts_with("impl ") {
        true => Level::ImplItems,
        false => Level::Items,
    };
    let Some(body) = body else {
        return error;
    };
    match parse_items(body, level) {
        (Err(inner), failed_at) => look_inside(inner, failed_at, path),
        (Ok(_), _) => error,
    }
}

/// The name of the item `tokens` starts with (`Pet` for `pub struct Pet`, `impl Client` for an
/// `impl` block), and the body of a `mod` or `impl` block.
fn item_head(tokens: TokenStream) -> (Option<String>, Option<TokenStream>) {
    let mut trees = tokens.into_iter();
    // In an `impl` header: its words outside `<…>` (`Call for Pets`), and how deep in `<…>`.
    let mut impl_of: Option<(Vec<String>, usize)> = None;
    while let Some(tree) = trees.next() {
        let brace = |tree: &TokenTree| match tree {
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                Some(group.stream())
            }
            _ => None,
        };
        match (&tree, &mut impl_of) {
            (TokenTree::Group(_), Some((words, _))) if brace(&tree).is_some() => {
                return (Some(format!("impl {}", words.join(" "))), brace(&tree));
            }
            (TokenTree::Punct(p), Some((_, depth))) if p.as_char() == '<' => *depth += 1,
            (TokenTree::Punct(p), Some((_, depth))) if p.as_char() == '>' => {
                *depth = depth.saturating_sub(1);
            }
            (TokenTree::Ident(word), Some((words, 0))) if word != "where" => {
                words.push(word.to_string());
            }
            (TokenTree::Ident(word), None) => match word.to_string().as_str() {
                "impl" => impl_of = Some((Vec::new(), 0)),
                "mod" => {
                    let name = trees.next().map(|t| t.to_string());
                    return (name, trees.find_map(|t| brace(&t)));
                }
                "struct" | "enum" | "union" | "type" | "fn" | "const" | "static" | "trait" => {
                    return (trees.next().map(|t| t.to_string()), None);
                }
                _ => {}
            },
            _ if brace(&tree).is_some() => return (None, None),
            _ => {}
        }
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn broken(tokens: TokenStream) -> Unparsable {
        Unparsable::parse_file(tokens).err().unwrap()
    }

    #[test]
    fn a_keyword_named_type_is_told_by_its_name() {
        let self_type = proc_macro2::Ident::new("Self", proc_macro2::Span::call_site());
        let found = broken(quote! {
            //! A module.
            pub struct Pet;
            pub struct #self_type { pub id: u8 }
        });
        assert_eq!(found.item, ["Self"]);
        assert!(found.message.contains("Self"), "{}", found.message);
    }

    #[test]
    fn an_item_inside_a_module_or_impl_is_told_with_its_path() {
        let keyword = proc_macro2::Ident::new("super", proc_macro2::Span::call_site());
        let found = broken(quote! {
            pub struct Client;
            pub mod resources {
                pub struct Pets;
                impl Pets {
                    pub fn list(&self) {}
                    pub fn #keyword(&self) {}
                }
            }
        });
        assert_eq!(found.item, ["resources", "impl Pets", "super"]);
    }
}

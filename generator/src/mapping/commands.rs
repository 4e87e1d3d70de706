//! The words of derived CLI commands: a tag's name dropped from an operation's where it repeats
//! it, and, for an operation without a tag, a resource and a verb read from its path and method
//! (`GET /v1/customers/{customer}` is `customers retrieve`), the way the Stripe CLI names them.

use harness_gen_wire::binding::Method;

use super::groups::first_segment;
use crate::names;

/// `leaf` (a kebab-case command) without the words of its group `group` wherever they stand,
/// the group's name singular or plural (`create-chat-completion` in `chat`: `create-completion`;
/// `list-models` and `retrieve-model` in `models`: `list`, `retrieve`; at the end only after
/// a lone verb); `None` when they are not there or are all there is.
pub fn without_group(leaf: &str, group: &str) -> Option<String> {
    let words: Vec<&str> = leaf.split('-').collect();
    let forms = [group.to_string(), singular(group), plural(group)];
    for form in forms {
        let form: Vec<&str> = form.split('-').collect();
        let Some(at) = words.windows(form.len()).position(|w| w == form.as_slice()) else {
            continue;
        };
        let rest: Vec<&str> = words[..at]
            .iter()
            .chain(&words[at + form.len()..])
            .copied()
            .collect();
        // At the end, only after a lone verb (`list-models`): `create-booking-payment` in
        // `payments` says what it makes, and `create-booking` would not.
        let at_end = at + form.len() == words.len() && at > 0;
        if rest.is_empty() || (at_end && rest.len() > 1) {
            return None;
        }
        return Some(rest.join("-"));
    }
    None
}

/// An English singular made plural (`policy` → `policies`, `address` → `addresses`, `model` →
/// `models`).
fn plural(word: &str) -> String {
    if let Some(stem) = word.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    if word.ends_with(['s', 'x']) || word.ends_with("ch") || word.ends_with("sh") {
        return format!("{word}es");
    }
    format!("{word}s")
}

/// An English plural made singular, as API names use them (`repos` → `repo`, `policies` →
/// `policy`, `addresses` → `address`); the word as it is when it is not one.
fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("people") {
        return format!("{stem}person");
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for ending in ["sses", "shes", "ches", "xes"] {
        if word.ends_with(ending) {
            return word[..word.len() - 2].to_string();
        }
    }
    match word.strip_suffix('s') {
        Some(stem) if !stem.ends_with('s') && !stem.is_empty() => stem.to_string(),
        _ => word.to_string(),
    }
}

/// The command of an operation without a tag, from its path and method: `[resource, verb]`,
/// the resource the path's first segment past versions and parameters (the same as its
/// operation group's), the verb from the method and whether the path ends at an item
/// (`{id}`): a collection is `list`ed and `create`d, an item `retrieve`d, `update`d (POST,
/// PATCH), `replace`d (PUT) and `delete`d; a singleton (a resource named in the singular, no
/// `{id}`: `/v1/account`) is an item. Below the resource, a collection or item adds its name
/// (`customers list-sources`, `customers retrieve-source`), an action is its own word
/// (`invoices pay`, `customers search`). A reply that `lists` (in pages) makes a collection
/// of what the path names (`balance list-history`). `None` for a path with no such segment.
pub fn resource_command(method: Method, path: &str, lists: bool) -> Option<Vec<String>> {
    let resource = first_segment(path)?;
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let at = segments.iter().position(|s| *s == resource)?;
    let below: Vec<&str> = segments[at + 1..]
        .iter()
        .copied()
        .filter(|s| !s.contains('{'))
        .collect();
    let ends_at_item = segments.last().is_some_and(|s| s.contains('{'));
    let group = names::kebab(resource);
    let leaf = match below.split_last() {
        None => {
            let singleton = !lists && !is_plural_word(&group);
            verb(method, ends_at_item || singleton).to_string()
        }
        Some((last, before)) => {
            let last = names::kebab(last);
            let owner: Vec<String> = before.iter().map(|s| singular(&names::kebab(s))).collect();
            let noun = |word: String| -> String {
                owner
                    .iter()
                    .cloned()
                    .chain([word])
                    .collect::<Vec<_>>()
                    .join("-")
            };
            if ends_at_item {
                format!("{}-{}", verb(method, true), noun(singular(&last)))
            } else if (is_plural_word(&last) || lists) && last != "search" {
                match method {
                    Method::Get => format!("list-{}", noun(last)),
                    Method::Post => format!("create-{}", noun(singular(&last))),
                    other => format!("{}-{}", verb(other, false), noun(last)),
                }
            } else if matches!(method, Method::Get) && last != "search" {
                format!("retrieve-{}", noun(last))
            } else {
                // An action on what the path names (`pay`, `search`, `verify`).
                let mut words = vec![last];
                words.extend(owner);
                words.join("-")
            }
        }
    };
    Some(vec![group, leaf])
}

/// The verb of `method` on an item or on a collection.
fn verb(method: Method, item: bool) -> &'static str {
    match (method, item) {
        (Method::Get, true) => "retrieve",
        (Method::Get, false) => "list",
        (Method::Post, false) => "create",
        (Method::Post | Method::Patch, _) => "update",
        (Method::Put, _) => "replace",
        (Method::Delete, _) => "delete",
        (Method::Head, _) => "check",
        (Method::Options, _) => "options",
        (Method::Trace, _) => "trace",
        (Method::Query, _) => "query",
    }
}

/// Whether `word` reads as an English plural (`customers`, `policies`, `addresses`, `people`).
fn is_plural_word(word: &str) -> bool {
    let last = word.rsplit('-').next().unwrap_or(word);
    last == "people" || (singular(last) != last && !last.ends_with("ss") && !last.ends_with("us"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(method: Method, path: &str) -> String {
        resource_command(method, path, false).unwrap().join(" ")
    }

    #[test]
    fn a_resource_path_reads_as_a_resource_and_a_verb() {
        assert_eq!(command(Method::Get, "/v1/customers"), "customers list");
        assert_eq!(command(Method::Post, "/v1/customers"), "customers create");
        assert_eq!(
            command(Method::Get, "/v1/customers/{customer}"),
            "customers retrieve"
        );
        assert_eq!(
            command(Method::Post, "/v1/customers/{customer}"),
            "customers update"
        );
        assert_eq!(
            command(Method::Delete, "/v1/customers/{customer}"),
            "customers delete"
        );
        assert_eq!(command(Method::Get, "/v1/account"), "account retrieve");
        assert_eq!(
            command(Method::Get, "/v1/customers/search"),
            "customers search"
        );
        assert_eq!(
            command(Method::Get, "/v1/customers/{customer}/sources"),
            "customers list-sources"
        );
        assert_eq!(
            command(Method::Post, "/v1/customers/{customer}/sources"),
            "customers create-source"
        );
        assert_eq!(
            command(Method::Delete, "/v1/customers/{customer}/sources/{id}"),
            "customers delete-source"
        );
        assert_eq!(
            command(Method::Post, "/v1/invoices/{invoice}/pay"),
            "invoices pay"
        );
        assert_eq!(
            command(Method::Get, "/v1/customers/{customer}/cash_balance"),
            "customers retrieve-cash-balance"
        );
        assert_eq!(
            command(Method::Post, "/v1/customers/{customer}/sources/{id}/verify"),
            "customers verify-source"
        );
        assert_eq!(
            command(Method::Get, "/v1/accounts/{account}/people"),
            "accounts list-people"
        );
        assert_eq!(
            command(Method::Post, "/v1/accounts/{account}/people"),
            "accounts create-person"
        );
        // A reply in pages lists, whatever the name's number.
        let listed = resource_command(Method::Get, "/v1/balance/history", true).unwrap();
        assert_eq!(listed.join(" "), "balance list-history");
        assert!(resource_command(Method::Get, "/", false).is_none());
    }
}

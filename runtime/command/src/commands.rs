//! The command tree: the program's CLI tools and parent commands as clap commands, listed from
//! the catalog's index before any tool's entry is read.

use super::*;
use harness_gen_registry::Listing;

/// A tool's command as the tree lists it, known before its entry is read.
pub(super) struct Listed<'a> {
    name: &'a str,
    path: Vec<&'a str>,
    aliases: Vec<&'a str>,
    hidden: bool,
    title: &'a str,
}

impl<'a> Listed<'a> {
    /// A tool whose entry is read.
    fn loaded(entry: &'a Entry) -> Self {
        let words = |segments: &'a [crate::catalog::CommandSegment]| {
            segments.iter().map(|s| s.as_str()).collect::<Vec<_>>()
        };
        Listed {
            name: entry.name.as_str(),
            path: words(entry.cli.command.segments()),
            aliases: words(&entry.cli.aliases),
            hidden: entry.cli.hidden,
            title: entry.command_title(),
        }
    }
}

/// The commands of a program: its CLI tools and the other spellings of parent commands.
pub(super) struct Commands<'a> {
    tools: Vec<Listed<'a>>,
    group_aliases: Vec<(Vec<&'a str>, Vec<&'a str>)>,
}

impl<'a> Commands<'a> {
    /// From a generated catalog's index: the tools the program has, none of them read.
    pub(super) fn indexed(index: &'a CatalogIndex) -> Self {
        let tools = index
            .tools
            .iter()
            .filter(|tool| tool.enabled)
            .filter_map(|tool| {
                let command = tool.command.as_ref()?;
                Some(Listed {
                    name: tool.name,
                    path: command.path.to_vec(),
                    aliases: command.aliases.to_vec(),
                    hidden: command.hidden,
                    title: command.title,
                })
            })
            .collect();
        let group_aliases = index
            .groups
            .iter()
            .map(|group| (group.path.to_vec(), group.aliases.to_vec()))
            .collect();
        Self {
            tools,
            group_aliases,
        }
    }

    /// From a composition's listing; with its registry, each tool read is listed from its
    /// entry (a transform may have changed its command), the others from the listing.
    pub(super) fn composed(listing: &'a Listing, registry: Option<&'a ToolRegistry>) -> Self {
        let read = |name: &str| registry.and_then(|r| r.lookup(Audience::Cli, name));
        let mut tools: Vec<Listed<'a>> = Vec::new();
        for tool in &listing.tools {
            if let Some(entry) = read(&tool.name) {
                tools.push(Listed::loaded(entry));
            } else if let Some(command) = &tool.command {
                tools.push(Listed {
                    name: &tool.name,
                    path: command.path.iter().map(String::as_str).collect(),
                    aliases: command.aliases.iter().map(String::as_str).collect(),
                    hidden: command.hidden,
                    title: &command.title,
                });
            }
        }
        // A tool an `edit` renamed is in the registry under a name the listing does not know.
        if let Some(registry) = registry {
            let listed: std::collections::BTreeSet<&str> = listing
                .tools
                .iter()
                .map(|tool| tool.name.as_str())
                .collect();
            tools.extend(
                registry
                    .list(Audience::Cli)
                    .filter(|entry| !listed.contains(entry.name.as_str()))
                    .map(Listed::loaded),
            );
        }
        let group_aliases = listing
            .groups
            .iter()
            .map(|(path, aliases)| {
                let words = |words: &'a [String]| words.iter().map(String::as_str).collect();
                (words(path), words(aliases))
            })
            .collect();
        Self {
            tools,
            group_aliases,
        }
    }

    /// From the registry's CLI tools.
    pub(super) fn loaded(registry: &'a ToolRegistry) -> Self {
        let words = |segments: &'a [crate::catalog::CommandSegment]| {
            segments.iter().map(|s| s.as_str()).collect::<Vec<_>>()
        };
        let tools = registry.list(Audience::Cli).map(Listed::loaded).collect();
        let group_aliases = registry
            .cli_commands()
            .iter()
            .filter(|spec| !spec.aliases.is_empty())
            .map(|spec| (words(spec.command.segments()), words(&spec.aliases)))
            .collect();
        Self {
            tools,
            group_aliases,
        }
    }

    /// The tools whose command `words` start with (each word the segment or one of its other
    /// spellings): the one a command line runs, or several when aliases make them alike.
    pub(super) fn named(&self, words: &[String]) -> Vec<&'a str> {
        self.tools
            .iter()
            .filter(|tool| {
                tool.path.len() <= words.len()
                    && tool.path.iter().enumerate().all(|(i, segment)| {
                        let word = words[i].as_str();
                        let aliases = if i + 1 == tool.path.len() {
                            tool.aliases.as_slice()
                        } else {
                            self.group_aliases
                                .iter()
                                .find(|(path, _)| path[..] == tool.path[..=i])
                                .map_or(&[][..], |(_, aliases)| aliases.as_slice())
                        };
                        *segment == word || aliases.contains(&word)
                    })
            })
            .map(|tool| tool.name)
            .collect()
    }
}

/// The program's root command with its global options, before any tool's command: what every
/// generated CLI accepts (and the book's reference of generated programs lists).
pub fn root(name: &str, version: &str) -> Command {
    Command::new(name.to_string())
        .version(version.to_string())
        .subcommand_required(false)
        .arg_required_else_help(true)
        .arg(Arg::new(INPUT_JSON).long(INPUT_JSON).global(true).value_name("JSON|@FILE|-").help("The whole input as JSON: inline, @file, or - for standard input; options override its fields"))
        .arg(Arg::new(OUTPUT_FORMAT).long(OUTPUT_FORMAT).global(true).value_parser(["json", "pretty", "text", "jsonl"]).help("Output format (default: pretty on a terminal, json otherwise)"))
        .arg(Arg::new(PAGINATE).long(PAGINATE).global(true).action(clap::ArgAction::SetTrue).help("For a command that lists in pages: follow every page and print every item (one JSON array, or one line per item with --output-format jsonl)"))
        .arg(Arg::new(PAGE_LIMIT).long(PAGE_LIMIT).global(true).value_name("N").value_parser(clap::value_parser!(u32).range(1..)).help("With --paginate: read at most N pages (default 1000); more is an error"))
        .arg(Arg::new(OUTPUT_FILE).long(OUTPUT_FILE).global(true).value_name("FILE").help("Write the output to FILE (- for standard output), whole or not at all: a download is written as it arrives to a temporary file renamed into place once complete; binary output needs it on a terminal"))
        .arg(Arg::new(INCLUDE).long(INCLUDE).global(true).action(clap::ArgAction::SetTrue).help("Print the reply's HTTP status and headers on standard error (credentials a server echoes redacted)"))
        .arg(Arg::new(BASE_URL).long(BASE_URL).global(true).value_name("URL").help("The API's base URL (overrides the environment); a program serving several APIs takes NAME=URL pairs, comma-separated"))
        .arg(Arg::new(COMPLETIONS).long(COMPLETIONS).value_parser(["bash", "zsh", "fish", "powershell"]).value_name("SHELL").help("Print shell completions and exit"))
}

/// The command tree of the program's CLI tools; with `focus` (the command line's words), only
/// the tools it names get their options, and only the branch its first word names is built.
pub(super) fn tree(
    (name, version): (&str, &str),
    commands: &Commands<'_>,
    registry: &ToolRegistry,
    focus: Option<&[String]>,
) -> Command {
    let about = registry
        .info()
        .and_then(|i| i.description.as_deref())
        .map(str::to_string)
        .unwrap_or_default();
    let mut root = root(name, version).about(about);
    let parents: Vec<&CommandSpec> = registry.cli_commands().iter().collect();
    // When the first word names a top-level command, only that branch is built: `--help` of one
    // command in a large CLI costs what its branch costs. Anything else (no word, an alias, a
    // typo) gets the whole tree, so help and suggestions stay complete.
    let branch = focus
        .and_then(|words| words.first())
        .filter(|word| commands.tools.iter().any(|t| t.path[0] == word.as_str()));
    let named = focus.map(|words| commands.named(words));
    for tool in commands
        .tools
        .iter()
        .filter(|t| branch.is_none_or(|word| t.path[0] == word.as_str()))
    {
        // Only the tools the command line names get their options (all of them for
        // completions), from their entries.
        let with_args = named
            .as_ref()
            .is_none_or(|names| names.contains(&tool.name))
            .then(|| registry.lookup(Audience::Cli, tool.name))
            .flatten();
        root = insert(root, &tool.path, &[], (tool, with_args), &parents, registry);
    }
    root
}

/// Adds `tool`'s command under `rest` (its remaining segments), creating parent commands as
/// needed; with its entry, with its options.
fn insert(
    parent: Command,
    rest: &[&str],
    above: &[&str],
    tool: (&Listed<'_>, Option<&Entry>),
    parents: &[&CommandSpec],
    registry: &ToolRegistry,
) -> Command {
    let Some((first, rest)) = rest.split_first() else {
        return parent;
    };
    let mut here: Vec<&str> = above.to_vec();
    here.push(first);
    if rest.is_empty() {
        let leaf = match tool {
            (_, Some(entry)) => args::leaf(first, entry, registry),
            (listed, None) => Command::new(first.to_string())
                .hide(listed.hidden)
                .about(listed.title.to_string())
                .visible_aliases(listed.aliases.iter().map(|a| a.to_string())),
        };
        return parent.subcommand(leaf);
    }
    if parent.find_subcommand(first).is_some() {
        parent.mut_subcommand(*first, |child| {
            insert(child, rest, &here, tool, parents, registry)
        })
    } else {
        let child = insert(
            parent_command(first, &here, parents),
            rest,
            &here,
            tool,
            parents,
            registry,
        );
        parent.subcommand(child)
    }
}

/// How many characters of a description a command list shows.
const LIST_SUMMARY: usize = 80;

fn parent_command(name: &str, path: &[&str], parents: &[&CommandSpec]) -> Command {
    let mut command = Command::new(name.to_string())
        .subcommand_required(true)
        .arg_required_else_help(true);
    if let Some(spec) = parents
        .iter()
        .find(|s| s.command.words().eq(path.iter().copied()))
    {
        // Lists show a group's description (its first sentence, cut); the group's own help
        // shows it whole. Without one, its title.
        match (&spec.description, &spec.title) {
            (Some(description), _) => {
                command = command
                    .about(harness_gen_contract::catalog::listed::summary(
                        description,
                        LIST_SUMMARY,
                    ))
                    .long_about(description.to_string());
            }
            (None, Some(title)) => command = command.about(title.to_string()),
            (None, None) => {}
        }
        for alias in &spec.aliases {
            command = command.visible_alias(alias.to_string());
        }
        command = command.hide(spec.hidden);
        if let Some(order) = spec.display_order {
            command = command.display_order(order as usize);
        }
    }
    command
}

/// The tool the matched subcommand path names, and its matches.
pub(super) fn leaf<'a>(
    registry: &'a ToolRegistry,
    matches: &'a ArgMatches,
) -> Option<(&'a Entry, &'a ArgMatches)> {
    let mut path = Vec::new();
    let mut current = matches;
    while let Some((name, sub)) = current.subcommand() {
        path.push(name);
        current = sub;
    }
    let entry = registry
        .list(Audience::Cli)
        .find(|e| e.cli.command.words().eq(path.iter().copied()))?;
    Some((entry, current))
}

#[cfg(test)]
mod tests {
    use super::{Commands, Listed};
    use crate::tests::words;

    #[test]
    fn a_command_line_names_the_tools_its_words_start_with_aliases_included() {
        let listed = |name, path: &[&'static str], aliases: &[&'static str]| Listed {
            name,
            path: path.to_vec(),
            aliases: aliases.to_vec(),
            hidden: false,
            title: name,
        };
        let commands = Commands {
            tools: vec![
                listed("get", &["pets", "get"], &[]),
                listed("list", &["pets", "list"], &["ls"]),
                listed("inventory", &["store", "inventory"], &[]),
            ],
            group_aliases: vec![(vec!["store"], vec!["shop"])],
        };
        let named = |w: &[&str]| commands.named(&words(w));
        assert_eq!(named(&["pets", "get", "7"]), ["get"]);
        assert_eq!(named(&["pets", "ls"]), ["list"]);
        assert_eq!(named(&["shop", "inventory"]), ["inventory"]);
        assert!(named(&["pets"]).is_empty());
        assert!(named(&["pet", "get"]).is_empty());
        assert!(named(&["get", "pets"]).is_empty());
    }
}

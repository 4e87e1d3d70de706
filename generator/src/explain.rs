//! What every diagnostic code means, an example that triggers it and what to do: the text of
//! `harness-gen explain CODE` and of the book's diagnostics reference. The entries live in
//! `explain.md` (one `## CODE: summary` section each), so they read and review as prose.

/// The whole page: an introduction, then one section per code.
pub const PAGE: &str = include_str!("explain.md");

/// One code's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// `HG0504`, `HL0202`, `HR0301`.
    pub code: &'static str,
    /// The heading's words after the code.
    pub summary: &'static str,
    /// The body, Markdown: what it means, an example, what to do.
    pub body: &'static str,
}

/// Every entry, in the page's order.
pub fn all() -> impl Iterator<Item = Explanation> {
    PAGE.split("\n## ").skip(1).filter_map(|section| {
        let (heading, body) = section.split_once('\n')?;
        let (code, summary) = heading.split_once(": ")?;
        Some(Explanation {
            code,
            summary,
            body: body.trim(),
        })
    })
}

/// The entry of `code` (any letter case), if it has one.
pub fn explain(code: &str) -> Option<Explanation> {
    let code = code.trim();
    all().find(|entry| entry.code.eq_ignore_ascii_case(code))
}

impl std::fmt::Display for Explanation {
    /// As the terminal shows it: the heading, then the body.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}: {}\n\n{}", self.code, self.summary, self.body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_a_code_a_summary_an_example_and_a_remedy() {
        let entries: Vec<_> = all().collect();
        assert!(entries.len() > 70, "{}", entries.len());
        for entry in &entries {
            let well_formed = entry.code.len() == 6
                && entry.code.starts_with('H')
                && entry.code[2..].bytes().all(|b| b.is_ascii_digit());
            assert!(well_formed, "{}", entry.code);
            assert!(!entry.summary.is_empty(), "{}", entry.code);
            assert!(entry.body.contains("```"), "{} has no example", entry.code);
            let last = entry.body.rsplit("```").next().unwrap_or_default();
            assert!(
                last.trim().len() > 10,
                "{} says nothing after its example",
                entry.code
            );
        }
        let mut codes: Vec<_> = entries.iter().map(|e| e.code).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), entries.len(), "a code is explained twice");
    }

    #[test]
    fn a_code_is_found_in_any_letter_case() {
        assert_eq!(explain("hg0504").map(|e| e.code), Some("HG0504"));
        assert_eq!(explain(" HL0202 ").map(|e| e.code), Some("HL0202"));
        assert!(explain("HG9999").is_none());
    }
}

//! What generated crates use: the bundle `harness-gen openapi --harness` embedded, parsed once
//! (the agent surface of one role of a resolved revision is `ToolRegistry::for_role`, in the
//! runtime).

use std::sync::OnceLock;

use super::ir::{Bundle, ResolutionReport, Revision};

/// A bundle embedded as JSON text, parsed on first use.
pub struct Embedded {
    json: &'static str,
    parsed: OnceLock<Result<Bundle, String>>,
}

impl Embedded {
    /// Wraps the embedded text; nothing is parsed yet.
    pub const fn new(json: &'static str) -> Self {
        Self {
            json,
            parsed: OnceLock::new(),
        }
    }

    /// The bundle, or why the embedded text is not one (only possible if it was edited by
    /// hand: regenerate the crate).
    pub fn bundle(&self) -> Result<&Bundle, &str> {
        self.parsed
            .get_or_init(|| parse(self.json))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Resolves harness `harness` against `runtime` (see [`super::resolve()`]).
    pub fn resolve(
        &self,
        harness: &str,
        runtime: Option<&str>,
    ) -> Result<Revision, Box<ResolutionReport>> {
        match self.bundle() {
            Ok(bundle) => super::resolve(bundle, harness, runtime),
            Err(error) => Err(ResolutionReport::failed(
                harness,
                runtime.map(str::to_owned),
                Vec::new(),
                vec![error.to_owned()],
            )),
        }
    }
}

/// An embedded bundle's text read as a bundle, or why it is not one (only possible if it was
/// edited by hand: regenerate the crate).
pub fn parse(json: &str) -> Result<Bundle, String> {
    serde_json::from_str(json).map_err(|e| {
        format!("the embedded harness bundle is not valid IR 0.2.0 ({e}); regenerate the crate")
    })
}

//! Generating from `build.rs`, in the style of `prost-build`: a builder with a one-line default,
//! writing one Rust file per API into `OUT_DIR` (included with
//! `harness_gen_runtime::include_generated!`), rewriting it only when it changed, and telling cargo
//! to rerun for every file it read.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), harness_gen::BuildError> {
//!     harness_gen::Builder::new()
//!         .openapi("specs/petstore.yaml")
//!         .name("petstore")
//!         .generate()
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs
//! harness_gen_runtime::include_generated!("petstore");
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use quote::quote;

use crate::diag::{Diagnostics, Severity};
use crate::emit::{client, index, registry, render};
use crate::load::Document;

/// Configures generation from `build.rs`.
#[derive(Clone, Debug)]
pub struct Builder {
    openapi: Option<PathBuf>,
    name: Option<String>,
    out_dir: Option<PathBuf>,
    strict: bool,
    cargo_directives: bool,
    registry: bool,
    listing_budget: Option<crate::ListingBudget>,
    groups: Option<Vec<String>>,
    dates: bool,
}

impl Default for Builder {
    /// No document yet; the name defaults to the document's title; output to `OUT_DIR`;
    /// warnings allowed; cargo directives printed; the SDK only (no tool registry).
    fn default() -> Self {
        Self {
            openapi: None,
            name: None,
            out_dir: None,
            strict: false,
            cargo_directives: true,
            registry: false,
            listing_budget: None,
            groups: None,
            dates: true,
        }
    }
}

/// Why generation failed: the diagnostics, rendered as `file:line:column` lines.
pub struct BuildError {
    message: String,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Shown as the readable message, so `fn main() -> Result<(), BuildError>` prints it as is.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", self.message)
    }
}

impl std::error::Error for BuildError {}

impl Builder {
    /// A builder with every default.
    pub fn new() -> Self {
        Self::default()
    }

    /// The OpenAPI document, relative to the crate's directory.
    pub fn openapi(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.openapi = Some(path.into());
        self
    }

    /// The generated file's name (`<name>.rs`) and the env-variable prefix
    /// (`<NAME>_BASE_URL`, …).
    pub fn name(&mut self, name: impl Into<String>) -> &mut Self {
        self.name = Some(name.into());
        self
    }

    /// Where to write (default: `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Treat warnings as errors.
    pub fn strict(&mut self, strict: bool) -> &mut Self {
        self.strict = strict;
        self
    }

    /// Whether to print `cargo:rerun-if-changed` and `cargo:warning` lines (on by default).
    pub fn cargo_directives(&mut self, on: bool) -> &mut Self {
        self.cargo_directives = on;
        self
    }

    /// Also generates the tool registry (`registry(client)`, `CATALOG_JSON`), which needs the
    /// runtime's `registry` feature. Off by default: the typed SDK does not need it.
    pub fn registry(&mut self, on: bool) -> &mut Self {
        self.registry = on;
        self
    }

    /// What the registry's MCP listings and agent tool schemas show of each tool's schemas
    /// (default: the runtime's `Budget::DEFAULT`); `HARNESS_LISTING_DEPTH` and
    /// `HARNESS_LISTING_BYTES` still override it at run time.
    pub fn listing_budget(&mut self, budget: crate::ListingBudget) -> &mut Self {
        self.listing_budget = Some(budget);
        self
    }

    /// Generates only the operations of these groups (the generated crate's per-tag cargo
    /// features: a tag in kebab-case, a group of `x-harn.features`, or for untagged operations
    /// the first path segment), operations in no group, and the types they use; the registry
    /// and catalog hold only their tools. Default: every operation. An unknown group is an
    /// error listing the valid ones.
    pub fn groups<S: Into<String>>(&mut self, groups: impl IntoIterator<Item = S>) -> &mut Self {
        self.groups = Some(groups.into_iter().map(Into::into).collect());
        self
    }

    /// Whether `format: date-time` and `date` strings are chrono types (`chrono::DateTime<Utc>`,
    /// `chrono::NaiveDate`, through the runtime's `formats`), which needs the runtime's `dates`
    /// feature: `harness-gen-runtime = { …, features = ["client", "dates"] }`. Default: yes;
    /// `false` makes them `String`.
    pub fn dates(&mut self, dates: bool) -> &mut Self {
        self.dates = dates;
        self
    }

    /// Generates `<name>.rs` and `<name>.catalog.json` in the output directory.
    pub fn generate(&self) -> Result<(), BuildError> {
        let error = |message: String| BuildError { message };
        let spec = self.openapi.as_ref().ok_or_else(|| {
            error("no OpenAPI document: call .openapi(\"path/to/spec.yaml\") on the builder".into())
        })?;
        let out_dir = match (&self.out_dir, std::env::var_os("OUT_DIR")) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) => PathBuf::from(dir),
            (None, None) => {
                return Err(error(
                    "OUT_DIR is not set: run the builder from a build script (build.rs), or set .out_dir(…)".into(),
                ));
            }
        };
        let mut diags = Diagnostics::default();
        let doc = if crate::pipeline::given_crate_name_is_usable(self.name.as_deref(), &mut diags) {
            Document::load(spec, &mut diags)
        } else {
            None
        };
        if self.cargo_directives {
            println!("cargo:rerun-if-changed={}", spec.display());
            for path in doc.iter().flat_map(|d| d.paths().skip(1)) {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        let generated = doc.and_then(|doc| {
            // The module becomes part of the including crate, which has no features to put
            // comparison derives, dates or operation groups behind.
            let target = crate::pipeline::Target::BuildScript {
                groups: self.groups.as_deref(),
                dates: self.dates,
            };
            let assembled =
                crate::pipeline::assemble(&doc, self.name.as_deref(), target, &mut diags)?;
            let catalog = assembled.catalog.to_json_pretty();
            let name = assembled.name.clone();
            match single_file(assembled, &catalog, self.registry, self.listing_budget) {
                Ok(source) => Some((name, source, catalog)),
                Err((loc, broken)) => {
                    diags.push(crate::unparsable_diagnostic(&doc, &loc, &broken));
                    None
                }
            }
        });
        if self.strict {
            diags.make_strict();
        }
        diags.finish();
        if self.cargo_directives {
            for d in diags
                .items()
                .iter()
                .filter(|d| d.severity == Severity::Warning)
            {
                println!("cargo:warning={}", d.to_string().replace('\n', " "));
            }
        }
        let Some((name, source, catalog)) = generated.filter(|_| !diags.has_errors()) else {
            return Err(error(format!(
                "harness-gen could not generate from {}:\n{diags}",
                spec.display()
            )));
        };
        let file_name = name.replace('-', "_");
        write_if_changed(&out_dir.join(format!("{file_name}.rs")), &source)?;
        write_if_changed(&out_dir.join(format!("{file_name}.catalog.json")), &catalog)?;
        Ok(())
    }
}

fn write_if_changed(path: &Path, contents: &str) -> Result<(), BuildError> {
    crate::output::write_if_changed(path, contents)
        .map(drop)
        .map_err(|e| BuildError {
            message: format!("cannot write {}: {e}", path.display()),
        })
}

/// The whole API as one file of inline modules, for `include!`; the registry only when asked,
/// with the listing budget if one was given.
fn single_file(
    assembled: crate::pipeline::Assembled,
    catalog_text: &str,
    with_registry: bool,
    listing_budget: Option<crate::ListingBudget>,
) -> Result<String, (crate::load::Loc, crate::emit::Unparsable)> {
    let crate::pipeline::Assembled {
        api,
        name,
        types,
        catalog,
    } = assembled;
    let api = &api;
    let ident = name.replace('-', "_");
    let prefix = ident.to_ascii_uppercase();
    let gates = crate::emit::Gates::new(api, types.gating);
    let client = client::file(api, &types.ops, &prefix, gates);
    let registry = with_registry.then(|| {
        let catalog_file = format!("/{ident}.catalog.json");
        let registry = registry::file(
            api,
            &types.ops,
            quote!(include_str!(concat!(env!("OUT_DIR"), #catalog_file))),
            listing_budget,
            gates,
        );
        let index = index::file(api, &catalog, catalog_text, gates);
        quote! {
            pub mod registry { #registry }
            pub mod catalog_index { #index }
            pub use registry::{CATALOG_JSON, registry, registry_of};
            pub use catalog_index::CATALOG_INDEX;
        }
    });
    let require_api = crate::emit::krate::require_api();
    let types_tokens = &types.tokens;
    let lints = crate::emit::document_lints(false);
    // Each module documents itself (its inner doc); the description's names are in `types`
    // and its text in `types` and `client`.
    let file = quote! {
        #require_api
        #lints
        pub mod types { #types_tokens }
        #lints
        pub mod client { #client }
        pub use client::Client;
        #registry
    };
    render(file).map_err(|mut broken| {
        broken.file = "the generated module".to_string();
        (types.origin_of(&broken), broken)
    })
}

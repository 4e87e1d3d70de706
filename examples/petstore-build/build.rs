//! Generates the pet-store client and registry into `OUT_DIR` at build time.

fn main() -> Result<(), harness_gen::BuildError> {
    harness_gen::Builder::new()
        .openapi("../../specs/petstore.yaml")
        .name("petstore")
        .registry(true)
        // MCP listings of this registry show components one reference deep (the default is 2).
        .listing_budget(harness_gen::ListingBudget {
            depth: 1,
            bytes: 8 * 1024,
        })
        .generate()
}

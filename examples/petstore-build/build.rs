//! Generates the pet-store client and registry into `OUT_DIR` at build time.

fn main() -> Result<(), harness_gen::builder::BuildError> {
    harness_gen::builder::Builder::new()
        .openapi("../../specs/petstore.yaml")
        .name("petstore")
        .generate()
}

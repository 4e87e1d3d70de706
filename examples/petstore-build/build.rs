//! Generates the pet-store client and registry into `OUT_DIR` at build time.

fn main() -> Result<(), harness_gen::BuildError> {
    harness_gen::Builder::new()
        .openapi("../../specs/petstore.yaml")
        .name("petstore")
        .registry(true)
        .generate()
}

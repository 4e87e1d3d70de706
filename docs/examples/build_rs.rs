// build.rs
fn main() -> Result<(), harness_gen::BuildError> {
    harness_gen::Builder::new()
        .openapi("specs/petstore.yaml")
        .name("petstore")
        .generate()
}

//! The pet-store client and tool registry, generated at build time from
//! `specs/petstore.yaml` by `build.rs` (see the README, "From build.rs").

harness_gen_runtime::include_generated!("petstore");

//! The `.harness` language ([`harness_gen_lang`], re-exported here), and [`link`], the check of
//! a program against the OpenAPI document's catalog that generation runs.

pub use harness_gen_lang::*;

pub mod link;

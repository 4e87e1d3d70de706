//! The end-to-end tests, one binary: generated crates, their CLI and MCP programs and the SDK,
//! run against real servers on loopback (the axum pet store of `src/`, Prism) and real clients.

mod big_listing;
mod body_options;
mod bridge;
mod comparison;
mod crash_sweep;
mod dashboard;
mod directions;
mod file_projections;
mod openai;
mod operated;
mod pages;
mod petstore;
mod petstore_bin;
mod petstore_cli;
mod petstore_harness;
mod petstore_mcp;
mod petstore_mcp_stress;
mod petstore_mcp_tasks;
mod prism;
mod readme;
mod secrets;
mod security;
mod streams;
mod types;
mod uploads;
mod wire;

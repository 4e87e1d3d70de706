//! The pet store's loopback stand-in (`harness_e2e::serve`) as a program, for the MCP load
//! benchmark (`scripts/mcp-load.sh`): prints its base URL on the first line and the token it
//! accepts on the second, then serves until it is killed or its standard input closes.
//!
//! ```sh
//! cargo run --release -p harness-e2e --example petstore_upstream
//! ```

#[tokio::main]
async fn main() {
    let base = harness_e2e::serve().await;
    println!("{base}\n{}", harness_e2e::TOKEN);
    // Serve until whoever started us closes our standard input (or kills us).
    let _ =
        tokio::task::spawn_blocking(|| std::io::Read::read(&mut std::io::stdin(), &mut [0])).await;
}

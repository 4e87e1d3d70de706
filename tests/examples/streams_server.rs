//! The loopback server of `specs/streams.yaml` (chat, files to upload and download) as a
//! program, for the benchmark script: prints its base URL on the first line, then serves until
//! it is killed or its standard input closes.
//!
//! ```sh
//! cargo run --release -p harness-e2e --example streams_server
//! ```

#[tokio::main]
async fn main() {
    let (base, _) = harness_e2e::streams::serve().await;
    println!("{base}");
    // Serve until whoever started us closes our standard input (or kills us).
    let _ =
        tokio::task::spawn_blocking(|| std::io::Read::read(&mut std::io::stdin(), &mut [0])).await;
}

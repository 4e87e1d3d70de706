//! The pet store's loopback stand-in (`harness_e2e::serve`) as a program, for the MCP load
//! benchmark (`scripts/mcp-load.sh`): prints its base URL on the first line and the token it
//! accepts on the second, then serves until it is killed or its standard input closes.
//!
//! With `FAULTS=reset:P,stall:P:MS` the URL printed is a TCP proxy in front of it that, for
//! each chunk a client sends (on a kept-alive connection, about one request), resets the
//! connection (RST, nothing answered) with probability P, or holds the chunk MS milliseconds
//! first with the other probability: what an upstream that drops and stalls under load looks
//! like from the MCP server.
//!
//! ```sh
//! cargo run --release -p harness-e2e --example petstore_upstream
//! FAULTS=reset:0.01,stall:0.01:200 cargo run --release -p harness-e2e --example petstore_upstream
//! ```

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[tokio::main]
async fn main() {
    let mut base = harness_e2e::serve().await;
    if let Ok(spec) = std::env::var("FAULTS") {
        match Faults::parse(&spec) {
            Ok(faults) => base = proxy(&base, faults).await,
            Err(why) => {
                eprintln!("error: FAULTS={spec}: {why}");
                std::process::exit(2);
            }
        }
    }
    println!("{base}\n{}", harness_e2e::TOKEN);
    // Serve until whoever started us closes our standard input (or kills us).
    let _ =
        tokio::task::spawn_blocking(|| std::io::Read::read(&mut std::io::stdin(), &mut [0])).await;
}

/// How often the proxy resets or stalls.
#[derive(Clone, Copy, Debug, Default)]
struct Faults {
    reset: f64,
    stall: f64,
    stall_for: Duration,
}

impl Faults {
    /// `reset:P,stall:P:MS`, either part optional.
    fn parse(spec: &str) -> Result<Self, String> {
        let mut faults = Faults::default();
        for part in spec.split(',').filter(|p| !p.is_empty()) {
            let fields: Vec<&str> = part.split(':').collect();
            let number = |text: &str| {
                text.parse::<f64>()
                    .map_err(|_| format!("`{text}` is not a number"))
            };
            match fields.as_slice() {
                ["reset", p] => faults.reset = number(p)?,
                ["stall", p, ms] => {
                    faults.stall = number(p)?;
                    faults.stall_for = Duration::from_millis(number(ms)? as u64);
                }
                _ => return Err(format!("`{part}` is neither reset:P nor stall:P:MS")),
            }
        }
        Ok(faults)
    }
}

/// A proxy to `base` with `faults`; returns its base URL.
async fn proxy(base: &str, faults: Faults) -> String {
    let upstream = base.trim_start_matches("http://").to_string();
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let address = listener.local_addr().expect("bound");
    tokio::spawn(async move {
        let mut seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64 | 1);
        while let Ok((client, _)) = listener.accept().await {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let upstream = upstream.clone();
            tokio::spawn(relay(client, upstream, faults, seed));
        }
    });
    format!("http://{address}")
}

/// Relays one connection, each chunk from the client reset or stalled by chance.
async fn relay(client: TcpStream, upstream: String, faults: Faults, mut seed: u64) {
    let Ok(server) = TcpStream::connect(&upstream).await else {
        return;
    };
    // Closed with an RST rather than a FIN (which is what a reset below needs; a client that
    // closed first does not mind).
    // (Deprecated because a lingering close blocks the thread; a zero linger never waits.)
    #[allow(deprecated)]
    let _ = client.set_linger(Some(Duration::ZERO));
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_server, mut to_server) = server.into_split();
    let back = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
        to_client
    });
    let mut chunk = vec![0u8; 64 * 1024];
    // Until the client closes its side (or its connection fails).
    while let Ok(n @ 1..) = from_client.read(&mut chunk).await {
        // xorshift: a number in [0, 1) per chunk.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let draw = (seed >> 11) as f64 / (1u64 << 53) as f64;
        if draw < faults.reset {
            // Nothing answered, the connection reset: both halves of the client's socket go.
            back.abort();
            return;
        }
        if draw < faults.reset + faults.stall {
            tokio::time::sleep(faults.stall_for).await;
        }
        if to_server.write_all(&chunk[..n]).await.is_err() {
            break;
        }
    }
    let _ = to_server.shutdown().await;
    let _ = back.await;
}

//! Benchmark: the server-side cost of `tools/list` for a catalog (scripts/bench.sh runs it on
//! a synthetic 1,000-tool API). Measures the work between a request arriving and its JSON
//! leaving: the page (tools prepared once, reused) and its serialization.
//!
//! ```sh
//! cargo run --release -p harness-gen-runtime --features mcp --example mcp_list -- CATALOG.json
//! ```

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use harness_gen_runtime::mcp::McpServer;
use harness_gen_runtime::{Catalog, Handler, ToolRegistry};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: mcp_list CATALOG.json")?;
    // A catalog read from a file goes through every publish-time rule (not timed).
    let catalog = Catalog::from_json(&std::fs::read_to_string(path)?)?;
    let handlers: BTreeMap<String, Handler> = catalog
        .tools
        .iter()
        .map(|e| {
            let handler = Handler::new(|_| async { Ok(serde_json::Value::Null) });
            (e.name.to_string(), handler)
        })
        .collect();
    let registry = ToolRegistry::publish(catalog, handlers)?;
    let tools = registry.entries().count();

    // Cold: the first listing projects every schema standalone.
    let start = Instant::now();
    let paged = McpServer::new(&registry, "bench", "0");
    let (pages, _bytes) = list_all(&paged)?;
    let cold = start.elapsed();

    let whole = McpServer::new(&registry, "bench", "0").with_page_size(tools);
    list_all(&whole)?;
    let first_page = median(|| {
        let page = paged.page(None).map_err(|e| e.message.to_string())?;
        Ok(serde_json::to_vec(&page)?.len())
    })?;
    let one_page = median(|| {
        let page = whole.page(None).map_err(|e| e.message.to_string())?;
        Ok(serde_json::to_vec(&page)?.len())
    })?;
    let mut sizes: Vec<usize> = whole
        .page(None)
        .map_err(|e| e.message.to_string())?
        .tools
        .iter()
        .map(|tool| serde_json::to_vec(tool).map_or(0, |bytes| bytes.len()))
        .collect();
    sizes.sort_unstable();
    let total: usize = sizes.iter().sum();
    println!("tools: {tools}; default page size: {pages} pages");
    println!(
        "listing: {total} bytes (≈{} tokens at 4 bytes each); per tool median {} bytes, largest {} bytes",
        total / 4,
        sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        sizes.last().copied().unwrap_or(0)
    );
    println!(
        "cold first listing (standalone projection of every schema): {:.2} ms",
        ms(cold)
    );
    println!(
        "tools/list, first page of {}: {:.3} ms (median)",
        harness_gen_runtime::mcp::DEFAULT_PAGE_SIZE.min(tools),
        ms(first_page)
    );
    println!(
        "tools/list, all {tools} tools in one page: {:.3} ms (median)",
        ms(one_page)
    );
    Ok(())
}

fn list_all(server: &McpServer) -> Result<(usize, usize), Box<dyn std::error::Error>> {
    let (mut pages, mut bytes, mut cursor) = (0, 0, None::<String>);
    loop {
        let page = server
            .page(cursor.as_deref())
            .map_err(|e| e.message.to_string())?;
        bytes += serde_json::to_vec(&page)?.len();
        pages += 1;
        cursor = page.next_cursor;
        if cursor.is_none() {
            return Ok((pages, bytes));
        }
    }
}

fn median(
    mut run: impl FnMut() -> Result<usize, Box<dyn std::error::Error>>,
) -> Result<Duration, Box<dyn std::error::Error>> {
    let mut times = Vec::new();
    for _ in 0..41 {
        let start = Instant::now();
        std::hint::black_box(run()?);
        times.push(start.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

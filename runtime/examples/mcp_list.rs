//! Benchmark: the server-side cost of `tools/list` for a catalog (scripts/bench.sh runs it on
//! a synthetic 1,000-tool API and on Stripe, GitHub Enterprise and Svix). Measures the listing's
//! size, its cold preparation (every schema projected for listing, on a fresh registry) and the
//! work between a request arriving and its JSON leaving: the page (tools prepared once,
//! reused) and its serialization. With a second argument, writes the whole listing there.
//!
//! ```sh
//! cargo run --release -p harness-gen-runtime --features mcp --example mcp_list -- CATALOG.json [OUT.json]
//! ```
//!
//! `HARNESS_MCP_SCHEMA_PROFILE=inlined` (or `strict`) measures that profile, as the MCP program
//! does.

// As generated programs do.
#[global_allocator]
static ALLOCATOR: harness_gen_runtime::Allocator = harness_gen_runtime::Allocator;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use harness_gen_runtime::mcp::{McpServer, SchemaProfile};
use harness_gen_runtime::{Catalog, Handler, ToolRegistry};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: mcp_list CATALOG.json [LISTING_OUT.json]")?;
    let dump = args.next();
    // A catalog read from a file goes through every publish-time rule (not timed).
    let text = std::fs::read_to_string(path)?;
    let publish = || -> Result<ToolRegistry, Box<dyn std::error::Error>> {
        let catalog = Catalog::from_json(&text)?;
        let handlers: BTreeMap<String, Handler> = catalog
            .tools
            .iter()
            .map(|e| {
                let handler = Handler::new(|_| async { Ok(serde_json::Value::Null) });
                (e.name.to_string(), handler)
            })
            .collect();
        Ok(ToolRegistry::publish(catalog, handlers)?)
    };
    let registry = publish()?;
    let tools = registry.entries().count();
    let profile = match std::env::var("HARNESS_MCP_SCHEMA_PROFILE").as_deref() {
        Ok("inlined") => SchemaProfile::Inlined,
        Ok("strict") => SchemaProfile::Strict,
        _ => SchemaProfile::Standard,
    };
    let server = |registry: &ToolRegistry| {
        McpServer::new(registry, "bench", "0").with_schema_profile(profile)
    };

    // Cold: the first listing of a fresh registry projects every schema for listing (the
    // median of a few fresh registries; publishing them is not timed).
    let mut colds = Vec::new();
    let mut pages = 0;
    for _ in 0..5 {
        let fresh = publish()?;
        let start = Instant::now();
        let paged = server(&fresh).with_page_size(FIRST_PAGE);
        pages = list_all(&paged)?.0;
        colds.push(start.elapsed());
    }
    colds.sort();
    let cold = colds[colds.len() / 2];
    let paged = server(&registry).with_page_size(FIRST_PAGE);
    list_all(&paged)?;

    let whole = server(&registry);
    list_all(&whole)?;
    let first_page = median(|| {
        let page = paged.page(None).map_err(|e| e.message.to_string())?;
        Ok(serde_json::to_vec(&page)?.len())
    })?;
    let one_page = median(|| {
        let page = whole.page(None).map_err(|e| e.message.to_string())?;
        Ok(serde_json::to_vec(&page)?.len())
    })?;
    // The same, split: building the page (the prepared tools copied into the result) and
    // serializing it.
    let build = median(|| {
        Ok(whole
            .page(None)
            .map_err(|e| e.message.to_string())?
            .tools
            .len())
    })?;
    let built = whole.page(None).map_err(|e| e.message.to_string())?;
    let serialize = median(|| Ok(serde_json::to_vec(&built)?.len()))?;
    let mut sizes: Vec<usize> = whole
        .page(None)
        .map_err(|e| e.message.to_string())?
        .tools
        .iter()
        .map(|tool| serde_json::to_vec(tool).map_or(0, |bytes| bytes.len()))
        .collect();
    sizes.sort_unstable();
    if let Some(dump) = dump {
        let page = whole.page(None).map_err(|e| e.message.to_string())?;
        std::fs::write(dump, serde_json::to_vec_pretty(&page)?)?;
    }
    let total: usize = sizes.iter().sum();
    // Discovery mode lists three meta-tools instead (no pins).
    let discovery = server(&registry).with_discovery(Vec::new())?;
    let discovered = discovery.page(None).map_err(|e| e.message.to_string())?;
    let discovered: usize = discovered
        .tools
        .iter()
        .map(|tool| serde_json::to_vec(tool).map_or(0, |bytes| bytes.len()))
        .sum();
    println!("tools: {tools}; {pages} pages of {FIRST_PAGE}");
    println!(
        "listing: {total} bytes (≈{} tokens at 4 bytes each); per tool median {} bytes, largest {} bytes",
        total / 4,
        sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        sizes.last().copied().unwrap_or(0)
    );
    println!(
        "discovery-mode listing (--discovery on, no pins): {discovered} bytes (≈{} tokens)",
        discovered / 4
    );
    println!(
        "cold first listing (every schema projected for listing): {:.2} ms (median)",
        ms(cold)
    );
    println!(
        "tools/list, first page of {}: {:.3} ms (median)",
        FIRST_PAGE.min(tools),
        ms(first_page)
    );
    println!(
        "tools/list, all {tools} tools in one page: {:.3} ms (median; building the page {:.3} ms, serializing it {:.3} ms)",
        ms(one_page),
        ms(build),
        ms(serialize)
    );
    Ok(())
}

/// The page size of the paged figures (what servers used by default before issue 18).
const FIRST_PAGE: usize = 100;

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

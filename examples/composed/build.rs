//! Compiles `composed.harness` (the agent roles over the composed registry) into the IR bundle
//! the MCP program embeds, which its dashboard shows with each role's tools.

fn main() {
    println!("cargo::rerun-if-changed=composed.harness");
    let (sources, compiled) = harness_gen_lang::compile_files(&["composed.harness"]);
    let compiled = match compiled {
        Ok(compiled) => compiled,
        Err(diagnostics) => {
            eprintln!("{}", sources.render(&diagnostics));
            std::process::exit(1);
        }
    };
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let json = harness_gen_contract::harness::to_pretty_json(&compiled.bundle);
    std::fs::write(out.join("harness.json"), json).expect("OUT_DIR is writable");
}

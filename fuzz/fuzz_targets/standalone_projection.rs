//! Any JSON as a schema plus components: the standalone projection never panics.
#![no_main]

use harness_gen_runtime::schema::standalone;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let schema = items.first().cloned().unwrap_or(Value::Bool(true));
    let components = items.get(1).cloned().unwrap_or(Value::Null);
    let lookup = |name: &str| components.get(name);
    let _ = standalone::project(&schema, &lookup, "fuzz");
});

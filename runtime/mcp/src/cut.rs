//! Results over the server's size limit, cut so a model can still read them: the largest array
//! keeps the items that fit (then the next largest, …), a long string keeps its beginning, and
//! what was cut is said in a text block and in `_meta["com.harnlang/truncated"]`. A cut value
//! keeps its shape (an array stays an array, a string a string), so structured results still
//! read as their output schema describes in all but contrived cases (`minItems`, a pattern).

use serde_json::{Value, json};

use crate::schema::serialized_len;

/// The result limit unless the program is told otherwise: far over what a model reads well,
/// it guards against the reply that would swamp a client.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 1024 * 1024;

/// How many events of a tool's stream a call result keeps unless the program is told otherwise
/// (every event is reported as progress whatever the bound).
pub const DEFAULT_MAX_EVENTS: usize = 10_000;

/// The `_meta` key of a call result that says what was cut.
pub const TRUNCATED_META_KEY: &str = "com.harnlang/truncated";

/// Strings shorter than this are never cut (cutting them saves too little to be worth a cut).
const SHORTEST_CUT: usize = 64;

/// One cut: the array or string at `at` (a JSON pointer) kept `kept` of its `total` items or
/// characters.
#[derive(Debug, PartialEq)]
pub(super) struct Cut {
    at: String,
    unit: &'static str,
    total: usize,
    kept: usize,
}

/// `value` cut to at most `max` bytes of JSON, with what was cut (nothing when it fits). When
/// nothing is left to cut the value may stay over the limit; the caller says so.
pub(super) fn cut(value: &mut Value, max: usize) -> Vec<Cut> {
    let mut cuts = Vec::new();
    // Each round cuts the largest part; a handful of rounds reaches any real value.
    for _ in 0..32 {
        let mut largest = None;
        let size = measure(value, &mut String::new(), &mut largest);
        if size <= max {
            break;
        }
        let Some((at, part_size)) = largest else {
            break;
        };
        let Some(part) = value.pointer_mut(&at) else {
            break;
        };
        let budget = part_size.saturating_sub(size - max);
        let cut = match part {
            Value::Array(items) => {
                let total = items.len();
                let mut used = 2;
                let kept = items
                    .iter()
                    .take_while(|item| {
                        used += serialized_len(item) + 1;
                        used <= budget
                    })
                    .count();
                items.truncate(kept);
                Cut {
                    at,
                    unit: "items",
                    total,
                    kept,
                }
            }
            Value::String(text) => {
                let total = text.chars().count();
                // Escapes make JSON longer than the text: keep the share of the text that the
                // budget is of its JSON (a later round cuts again if escapes cluster early).
                let share = budget.saturating_sub(2) as f64 / part_size.saturating_sub(2) as f64;
                let mut end = ((text.len() as f64 * share) as usize).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
                Cut {
                    at,
                    unit: "characters",
                    total,
                    kept: text.chars().count(),
                }
            }
            _ => break,
        };
        let stuck = cut.kept == cut.total;
        cuts.push(cut);
        if stuck {
            break;
        }
    }
    cuts
}

/// What the cuts are, as the text block a model reads and the `_meta` value a program reads.
pub(super) fn described(cuts: &[Cut], bytes: usize, max: usize) -> (String, Value) {
    let parts: Vec<String> = cuts
        .iter()
        .map(|c| {
            let at = if c.at.is_empty() { "the result" } else { &c.at };
            format!("{at} keeps {} of {} {}", c.kept, c.total, c.unit)
        })
        .collect();
    let text = format!(
        "[cut: the result was {bytes} bytes, over this server's limit of {max}: {}. Ask for less (a filter, a smaller page) to see the rest.]",
        parts.join("; ")
    );
    let meta = json!({
        "bytes": bytes,
        "limit": max,
        "cuts": cuts.iter().map(|c| json!({"at": c.at, "unit": c.unit, "total": c.total, "kept": c.kept})).collect::<Vec<_>>(),
    });
    (text, meta)
}

/// What a stream's result kept (the first `kept` of `received` events, `bytes` of JSON in all)
/// under the server's bounds, as the text block a model reads and the `_meta` value a program
/// reads ([`described`]'s shape, with the event bound).
pub(super) fn events_described(
    received: usize,
    kept: usize,
    bytes: usize,
    max_bytes: Option<usize>,
    max_events: usize,
) -> (String, Value) {
    let bytes_limit = max_bytes.map_or(String::new(), |max| format!(" and {max} bytes"));
    let text = format!(
        "[cut: the stream sent {received} events ({bytes} bytes); this result keeps the first {kept}, within this server's limits of {max_events} events{bytes_limit}. Each event was also sent as a progress notification as it came.]"
    );
    let meta = json!({
        "bytes": bytes,
        "limit": max_bytes,
        "maxEvents": max_events,
        "cuts": [{"at": "", "unit": "events", "total": received, "kept": kept}],
    });
    (text, meta)
}

/// The JSON length of `value` (at pointer `at`), noting in `largest` the largest array with
/// items or string worth cutting, with its length.
fn measure(value: &Value, at: &mut String, largest: &mut Option<(String, usize)>) -> usize {
    let size = match value {
        Value::Array(items) => {
            let mut size = 2 + items.len().saturating_sub(1);
            for (i, item) in items.iter().enumerate() {
                let len = at.len();
                at.push('/');
                at.push_str(&i.to_string());
                size += measure(item, at, largest);
                at.truncate(len);
            }
            size
        }
        Value::Object(map) => {
            let mut size = 2 + map.len().saturating_sub(1);
            for (key, item) in map {
                let len = at.len();
                at.push('/');
                at.push_str(&harness_gen_wire::pointer::escape(key));
                size += serialized_len(key.as_str()) + 1 + measure(item, at, largest);
                at.truncate(len);
            }
            size
        }
        other => serialized_len(other),
    };
    let cuttable = match value {
        Value::Array(items) => !items.is_empty(),
        Value::String(text) => text.len() >= SHORTEST_CUT,
        _ => false,
    };
    if cuttable && largest.as_ref().is_none_or(|(_, best)| size > *best) {
        *largest = Some((at.clone(), size));
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_array_keeps_the_items_that_fit() {
        let items: Vec<Value> = (0..1000).map(|i| json!({"id": i, "name": "pet"})).collect();
        let mut value = json!({"total": 1000, "items": items});
        let cuts = cut(&mut value, 4096);
        assert!(serialized_len(&value) <= 4096);
        assert_eq!(cuts.len(), 1);
        assert_eq!((cuts[0].at.as_str(), cuts[0].total), ("/items", 1000));
        let kept = value["items"].as_array().unwrap().len();
        assert_eq!(cuts[0].kept, kept);
        // As many as fit: one more would not.
        let mut one_more = value.clone();
        one_more["items"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": 1000, "name": "pet"}));
        assert!(serialized_len(&one_more) > 4096);
        assert_eq!(value["total"], 1000);
    }

    #[test]
    fn a_long_string_keeps_its_beginning_on_a_character_boundary() {
        let mut value = json!({"log": "é\"x".repeat(10_000)});
        let cuts = cut(&mut value, 1000);
        assert!(serialized_len(&value) <= 1000, "{}", serialized_len(&value));
        assert_eq!(cuts[0].unit, "characters");
        assert!(value["log"].as_str().unwrap().starts_with("é\"xé"));
    }

    #[test]
    fn a_result_that_fits_is_not_cut() {
        let mut value = json!([1, 2, 3]);
        assert!(cut(&mut value, 100).is_empty());
        assert_eq!(value, json!([1, 2, 3]));
    }

    #[test]
    fn the_marker_names_each_cut() {
        let mut value = json!({"a": (0..100).collect::<Vec<_>>()});
        let cuts = cut(&mut value, 50);
        let (text, meta) = described(&cuts, 400, 50);
        assert!(text.contains("/a keeps"), "{text}");
        assert_eq!(meta["cuts"][0]["total"], 100);
        assert_eq!(meta["limit"], 50);
    }
}

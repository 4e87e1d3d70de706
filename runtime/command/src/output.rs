//! Rendering a tool's output: compact JSON, pretty JSON, or readable text with a table for an
//! array of objects.

use serde_json::Value;

/// How output is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One line of JSON.
    Json,
    /// Indented JSON.
    Pretty,
    /// Text: scalars as they are, objects as `key: value` lines, arrays of objects as a table.
    Text,
    /// JSON lines: one line per item of an array (per item of every page with `--paginate`),
    /// else the value on one line.
    Jsonl,
}

impl Format {
    /// The requested format, else pretty on a terminal and compact JSON elsewhere.
    pub fn pick(requested: Option<&str>, is_tty: bool) -> Self {
        match requested {
            Some("json") => Format::Json,
            Some("pretty") => Format::Pretty,
            Some("text") => Format::Text,
            Some("jsonl") => Format::Jsonl,
            _ if is_tty => Format::Pretty,
            _ => Format::Json,
        }
    }
}

/// `value` in `format`, with a trailing newline.
pub fn render(value: &Value, format: Format) -> String {
    let mut text = match format {
        Format::Json => value.to_string(),
        Format::Pretty => serde_json::to_string_pretty(value).unwrap_or_default(),
        Format::Text => text(value),
        Format::Jsonl => return jsonl(value),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// One line per item of an array (nothing for an empty one), else the value on one line.
pub fn jsonl(value: &Value) -> String {
    match value {
        Value::Array(items) => items.iter().map(|item| format!("{item}\n")).collect(),
        other => format!("{other}\n"),
    }
}

fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => s.replace(['\n', '\r', '\t'], " "),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn text(value: &Value) -> String {
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            table(items)
        }
        Value::Array(items) => items.iter().map(cell).collect::<Vec<_>>().join("\n"),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}: {}", cell(v)))
            .collect::<Vec<_>>()
            .join("\n"),
        other => cell(other),
    }
}

fn table(rows: &[Value]) -> String {
    let mut columns: Vec<String> = Vec::new();
    for row in rows {
        for key in row.as_object().into_iter().flat_map(|m| m.keys()) {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            columns
                .iter()
                .map(|c| cell(row.get(c).unwrap_or(&Value::Null)))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .chain([c.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |values: &[String]| {
        values
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![line(
        &columns.iter().map(|c| c.to_uppercase()).collect::<Vec<_>>(),
    )];
    out.extend(cells.iter().map(|r| line(r)));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arrays_of_objects_print_as_tables() {
        let value = json!([{"id": 1, "name": "Rex"}, {"id": 22, "tag": "x"}]);
        assert_eq!(
            render(&value, Format::Text),
            "ID  NAME  TAG\n1   Rex\n22        x\n"
        );
    }

    #[test]
    fn the_default_format_depends_on_the_terminal() {
        assert_eq!(Format::pick(None, true), Format::Pretty);
        assert_eq!(Format::pick(None, false), Format::Json);
        assert_eq!(Format::pick(Some("text"), false), Format::Text);
    }
}

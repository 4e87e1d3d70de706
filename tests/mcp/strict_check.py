"""Checks JSON Schemas against the rules of OpenAI's strict tool calling (`strict: true`).

    strict_check.py LISTING.json      (a tools/list result, or a list of them, as drive.py prints)

Prints one line per violation as `TOOL: PATH: RULE` and exits 1 when there is any. The rules
(OpenAI's structured-outputs guide): the root is an object and no union; every object lists all
its properties in `required` and says `"additionalProperties": false`; only the supported
keywords appear; `$ref` points into the schema's own `$defs`; at most 10 levels of nesting,
5,000 properties and 1,000 enum values in all. Written independently of the server's
projection, so the test checks the rules, not the code against itself.
"""

import json
import sys

SUPPORTED = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
    "const", "description", "$ref", "$defs", "pattern", "format", "multipleOf", "maximum",
    "minimum", "exclusiveMaximum", "exclusiveMinimum", "minItems", "maxItems",
}
TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}


def check_tool(name, schema, out):
    counts = {"properties": 0, "enum": 0}

    def bad(path, rule):
        out.append(f"{name}: {path or '/'}: {rule}")

    def walk(node, path, depth):
        if not isinstance(node, dict):
            bad(path, "a subschema is not an object")
            return
        if depth > 10:
            bad(path, "nested deeper than 10 levels")
        for key in node:
            if key not in SUPPORTED:
                bad(path, f"unsupported keyword `{key}`")
        kind = node.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
        for k in kinds:
            if k not in TYPES:
                bad(path, f"unknown type `{k}`")
        if not kinds and not any(k in node for k in ("anyOf", "enum", "const", "$ref")):
            bad(path, "no type")
        if "format" in node and node["format"] not in FORMATS:
            bad(path, f"unsupported format `{node['format']}`")
        if "$ref" in node and not (node["$ref"] == "#" or node["$ref"].startswith("#/$defs/")):
            bad(path, "a reference outside the schema's $defs")
        if "object" in kinds or "properties" in node:
            if node.get("additionalProperties") is not False:
                bad(path, "additionalProperties is not false")
            props = node.get("properties", {})
            required = node.get("required", [])
            counts["properties"] += len(props)
            for prop, sub in props.items():
                if prop not in required:
                    bad(f"{path}/properties/{prop}", "not required")
                walk(sub, f"{path}/properties/{prop}", depth + 1)
        if "items" in node:
            walk(node["items"], f"{path}/items", depth + 1)
        for i, branch in enumerate(node.get("anyOf", [])):
            walk(branch, f"{path}/anyOf/{i}", depth)
        if "enum" in node:
            counts["enum"] += len(node["enum"])
        for key, sub in node.get("$defs", {}).items():
            walk(sub, f"{path}/$defs/{key}", depth)

    if schema.get("type") != "object" or "anyOf" in schema:
        out.append(f"{name}: /: the root is not one object")
    walk(schema, "", 0)
    if counts["properties"] > 5000:
        out.append(f"{name}: /: more than 5,000 properties")
    if counts["enum"] > 1000:
        out.append(f"{name}: /: more than 1,000 enum values")


def tools_of(listing):
    if isinstance(listing, list):
        for page in listing:
            yield from tools_of(page)
    else:
        yield from listing.get("tools", [])


def main():
    with open(sys.argv[1]) as f:
        listing = json.load(f)
    out = []
    tools = 0
    for tool in tools_of(listing):
        tools += 1
        check_tool(tool["name"], tool["inputSchema"], out)
    for line in out:
        print(line)
    print(f"{tools} tools, {len(out)} violations", file=sys.stderr)
    sys.exit(1 if out or tools == 0 else 0)


if __name__ == "__main__":
    main()

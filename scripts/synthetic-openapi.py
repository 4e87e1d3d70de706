#!/usr/bin/env python3
"""Writes a synthetic OpenAPI 3.1 document with N operations (default 1000), for benchmarks of
large APIs: N/10 tags, each operation with path, query and body inputs and a shared schema."""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
paths = {}
for i in range(n):
    tag = f"group{i // 10}"
    paths[f"/items{i}/{{id}}"] = {
        "get": {
            "operationId": f"getItem{i}",
            "summary": f"Get item {i}",
            "tags": [tag],
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                {"name": "verbose", "in": "query", "schema": {"type": "boolean"}},
                {"name": "fields", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
            ],
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}},
                "404": {"description": "missing", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            },
        },
        "put": {
            "operationId": f"putItem{i}",
            "tags": [tag],
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}},
            "responses": {"204": {"description": "stored"}},
        },
    }
doc = {
    "openapi": "3.1.0",
    "info": {"title": "Synthetic", "version": "1.0.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": paths,
    "components": {"schemas": {
        "Item": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}},
        "Problem": {"type": "object", "properties": {"title": {"type": "string"}}},
    }},
}
json.dump(doc, sys.stdout)

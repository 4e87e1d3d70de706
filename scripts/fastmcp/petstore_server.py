"""FastMCP's `from_openapi` server for specs/petstore.yaml over Streamable HTTP, the comparison
row of scripts/mcp-load.sh.

    python petstore_server.py SPEC BASE_URL TOKEN PORT
"""

import sys

import httpx2
import yaml
from fastmcp import FastMCP

spec_path, base_url, token, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with open(spec_path) as f:
    spec = yaml.safe_load(f)
client = httpx2.AsyncClient(base_url=base_url, headers={"Authorization": f"Bearer {token}"})
server = FastMCP.from_openapi(spec, client=client, name="petstore")
server.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="error")

"""Drives an MCP server with the official Python SDK and prints what it saw as JSON.

    drive.py MODE SCRIPT -- COMMAND [ARGS...]     (stdio: the server is started as a process)
    drive.py MODE SCRIPT --url URL [--header 'NAME: VALUE']...   (Streamable HTTP)

MODE is `legacy` (initialize, 2025-11-25) or `modern` (server/discover, 2026-07-28). SCRIPT is a
JSON list of steps: {"list": true} lists every page; {"call": NAME, "arguments": {...}} calls a
tool, and with "progress": true asks for progress and records each notification. The Rust tests assert on the printed observations; this script asserts nothing itself
except what the SDK itself checks (it validates structuredContent against outputSchema).
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def steps(session, mode, script):
    if mode == "legacy":
        result = await session.initialize()
    else:
        result = await session.discover()
    out = {"protocolVersion": session.protocol_version, "server": dump(session.server_info)}
    seen = []
    for step in script:
        if step.get("list"):
            pages, cursor = [], None
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                pages.append(dump(page))
                cursor = page.next_cursor
                if not cursor:
                    break
            seen.append({"list": pages})
        else:
            notes = []

            async def noted(progress, total, message):
                notes.append({"progress": progress, "message": message})

            callback = noted if step.get("progress") else None
            try:
                result = await session.call_tool(
                    step["call"], step.get("arguments"), progress_callback=callback
                )
                seen.append({"call": step["call"], "result": dump(result), "progress": notes})
            except MCPError as e:
                seen.append({"call": step["call"], "error": {"code": e.error.code, "message": e.error.message}})
            except RuntimeError as e:
                seen.append({"call": step["call"], "clientError": str(e)})
    out["steps"] = seen
    return out


async def main():
    mode, script = sys.argv[1], json.loads(sys.argv[2])
    if sys.argv[3] == "--url":
        rest, headers = sys.argv[5:], {}
        while rest[:1] == ["--header"]:
            name, _, value = rest[1].partition(":")
            headers[name.strip()] = value.strip()
            rest = rest[2:]
        http = create_mcp_http_client(headers=headers)
        async with streamable_http_client(sys.argv[4], http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                out = await steps(session, mode, script)
    else:
        command = sys.argv[4:]
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                out = await steps(session, mode, script)
    print(json.dumps(out))


asyncio.run(main())

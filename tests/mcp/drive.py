"""Drives an MCP server with the official Python SDK and prints what it saw as JSON.

    drive.py MODE SCRIPT -- COMMAND [ARGS...]     (stdio: the server is started as a process)
    drive.py MODE SCRIPT --url URL [--header 'NAME: VALUE']...   (Streamable HTTP)

MODE is `legacy` (initialize, 2025-11-25) or `modern` (server/discover, 2026-07-28). SCRIPT is a
JSON list of steps: {"list": true} lists every page; {"call": NAME, "arguments": {...}} calls a
tool, and with "progress": true asks for progress and records each notification;
{"task": NAME, "arguments": {...}} calls a tool as a task (the client declares the tasks extension,
`io.modelcontextprotocol/tasks`) and polls `tasks/get` until the task ends ("cancel": true cancels
it first); {"getTask": ID} and {"cancelTask": ID} are one `tasks/get` and
`tasks/cancel`; {"setLevel": LEVEL} is `logging/setLevel`; {"awaitLogs": N} waits (up to five
seconds) until N log messages have come (over HTTP they travel on the session's own stream, so
they may arrive after the result of the call they tell of). The log messages the server sends are
recorded in the order they come, under "logs". The Rust tests assert on the printed observations; this script asserts nothing itself
except what the SDK itself checks (it validates structuredContent against outputSchema).
"""

import asyncio
import json
import os
import sys

from typing import Any, Literal

import mcp_types
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.extension import ResultClaim
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter


TASKS = "io.modelcontextprotocol/tasks"


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


class TaskCreated(mcp_types.Result):
    """What `tools/call` answers when the server runs the call as a task (`resultType: "task"`)."""

    result_type: Literal["task"]
    task_id: str
    status: str


async def unresolved(created, context):
    raise RuntimeError("this script polls tasks itself")


CLAIMS = {TASKS: [ResultClaim(result_type="task", model=TaskCreated, resolve=unresolved)]}


class TaskRequest(mcp_types.Request[dict, str]):
    """`tasks/get` or `tasks/cancel` of the tasks extension."""

    name_param = "taskId"


async def task_request(session, method, task_id):
    try:
        answer = await session.send_request(
            TaskRequest(method=method, params={"taskId": task_id}), TypeAdapter(dict[str, Any])
        )
        return {"result": answer}
    except MCPError as e:
        return {"error": {"code": e.error.code, "message": e.error.message}}


async def run_task(session, step):
    created = await session.call_tool(step["task"], step.get("arguments"), allow_claimed=True)
    if not isinstance(created, TaskCreated):
        return {"task": step["task"], "inline": dump(created)}
    polls = []
    if step.get("cancel"):
        polls.append({"cancel": await task_request(session, "tasks/cancel", created.task_id)})
    for _ in range(400):
        seen = await task_request(session, "tasks/get", created.task_id)
        polls.append(seen)
        if "error" in seen or seen["result"].get("status") != "working":
            break
        await asyncio.sleep(0.05)
    return {"task": step["task"], "taskId": created.task_id, "polls": polls, "final": polls[-1]}


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
        elif "task" in step:
            seen.append(await run_task(session, step))
        elif "setLevel" in step:
            try:
                await session.set_logging_level(step["setLevel"])
                seen.append({"setLevel": step["setLevel"]})
            except MCPError as e:
                seen.append({"setLevel": step["setLevel"], "error": {"code": e.error.code, "message": e.error.message}})
        elif "awaitLogs" in step:
            for _ in range(500):
                if len(LOGS) >= step["awaitLogs"]:
                    break
                await asyncio.sleep(0.01)
            seen.append({"awaitLogs": step["awaitLogs"], "seen": len(LOGS)})
        elif "getTask" in step:
            seen.append({"getTask": step["getTask"], **await task_request(session, "tasks/get", step["getTask"])})
        elif "cancelTask" in step:
            seen.append(
                {"cancelTask": step["cancelTask"], **await task_request(session, "tasks/cancel", step["cancelTask"])}
            )
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


# The `notifications/message` the server sends, in order.
LOGS = []


async def logged(params):
    LOGS.append(dump(params))


async def main():
    mode, script = sys.argv[1], json.loads(sys.argv[2])
    # The tasks extension is declared only by a script that uses tasks: a server runs a tool
    # that allows tasks as one for a client that declares it.
    uses_tasks = any(key in step for step in script for key in ("task", "getTask", "cancelTask"))
    tasks = {"extensions": {TASKS: {}}, "result_claims": CLAIMS} if uses_tasks else {}
    if sys.argv[3] == "--url":
        rest, headers = sys.argv[5:], {}
        while rest[:1] == ["--header"]:
            name, _, value = rest[1].partition(":")
            headers[name.strip()] = value.strip()
            rest = rest[2:]
        http = create_mcp_http_client(headers=headers)
        async with streamable_http_client(sys.argv[4], http_client=http) as streams:
            async with ClientSession(streams[0], streams[1], logging_callback=logged, **tasks) as session:
                out = await steps(session, mode, script)
    else:
        command = sys.argv[4:]
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, logging_callback=logged, **tasks) as session:
                out = await steps(session, mode, script)
    out["logs"] = LOGS
    print(json.dumps(out))


asyncio.run(main())

"""An MCP client written with the Python SDK 1.x, for the gateway's tests of the 2025-11-25
tasks (`session.experimental`): it does one of the steps below through Streamable HTTP (or,
given `-- COMMAND [ARG]...` in place of `--url` and `--token`, over stdio) and prints what it
saw as one JSON object on stdout.

    gateway_tasks_client.py run --url URL --token TOKEN --call NAME --args JSON
        the server's `tasks` capability and the tool's `execution`; the tool called as a task,
        its result waited for (`tasks/result`), the task polled to its end, the tasks listed
    gateway_tasks_client.py cancel --url URL --token TOKEN --call NAME --args JSON --count NAME
        the tool called as a task, cancelled, polled to its end; then the plain tool `--count`
    gateway_tasks_client.py list --url URL --token TOKEN [--task ID]
        the tasks listed (every page); `--task`: what `tasks/get` of that id answers
    gateway_tasks_client.py refused --url URL --token TOKEN --call NAME --args JSON
        the error a task of the tool is refused with

A JSON-RPC error is reported as `{"error": code}` in place of what was asked; anything else
goes to stderr and ends the process with status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import warnings

import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

# The experimental tasks API warns that it is deprecated; that is what is under test.
warnings.simplefilter("ignore", DeprecationWarning)


def parse() -> argparse.Namespace:
    argv = sys.argv[1:]
    command: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=["run", "cancel", "list", "refused"])
    parser.add_argument("--url")
    parser.add_argument("--token")
    parser.add_argument("--call")
    parser.add_argument("--args", default="{}")
    parser.add_argument("--count")
    parser.add_argument("--task")
    args = parser.parse_args(argv)
    args.command = command
    return args


def text_of(content) -> str:
    return "".join(getattr(part, "text", "") for part in content)


def task_of(task) -> dict:
    return task.model_dump(mode="json", exclude_none=False)


async def listed(session: ClientSession) -> list[str]:
    ids: list[str] = []
    cursor = None
    while True:
        page = await session.experimental.list_tasks(cursor)
        ids.extend(task.taskId for task in page.tasks)
        cursor = page.nextCursor
        if not cursor:
            return ids


async def poll(session: ClientSession, task_id: str) -> list[str]:
    """The statuses seen polling the task to its end (honouring its pollInterval)."""
    return [status.status async for status in session.experimental.poll_task(task_id)]


async def run(session: ClientSession, args: argparse.Namespace) -> dict:
    seen: dict = {}
    capabilities = session.get_server_capabilities()
    tasks = capabilities.tasks if capabilities else None
    seen["capability"] = tasks.model_dump(mode="json", exclude_none=True) if tasks else None
    tools = await session.list_tools()
    tool = next((t for t in tools.tools if t.name == args.call), None)
    seen["execution"] = tool.execution.model_dump(mode="json") if tool and tool.execution else None
    created = await session.experimental.call_tool_as_task(args.call, json.loads(args.args))
    task_id = created.task.taskId
    seen["created"] = task_of(created.task)
    result = await session.experimental.get_task_result(task_id, types.CallToolResult)
    seen["result"] = {"isError": bool(result.isError), "text": text_of(result.content)}
    related = (result.meta or {}).get("io.modelcontextprotocol/related-task")
    seen["related"] = related
    seen["statuses"] = await poll(session, task_id)
    seen["listed"] = await listed(session)
    return seen


async def cancel(session: ClientSession, args: argparse.Namespace) -> dict:
    seen: dict = {}
    created = await session.experimental.call_tool_as_task(args.call, json.loads(args.args))
    task_id = created.task.taskId
    seen["created"] = task_of(created.task)
    cancelled = await session.experimental.cancel_task(task_id)
    seen["cancelled"] = task_of(cancelled)
    seen["statuses"] = await poll(session, task_id)
    count = await session.call_tool(args.count, {})
    seen["count"] = text_of(count.content)
    return seen


async def list_step(session: ClientSession, args: argparse.Namespace) -> dict:
    seen: dict = {"listed": await listed(session)}
    if args.task:
        try:
            seen["get"] = task_of(await session.experimental.get_task(args.task))
        except McpError as error:
            seen["get"] = {"error": error.error.code}
    return seen


async def refused(session: ClientSession, args: argparse.Namespace) -> dict:
    try:
        created = await session.experimental.call_tool_as_task(args.call, json.loads(args.args))
        return {"created": task_of(created.task)}
    except McpError as error:
        return {"error": error.error.code}


STEPS = {"run": run, "cancel": cancel, "list": list_step, "refused": refused}


async def exercise(read, write, args: argparse.Namespace) -> dict:
    async with ClientSession(read, write) as session:
        initialized = await session.initialize()
        seen = await STEPS[args.step](session, args)
        seen["protocol"] = initialized.protocolVersion
        return seen


async def main_async(args: argparse.Namespace) -> dict:
    if args.command:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=args.command[0], args=args.command[1:])
        async with stdio_client(params) as (read, write):
            return await exercise(read, write, args)
    headers = {"Authorization": f"Bearer {args.token}"}
    async with streamablehttp_client(args.url, headers=headers) as (read, write, _):
        return await exercise(read, write, args)


def main() -> int:
    args = parse()
    try:
        seen = asyncio.run(main_async(args))
    except BaseException as error:  # noqa: BLE001 - reported whole to the test
        print(f"client failed: {error!r}", file=sys.stderr)
        return 1
    print(json.dumps(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""An MCP client written with the Python SDK 1.x, for the gateway's tests of views in `search`
mode: it carries out a plan of steps and prints what each gave as one JSON object on stdout.

    gateway_plan_client.py http --url URL [--token TOKEN] --plan JSON
    gateway_plan_client.py stdio --plan JSON -- COMMAND [ARG]...

The plan is a JSON array of steps: `{"op": "list"}` (the tool names `tools/list` gave) or
`{"op": "call", "name": NAME, "args": {...}}` (a `tools/call`: its `isError`, text and
structured content, or the JSON-RPC error's code and message). Errors outside the plan go to
stderr and end the process with status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.shared.exceptions import McpError


def parse() -> argparse.Namespace:
    argv = sys.argv[1:]
    command: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["http", "stdio"])
    parser.add_argument("--url")
    parser.add_argument("--token")
    parser.add_argument("--plan", required=True)
    args = parser.parse_args(argv)
    args.command = command
    return args


def text_of(content) -> str:
    return "".join(getattr(part, "text", "") for part in content)


async def step(session: ClientSession, planned: dict) -> dict:
    if planned["op"] == "list":
        tools = await session.list_tools()
        return {"tools": [tool.name for tool in tools.tools]}
    try:
        result = await session.call_tool(planned["name"], planned.get("args", {}))
    except McpError as error:
        return {"error": {"code": error.error.code, "message": error.error.message}}
    return {
        "isError": bool(result.isError),
        "text": text_of(result.content),
        "structured": result.structuredContent,
    }


async def carry_out(session: ClientSession, plan: list) -> dict:
    await session.initialize()
    return {"steps": [await step(session, planned) for planned in plan]}


async def run(args: argparse.Namespace) -> dict:
    plan = json.loads(args.plan)
    if args.transport == "http":
        from mcp.client.streamable_http import streamablehttp_client

        headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
        async with streamablehttp_client(args.url, headers=headers) as (read, write, _):
            async with ClientSession(read, write) as session:
                return await carry_out(session, plan)
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=args.command[0], args=args.command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            return await carry_out(session, plan)


def main() -> int:
    args = parse()
    try:
        seen = asyncio.run(run(args))
    except BaseException as error:  # noqa: BLE001 - reported whole to the test
        print(f"client failed: {error!r}", file=sys.stderr)
        return 1
    print(json.dumps(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())

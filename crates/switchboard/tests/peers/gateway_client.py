"""An MCP client written with the Python SDK (mcp 1.x or 2.x, whichever runs it), for the
gateway's interop tests: it lists tools, calls one, reads the first resource and gets the first
prompt that needs no arguments, and prints what it saw as one JSON object on stdout.

    gateway_client.py http --url URL [--token TOKEN] --call NAME --args JSON
    gateway_client.py stdio --call NAME --args JSON -- COMMAND [ARG]...

With mcp 2.x the client negotiates itself ("auto": `server/discover`, so the stateless
2026-07-28 revision when the server offers it); `--legacy` forces the initialize handshake.
Errors go to stderr and end the process with status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

import mcp

V2 = hasattr(mcp, "Client")


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
    parser.add_argument("--call", required=True)
    parser.add_argument("--args", default="{}")
    parser.add_argument("--legacy", action="store_true")
    args = parser.parse_args(argv)
    args.command = command
    return args


def text_of(content) -> str:
    return "".join(getattr(part, "text", "") for part in content)


async def exercise(session, args: argparse.Namespace) -> dict:
    seen: dict = {"sdk": "2" if V2 else "1"}
    tools = await session.list_tools()
    seen["tools"] = sorted(tool.name for tool in tools.tools)
    result = await session.call_tool(args.call, json.loads(args.args))
    # mcp 1.x names the field isError, mcp 2.x (mcp_types) is_error.
    is_error = getattr(result, "isError", None) or getattr(result, "is_error", None)
    seen["call"] = {"isError": bool(is_error), "text": text_of(result.content)}
    resources = await session.list_resources()
    seen["resources"] = [str(r.uri) for r in resources.resources]
    if resources.resources:
        uri = resources.resources[0].uri
        read = await session.read_resource(uri)
        seen["read"] = {
            "uri": str(uri),
            "contents": len(read.contents),
            "text": getattr(read.contents[0], "text", None) if read.contents else None,
        }
    prompts = await session.list_prompts()
    seen["prompts"] = [p.name for p in prompts.prompts]
    plain = [p for p in prompts.prompts if not any(a.required for a in (p.arguments or []))]
    if plain:
        got = await session.get_prompt(plain[0].name, {})
        seen["prompt"] = {"name": plain[0].name, "messages": len(got.messages)}
    return seen


async def run_v1(args: argparse.Namespace) -> dict:
    from mcp import ClientSession

    if args.transport == "http":
        from mcp.client.streamable_http import streamablehttp_client

        headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
        async with streamablehttp_client(args.url, headers=headers) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await exercise(session, args)
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=args.command[0], args=args.command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await exercise(session, args)


async def run_v2(args: argparse.Namespace) -> dict:
    mode = "legacy" if args.legacy else "auto"
    if args.transport == "http":
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
        transport = streamable_http_client(args.url, http_client=create_mcp_http_client(headers=headers))
        server = transport
    else:
        from mcp import StdioServerParameters

        server = StdioServerParameters(command=args.command[0], args=args.command[1:])
    async with mcp.Client(server, mode=mode, cache=None) as client:
        seen = await exercise(client, args)
        seen["protocol"] = str(getattr(client.session, "protocol_version", "") or "")
        return seen


def main() -> int:
    args = parse()
    try:
        seen = asyncio.run(run_v2(args) if V2 else run_v1(args))
    except BaseException as error:  # noqa: BLE001 - reported whole to the test
        print(f"client failed: {error!r}", file=sys.stderr)
        return 1
    print(json.dumps(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())

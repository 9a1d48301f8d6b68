"""An MCP client written with the Python SDK (mcp 1.x or 2.x, whichever runs it) for the gateway's
interop matrix: for each upstream of a plan it lists the tools, calls one, follows a call's
progress, cancels a slow call, answers a server's question (elicitation), sees a server's log
message, reads a resource and gets a prompt, and prints what it saw as one JSON object.

    interop_client.py http --url URL [--token TOKEN] --plan JSON
    interop_client.py stdio --plan JSON -- COMMAND [ARG]...

The plan is a list of upstreams: {"name", "prefix", and any of "echo": [tool, args, expected
text], "progress": [tool, args], "slow": [tool, args], "cancelled": tool, "ask": [tool, args],
"log": [tool, args], "task": [tool, args] (a tool only run as a task), "resource": URI prefix,
"prompt": name}. What a step saw, or the error it met, is reported under the upstream's name;
the process fails only when it cannot connect.
A question is answered by filling each required field of its form (strings "Ada").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

import anyio
import mcp
import mcp.types as types

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
    parser.add_argument("--plan", required=True)
    args = parser.parse_args(argv)
    args.command = command
    return args


def text_of(result) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def is_error(result) -> bool:
    return bool(getattr(result, "isError", None) or getattr(result, "is_error", None))


def fill(schema) -> dict:
    """A value for each required field of an elicitation form."""
    schema = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True)
    answer = {}
    properties = schema.get("properties") or {}
    for name in schema.get("required") or list(properties):
        field = properties.get(name) or {}
        kind = field.get("type")
        if field.get("enum"):
            answer[name] = field["enum"][0]
        elif field.get("oneOf"):
            answer[name] = field["oneOf"][0].get("const")
        elif kind == "boolean":
            answer[name] = True
        elif kind in ("number", "integer"):
            answer[name] = field.get("minimum", 1)
        elif kind == "array":
            items = field.get("items") or {}
            answer[name] = [(items.get("enum") or ["Ada"])[0]]
        else:
            answer[name] = "Ada"
    return answer


class Seen:
    def __init__(self) -> None:
        self.questions = 0
        self.logs: list[str] = []

    async def elicit(self, _context, params):
        self.questions += 1
        schema = getattr(params, "requestedSchema", None) or getattr(params, "requested_schema", None) or {}
        return types.ElicitResult(action="accept", content=fill(schema))

    async def log(self, params) -> None:
        self.logs.append(json.dumps(getattr(params, "data", None)))


def plain(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def resolve(names: list, prefix: str, tool: str) -> str:
    """The exported name of an upstream's tool: its prefix and the tool's name, as the
    gateway spells names (characters outside its set become `_`)."""
    for name in names:
        if name.startswith(prefix) and plain(name[len(prefix):]) == plain(tool):
            return name
    return prefix + tool


async def step(report: dict, name: str, action) -> None:
    try:
        report[name] = await action()
    except BaseException as error:  # noqa: BLE001 - reported whole to the test
        report[name] = {"error": repr(error)[:500]}


async def exercise(session, plan: list, seen: Seen) -> dict:
    report: dict = {"sdk": "2" if V2 else "1"}
    tools = await session.list_tools()
    names = sorted(tool.name for tool in tools.tools)
    for upstream in plan:
        out: dict = {}
        prefix = upstream["prefix"]
        out["tools"] = [name for name in names if name.startswith(prefix)]
        for key in ("echo", "progress", "slow", "ask", "log", "task"):
            if key in upstream:
                upstream[key][0] = resolve(names, prefix, upstream[key][0])
        if "cancelled" in upstream:
            upstream["cancelled"] = resolve(names, prefix, upstream["cancelled"])

        if "echo" in upstream:
            tool, args, expected = upstream["echo"]

            async def echo():
                result = await session.call_tool(tool, args)
                return {"ok": not is_error(result) and expected in text_of(result), "text": text_of(result)[:200]}

            await step(out, "echo", echo)

        if "progress" in upstream:
            tool, args = upstream["progress"]

            async def progress():
                reports: list = []

                async def on_progress(progress, total, message):
                    reports.append(progress)

                result = await session.call_tool(tool, args, progress_callback=on_progress)
                return {"ok": not is_error(result), "reports": len(reports)}

            await step(out, "progress", progress)

        if "task" in upstream:
            tool, args = upstream["task"]

            async def task():
                # A tool the server runs only as a task, called as a plain call.
                result = await session.call_tool(tool, args)
                return {"isError": is_error(result), "text": text_of(result)[:300]}

            await step(out, "task", task)

        if "slow" in upstream:
            tool, args = upstream["slow"]

            async def cancel():
                started = time.monotonic()
                request_id = getattr(session, "_request_id", None)
                with anyio.move_on_after(1.0) as scope:
                    await session.call_tool(tool, args)
                if not V2 and request_id is not None:
                    # mcp 1.x abandons a request without telling the server: say it.
                    await session.send_notification(
                        types.ClientNotification(
                            types.CancelledNotification(
                                params=types.CancelledNotificationParams(requestId=request_id, reason="test")
                            )
                        )
                    )
                cancelled = None
                if "cancelled" in upstream:
                    deadline = time.monotonic() + 10
                    while time.monotonic() < deadline:
                        count = int(text_of(await session.call_tool(upstream["cancelled"], {})) or 0)
                        if count > 0:
                            break
                        await anyio.sleep(0.05)
                    cancelled = count
                return {"abandoned": scope.cancelled_caught, "seconds": round(time.monotonic() - started, 2),
                        "upstream_cancelled": cancelled}

            await step(out, "cancel", cancel)

        if "ask" in upstream:
            tool, args = upstream["ask"]

            async def ask():
                before = seen.questions
                result = await session.call_tool(tool, args)
                return {"ok": not is_error(result), "questions": seen.questions - before, "text": text_of(result)[:200]}

            await step(out, "ask", ask)

        if "log" in upstream:
            tool, args = upstream["log"]

            async def log():
                before = len(seen.logs)
                result = await session.call_tool(tool, args)
                # A log line may arrive just after the answer on another stream.
                deadline = time.monotonic() + 3
                while len(seen.logs) == before and time.monotonic() < deadline:
                    await anyio.sleep(0.02)
                return {"ok": not is_error(result), "lines": seen.logs[before:]}

            await step(out, "log", log)

        if "resource" in upstream:

            async def read():
                listed = await session.list_resources()
                uris = [str(r.uri) for r in listed.resources if str(r.uri).startswith(upstream["resource"])]
                got = await session.read_resource(uris[0])
                return {"uri": uris[0], "text": getattr(got.contents[0], "text", None)}

            await step(out, "read", read)

        if "prompt" in upstream:

            async def prompt():
                listed = await session.list_prompts()
                wanted = [p.name for p in listed.prompts
                          if p.name.startswith(prefix) and plain(p.name[len(prefix):]) == plain(upstream["prompt"])]
                got = await session.get_prompt(wanted[0] if wanted else upstream["prompt"], {})
                first = got.messages[0].content if got.messages else None
                return {"name": wanted[0] if wanted else None, "messages": len(got.messages),
                        "text": getattr(first, "text", None)}

            await step(out, "prompt", prompt)

        report[upstream["name"]] = out
    return report


async def run_v1(args: argparse.Namespace, plan: list, seen: Seen) -> dict:
    from mcp import ClientSession

    callbacks = {"elicitation_callback": seen.elicit, "logging_callback": seen.log}
    if args.transport == "http":
        from mcp.client.streamable_http import streamablehttp_client

        headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
        async with streamablehttp_client(args.url, headers=headers) as (read, write, _):
            async with ClientSession(read, write, **callbacks) as session:
                init = await session.initialize()
                report = await exercise(session, plan, seen)
                report["protocol"] = str(init.protocolVersion)
                return report
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=args.command[0], args=args.command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, **callbacks) as session:
            init = await session.initialize()
            report = await exercise(session, plan, seen)
            report["protocol"] = str(init.protocolVersion)
            return report


async def run_v2(args: argparse.Namespace, plan: list, seen: Seen) -> dict:
    if args.transport == "http":
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
        server = streamable_http_client(args.url, http_client=create_mcp_http_client(headers=headers))
    else:
        from mcp import StdioServerParameters

        server = StdioServerParameters(command=args.command[0], args=args.command[1:])
    async with mcp.Client(
        server,
        mode="auto",
        cache=None,
        elicitation_callback=seen.elicit,
        logging_callback=seen.log,
        log_level="info",
    ) as client:
        report = await exercise(client, plan, seen)
        report["protocol"] = str(getattr(client.session, "protocol_version", "") or "")
        return report


def main() -> int:
    args = parse()
    plan = json.loads(args.plan)
    seen = Seen()
    try:
        report = asyncio.run(run_v2(args, plan, seen) if V2 else run_v1(args, plan, seen))
    except BaseException as error:  # noqa: BLE001 - reported whole to the test
        print(f"client failed: {error!r}", file=sys.stderr)
        return 1
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

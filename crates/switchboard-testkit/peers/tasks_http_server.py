"""A 2025-11-25 MCP server over Streamable HTTP (the Python SDK 1.x lowlevel server) whose
tools run only as tasks, and whose tasks outlive any one client: a client that comes back
after a restart, on a new session, still finds them.

- `gated_task`: a task that waits until `open_gate` is called, then answers `the gate opened`;
- `slow_task(seconds)`: a task that sleeps, then answers `slept <seconds>`;
- `open_gate` (plain): lets every `gated_task` finish;
- `task_cancelled_count` (plain): how many `tasks/cancel` requests the server received.

Two things keep the tasks apart from sessions. The server is stateless: the SDK ties the
ids of a session's tasks to it (another session is told they do not exist), but a stateless
request has no session to tie them to. And the tasks' work runs in the process's own task
group rather than in the request's, which ends with its answer; for the same reason no task
sends a notification (the request's stream is gone by then).

    python tasks_http_server.py --port 0   (prints `LISTENING <port>`)
"""

from __future__ import annotations

import argparse
import contextlib

import anyio
import mcp.types as types
import peer_common
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

server = Server("tasks-http-peer")
support = server.experimental.enable_tasks()
cancelled = 0
# Made in the event loop, on first use.
_gate: anyio.Event | None = None


def gate() -> anyio.Event:
    global _gate
    if _gate is None:
        _gate = anyio.Event()
    return _gate


@contextlib.asynccontextmanager
async def _in_the_process_group():
    # In place of TaskSupport.run, which makes each session a task group of its own: the
    # process's (set up in `lifespan`) stays.
    yield


support.run = _in_the_process_group

_default_cancel = server.request_handlers[types.CancelTaskRequest]


async def _counting_cancel(request):
    global cancelled
    cancelled += 1
    return await _default_cancel(request)


server.request_handlers[types.CancelTaskRequest] = _counting_cancel

REQUIRED = types.ToolExecution(taskSupport="required")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name="gated_task", inputSchema={"type": "object"}, execution=REQUIRED),
        types.Tool(
            name="slow_task",
            inputSchema={
                "type": "object",
                "properties": {"seconds": {"type": "number"}},
                "required": ["seconds"],
            },
            execution=REQUIRED,
        ),
        types.Tool(name="open_gate", inputSchema={"type": "object"}),
        types.Tool(name="task_cancelled_count", inputSchema={"type": "object"}),
    ]


def text(value: str) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=value)]


async def _finish(task: ServerTaskContext, answer: str) -> types.CallToolResult:
    result = types.CallToolResult(content=text(answer))
    await task.complete(result, notify=False)
    return result


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    if name == "task_cancelled_count":
        return text(str(cancelled))
    if name == "open_gate":
        gate().set()
        return text("open")
    ctx = server.request_context
    if name == "gated_task":

        async def work(task: ServerTaskContext) -> types.CallToolResult:
            await task.update_status("waiting for the gate", notify=False)
            await gate().wait()
            return await _finish(task, "the gate opened")

        return await ctx.experimental.run_task(work)
    if name == "slow_task":
        seconds = arguments["seconds"]

        async def work(task: ServerTaskContext) -> types.CallToolResult:
            await task.update_status("sleeping", notify=False)
            await anyio.sleep(seconds)
            return await _finish(task, f"slept {seconds}")

        return await ctx.experimental.run_task(work)
    raise ValueError(f"unknown tool {name}")


def app():
    manager = StreamableHTTPSessionManager(app=server, stateless=True)

    async def handle(scope, receive, send):
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
        elif scope["path"].rstrip("/") == "/mcp":
            await manager.handle_request(scope, receive, send)
        else:
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})

    async def lifespan(receive, send):
        await receive()
        async with anyio.create_task_group() as group:
            support._task_group = group
            async with manager.run():
                await send({"type": "lifespan.startup.complete"})
                await receive()
                group.cancel_scope.cancel()
        await send({"type": "lifespan.shutdown.complete"})

    return handle


def main() -> None:
    parser = argparse.ArgumentParser(description="MCP tasks over stateless Streamable HTTP")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 picks a free one)")
    args = parser.parse_args()
    anyio.run(peer_common.serve_http, app(), args.port)


if __name__ == "__main__":
    main()

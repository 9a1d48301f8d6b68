"""Test peer on the PyPI `mcp` 2.x line (MCPServer; speaks the stateless 2026-07-28 revision
and still accepts the 2025 `initialize` handshake).

Run with the py2 venv:  python py2_server.py stdio
                        python py2_server.py http --port 0   (prints `LISTENING <port>`)
Streamable HTTP is served at /mcp on 127.0.0.1. tools/list is paginated, three tools a page.
"""

from __future__ import annotations

import os

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    ToolAnnotations,
)

import peer_common

READ_ONLY = ToolAnnotations(read_only_hint=True)


def build_server() -> MCPServer:
    mcp = MCPServer("switchboard-py2-peer", log_level="WARNING")

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @mcp.tool(annotations=READ_ONLY, structured_output=True)
    def add(a: float, b: float) -> float:
        """Add two numbers (the result is also given as structuredContent)."""
        return a + b

    @mcp.tool(annotations=READ_ONLY)
    def image() -> Image:
        """Return a tiny PNG image."""
        return Image(data=peer_common.tiny_png(), format="png")

    @mcp.tool(annotations=READ_ONLY)
    def fail() -> CallToolResult:
        """Always fail with a tool error (isError: true)."""
        return CallToolResult(content=[TextContent(type="text", text="this tool always fails")], is_error=True)

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    async def long_task(steps: int, step_ms: int, ctx: Context) -> str:
        """Send one progress notification per step, then finish."""
        try:
            for step in range(1, steps + 1):
                await anyio.sleep(step_ms / 1000)
                await ctx.report_progress(step, steps, f"step {step} of {steps}")
        except anyio.get_cancelled_exc_class():
            peer_common.record_cancelled()
            raise
        return f"done after {steps} steps"

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    async def slow(seconds: float) -> str:
        """Wait, doing nothing; used to test timeouts and cancellation."""
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            peer_common.record_cancelled()
            raise
        return f"slept {seconds} seconds"

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    def cancelled_count() -> str:
        """How many tool calls of this process were cancelled by the client."""
        return str(peer_common.cancelled_count())

    @mcp.tool(structured_output=False)
    def spawn_child() -> str:
        """Start a long-running grandchild process in our process group; return its pid."""
        return str(peer_common.spawn_grandchild())

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    def pid() -> str:
        """The pid of this server process."""
        return str(os.getpid())

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False), structured_output=False)
    def counter() -> str:
        """Return 1, 2, 3, ... on successive calls (per process)."""
        return str(peer_common.next_counter())

    # MCPServer lists every tool at once; replace its handler with a paginated one.
    async def list_tools_paged(ctx, params: PaginatedRequestParams) -> ListToolsResult:
        try:
            page, next_cursor = peer_common.paginate(await mcp.list_tools(), params.cursor)
        except ValueError as err:
            raise MCPError(code=INVALID_PARAMS, message=str(err)) from err
        return ListToolsResult(tools=page, next_cursor=next_cursor)

    mcp._lowlevel_server.add_request_handler("tools/list", PaginatedRequestParams, list_tools_paged)
    return mcp


def main() -> None:
    args = peer_common.parse_args("mcp 2.x test peer")
    server = build_server()
    if args.mode == "stdio":
        server.run("stdio")
    else:
        anyio.run(peer_common.serve_http, server.streamable_http_app(), args.port)


if __name__ == "__main__":
    main()

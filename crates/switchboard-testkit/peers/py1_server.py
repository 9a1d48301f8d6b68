"""Test peer on the PyPI `mcp` 1.x line (FastMCP, the 2025 `initialize` handshake).

Run with the py1 venv:  python py1_server.py stdio
                        python py1_server.py http --port 0   (prints `LISTENING <port>`)
Streamable HTTP is served at /mcp on 127.0.0.1. tools/list is paginated, three tools a page.
"""

from __future__ import annotations

import os

import anyio
from mcp.server.fastmcp import Context, FastMCP, Image
from mcp.shared.exceptions import McpError
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    ErrorData,
    ListToolsRequest,
    ListToolsResult,
    TextContent,
    ToolAnnotations,
)

import peer_common
from pydantic import BaseModel, Field
from enum import Enum


class Priority(str, Enum):
    low = "low"
    high = "high"


class Address(BaseModel):
    street: str
    city: str
    postcode: str | None = None


class Category(BaseModel):
    """A category tree: pydantic emits a recursive `$ref` into `$defs`."""

    name: str
    children: list["Category"] = Field(default_factory=list)


class Order(BaseModel):
    customer: str = Field(description="Who ordered")
    email: str | None = Field(default=None, json_schema_extra={"format": "email"})
    quantity: int = Field(ge=1, le=100)
    priority: Priority = Priority.low
    ship_to: Address
    bill_to: Address | None = None
    category: Category | None = None
    tags: list[str] = Field(default_factory=list, max_length=10)

READ_ONLY = ToolAnnotations(readOnlyHint=True)


def build_server() -> FastMCP:
    mcp = FastMCP("switchboard-py1-peer", log_level="WARNING")

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
        return CallToolResult(content=[TextContent(type="text", text="this tool always fails")], isError=True)

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

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, idempotentHint=False), structured_output=False)
    def counter() -> str:
        """Return 1, 2, 3, ... on successive calls (per process)."""
        return str(peer_common.next_counter())

    def crash_once(marker: str) -> str:
        # The first call creates `marker` and kills this process mid-call; later calls answer.
        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(17)
        return "survived"

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True), structured_output=False)
    def crash_once_read_only(marker: str) -> str:
        """Die during the first call (marker file absent); answer `survived` afterwards."""
        return crash_once(marker)

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, idempotentHint=True), structured_output=False)
    def crash_once_idempotent(marker: str) -> str:
        """Like crash_once_read_only, but annotated idempotent (and not read-only)."""
        return crash_once(marker)

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, idempotentHint=False), structured_output=False)
    def crash_once_unsafe(marker: str) -> str:
        """Like crash_once_read_only, but annotated neither read-only nor idempotent."""
        return crash_once(marker)

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    def describe_order(order: Order) -> str:
        """Summarise an order; its argument schema is pydantic's, with nested and recursive models."""
        return f"{order.quantity} for {order.customer} ({order.priority.value})"

    @mcp.tool(structured_output=False)
    async def add_tool(name: str, ctx: Context) -> str:
        """Register a new tool called `name` and tell the client the tool list changed."""

        def added() -> str:
            return f"{name} was added at run time"

        mcp.add_tool(added, name=name, description="A tool added at run time")
        await ctx.session.send_tool_list_changed()
        return f"added {name}"

    # FastMCP lists every tool at once; replace its handler with a paginated one.
    @mcp._mcp_server.list_tools()
    async def list_tools_paged(request: ListToolsRequest) -> ListToolsResult:
        # The SDK passes None when it refreshes its own tool cache.
        cursor = request.params.cursor if request is not None and request.params is not None else None
        try:
            page, next_cursor = peer_common.paginate(await mcp.list_tools(), cursor)
        except ValueError as err:
            raise McpError(ErrorData(code=INVALID_PARAMS, message=str(err))) from err
        return ListToolsResult(tools=page, nextCursor=next_cursor)

    return mcp


def main() -> None:
    args = peer_common.parse_args("mcp 1.x test peer")
    server = build_server()
    if args.mode == "stdio":
        server.run("stdio")
    else:
        anyio.run(peer_common.serve_http, server.streamable_http_app(), args.port)


if __name__ == "__main__":
    main()

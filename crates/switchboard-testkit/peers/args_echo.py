"""Test peer that answers every call with the arguments it received, as sorted JSON text.

Tests of parameter mappings need a real server that shows exactly what reached it
in `tools/call`, whatever the parameter names: `create_issue(owner, repo, title, ...)`,
`list_issues(owner, state)` and `other(note)` all return `json.dumps(arguments)`.

Run with the py1 venv:  python args_echo.py
"""

from __future__ import annotations

import json

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

ISSUE = {
    "type": "object",
    "properties": {
        "owner": {"type": "string", "description": "Who owns the repository"},
        "repo": {"type": "string", "description": "The repository"},
        "title": {"type": "string", "description": "The issue's title"},
        "labels": {"type": "array", "items": {"type": "string"}},
        "priority": {"type": "integer", "minimum": 0, "maximum": 5},
        "draft": {"type": "boolean"},
        "meta": {"type": "object"},
    },
    "required": ["owner", "repo", "title"],
}

TOOLS = [
    types.Tool(
        name="create_issue",
        description="Opens an issue; answers with the arguments it received.",
        inputSchema=ISSUE,
    ),
    types.Tool(
        name="list_issues",
        description="Lists issues; answers with the arguments it received.",
        inputSchema={
            "type": "object",
            "properties": {"owner": {"type": "string"}, "state": {"type": "string"}},
            "required": ["owner"],
        },
        annotations=types.ToolAnnotations(readOnlyHint=True),
    ),
    types.Tool(
        name="other",
        description="Another tool; answers with the arguments it received.",
        inputSchema={"type": "object", "properties": {"note": {"type": "string"}}},
    ),
]

server = Server("args-echo")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=json.dumps(arguments, sort_keys=True))]


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

"""Stdio peer whose children leave its process group, as daemons do (py1, low-level server).

Ending a server's process group does not reach these; tests use them to show that nothing a
server started outlives it anyway. Both tools start `sleep 1000` in a session of its own
(`setsid`) and return its pid:

- `spawn_setsid()`: the sleeper stays this server's child;
- `spawn_daemon()`: started through an intermediate process that exits at once, so the
  sleeper is orphaned and handed to the nearest subreaper (or init).

Run with the py1 venv:  python detaching_server.py
"""

from __future__ import annotations

import subprocess
import sys

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

SLEEPER = ["sleep", "1000"]

# Run by the intermediate process: start the sleeper in its own session, print its pid, exit.
DAEMONIZE = f"""
import subprocess
sleeper = subprocess.Popen({SLEEPER!r}, start_new_session=True, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(sleeper.pid)
"""

TOOLS = [
    types.Tool(
        name="spawn_setsid",
        description="Starts `sleep 1000` in a new session, as this server's child; returns its pid.",
        inputSchema={"type": "object", "properties": {}},
    ),
    types.Tool(
        name="spawn_daemon",
        description="Starts `sleep 1000` in a new session and orphans it; returns its pid.",
        inputSchema={"type": "object", "properties": {}},
    ),
]

server = Server("detaching")


def spawn_setsid() -> int:
    sleeper = subprocess.Popen(
        SLEEPER,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return sleeper.pid


def spawn_daemon() -> int:
    started = subprocess.run(
        [sys.executable, "-c", DAEMONIZE],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=True,
        text=True,
    )
    return int(started.stdout.strip())


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    spawn = {"spawn_setsid": spawn_setsid, "spawn_daemon": spawn_daemon}[name]
    return [types.TextContent(type="text", text=str(spawn()))]


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

"""Helpers shared by the Python test peers (stdlib only, plus uvicorn in http mode).

Both `py1_server.py` (mcp 1.x) and `py2_server.py` (mcp 2.x) import this module; it holds
everything that does not depend on the SDK generation: the command line, the tiny PNG,
tools/list pagination, the cancellation tally, the grandchild spawner and the HTTP listener
that announces its real port.
"""

from __future__ import annotations

import argparse
import socket
import struct
import subprocess
import zlib

# tools/list pages hold this many tools, so every peer needs several round trips.
PAGE_SIZE = 3

_cancelled = 0
_counter = 0


def parse_args(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("mode", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=0, help="http mode: port on 127.0.0.1 (0 picks a free one)")
    return parser.parse_args()


def tiny_png() -> bytes:
    """A valid 2x2 opaque red PNG, built with zlib so no image file is needed."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    width = height = 2
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def paginate(items: list, cursor: str | None) -> tuple[list, str | None]:
    """One page of `items` starting at the opaque `cursor`; raises ValueError on a bad cursor."""
    start = 0
    if cursor is not None:
        if not cursor.startswith("page:") or not cursor[5:].isdigit():
            raise ValueError(f"invalid cursor {cursor!r}")
        start = int(cursor[5:])
        if start > len(items):
            raise ValueError(f"cursor {cursor!r} is past the end")
    end = start + PAGE_SIZE
    next_cursor = f"page:{end}" if end < len(items) else None
    return items[start:end], next_cursor


def record_cancelled() -> None:
    global _cancelled
    _cancelled += 1


def cancelled_count() -> int:
    return _cancelled


def next_counter() -> int:
    global _counter
    _counter += 1
    return _counter


def spawn_grandchild() -> int:
    """Start `sleep 1000` in our own process group and return its pid.

    Its stdio is detached from ours so it cannot keep the MCP stdio pipes open; what is
    being tested is that ending the peer's process group ends this process too.
    """
    child = subprocess.Popen(
        ["sleep", "1000"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return child.pid


def bind_listener(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock


async def serve_http(app, port: int) -> None:
    """Serve the ASGI `app` on 127.0.0.1:`port` and print `LISTENING <port>` once accepting.

    The socket is bound here rather than by uvicorn so that port 0 works: the line carries
    the port the kernel chose, and it is printed only after the app's lifespan has started.
    """
    import uvicorn

    sock = bind_listener(port)
    bound_port = sock.getsockname()[1]

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            print(f"LISTENING {bound_port}", flush=True)

    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await AnnouncingServer(config).serve(sockets=[sock])

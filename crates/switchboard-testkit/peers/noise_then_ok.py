"""Misbehaving-but-recoverable stdio peer: prints a banner and other non-JSON lines on stdout,
then serves as the normal mcp 1.x test peer (`py1_server.py`) on the same stdio.

Needs the py1 venv's python, like py1_server.py itself.
"""

import sys

NOISE = [
    "==============================================",
    " Example MCP server v0.0.1 -- starting up ...",
    "==============================================",
    "",
    "loading configuration from ./config.toml (not found, using defaults)",
    "WARNING: this line is not JSON either",
]

for line in NOISE:
    sys.stdout.write(line + "\n")
sys.stdout.flush()

import py1_server  # noqa: E402  (imported after the noise on purpose: the SDK is slow to import)

py1_server.build_server().run("stdio")

"""Misbehaving stdio peer: reads every line from stdin and never writes a reply.

It exits only when stdin is closed, so it also stands in for a server that hangs during
the handshake (connect timeouts, cancellation of a pending `initialize`).
"""

import sys

for _line in sys.stdin:
    pass

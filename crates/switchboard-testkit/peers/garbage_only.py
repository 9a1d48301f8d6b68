"""Misbehaving stdio peer: answers every line with non-JSON garbage, forever (until stdin closes)."""

import sys

for count, _line in enumerate(sys.stdin, start=1):
    sys.stdout.write(f"<<garbage #{count}: this is not JSON-RPC>> }}{{ \x7f\n")
    sys.stdout.flush()

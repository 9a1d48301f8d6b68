"""Misbehaving stdio peer: complains on stderr and exits with code 3 before reading anything."""

import sys

sys.stderr.write("exit_at_once: this server refuses to start (exit code 3)\n")
sys.stderr.flush()
sys.exit(3)

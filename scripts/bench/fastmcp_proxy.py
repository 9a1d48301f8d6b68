"""fastmcp 3.x's proxy for scripts/bench-gateways.sh: PORT COMMAND [ARG]... serves the stdio
server COMMAND as stateless Streamable HTTP at http://127.0.0.1:PORT/mcp, with fastmcp's own
recommended construction (`create_proxy` over a `StdioTransport` kept alive between
requests, so every call reuses one upstream process, as the other gateways do)."""

import sys

from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy

port = int(sys.argv[1])
upstream = StdioTransport(command=sys.argv[2], args=sys.argv[3:], keep_alive=True)
proxy = create_proxy(upstream, name="bench-fastmcp")
proxy.run(transport="http", host="127.0.0.1", port=port, path="/mcp", stateless_http=True, log_level="warning")

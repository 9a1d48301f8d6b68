"""A minimal stdio MCP server (stdlib only) of the 2025 generation that, like some SDKs before
`initialize`, silently ignores requests it does not know: `server/discover` gets no answer at
all. A client must not wait for one.
"""

import json
import sys


def reply(message_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    method, message_id = request.get("method"), request.get("id")
    if method == "initialize":
        reply(message_id, {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "ignores-discover", "version": "1"},
        })
    elif method == "ping":
        reply(message_id, {})
    elif method == "tools/list":
        reply(message_id, {"tools": [{"name": "hello", "inputSchema": {"type": "object"}}]})
    # Anything else, server/discover included, is dropped without a word.

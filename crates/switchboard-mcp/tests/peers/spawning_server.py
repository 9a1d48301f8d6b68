"""A minimal stdio MCP server (stdlib only, so it starts in milliseconds) that starts a
long-lived child process of its own before answering: the shape of servers run through
`npx` or a shell wrapper. Used to prove that ending a connection ends the whole process group.
"""

import json
import subprocess
import sys

child = subprocess.Popen(["sleep", "1000"])


def reply(message_id, result=None, error=None):
    message = {"jsonrpc": "2.0", "id": message_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    method, message_id = request.get("method"), request.get("id")
    if message_id is None:
        continue
    if method == "initialize":
        reply(message_id, {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "spawning", "version": "1"},
        })
    elif method == "ping":
        reply(message_id, {})
    elif method == "tools/list":
        reply(message_id, {"tools": [{"name": "child_pid", "inputSchema": {"type": "object"}}]})
    elif method == "tools/call":
        reply(message_id, {"content": [{"type": "text", "text": str(child.pid)}]})
    else:
        reply(message_id, error={"code": -32601, "message": "Method not found"})

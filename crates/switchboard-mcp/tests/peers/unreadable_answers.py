"""A minimal stdio MCP server (stdlib only) whose tool answers cannot be read: `too_long`
answers with a line longer than any client takes, `not_utf8` with bytes that are not UTF-8,
`too_deep` with JSON nested deeper than parsers go. Everything else it answers properly.
"""

import json
import sys

out = sys.stdout.buffer


def send(raw: bytes) -> None:
    out.write(raw + b"\n")
    out.flush()


def reply(message_id, result) -> None:
    send(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}).encode())


TOOLS = [{"name": name, "inputSchema": {"type": "object"}} for name in ("too_long", "not_utf8", "too_deep", "fine")]

for line in sys.stdin.buffer:
    request = json.loads(line)
    method, message_id = request.get("method"), request.get("id")
    if method == "initialize":
        reply(message_id, {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "unreadable-answers", "version": "1"},
        })
    elif method == "ping":
        reply(message_id, {})
    elif method == "tools/list":
        reply(message_id, {"tools": TOOLS})
    elif method == "tools/call":
        tool = request["params"]["name"]
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(message_id).encode() + b',"result":'
        if tool == "too_long":
            send(head + b'{"content":[{"type":"text","text":"' + b"x" * (17 * 1024 * 1024) + b'"}]}}')
        elif tool == "not_utf8":
            send(head + b'{"content":[{"type":"text","text":"\xff\xfe"}]}}')
        elif tool == "too_deep":
            send(head + b'{"content":[{"type":"text","text":"x"}],"structuredContent":' + b"[" * 200_000 + b"]" * 200_000 + b"}}")
        else:
            reply(message_id, {"content": [{"type": "text", "text": "fine"}]})

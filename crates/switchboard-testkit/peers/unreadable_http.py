"""A minimal Streamable HTTP MCP server (stdlib only, no sessions) whose tool answers, sent as
SSE events, cannot be read: `too_deep` with JSON nested deeper than parsers go, `wrong_shape`
with a result that is no MCP result. `fine` answers properly.

    python unreadable_http.py --port 0    (prints `LISTENING <port>`; serves /mcp on 127.0.0.1)
"""

from __future__ import annotations

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOOLS = [{"name": name, "inputSchema": {"type": "object"}} for name in ("too_deep", "wrong_shape", "fine")]


def answer(message_id, result) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def send_body(self, status: int, content_type: str | None, body: bytes) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.send_body(405, None, b"")

    def do_DELETE(self) -> None:
        self.send_body(405, None, b"")

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        method, message_id = request.get("method"), request.get("id")
        if message_id is None:
            self.send_body(202, None, b"")
            return
        if method == "initialize":
            body = answer(message_id, {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "unreadable-http", "version": "1"},
            })
        elif method == "tools/list":
            body = answer(message_id, {"tools": TOOLS})
        elif method == "tools/call":
            name = request["params"]["name"]
            if name == "too_deep":
                body = '{"jsonrpc":"2.0","id":%s,"result":{"content":%s}}' % (
                    json.dumps(message_id), "[" * 200_000)
            elif name == "wrong_shape":
                body = answer(message_id, 5)
            else:
                body = answer(message_id, {"content": [{"type": "text", "text": "fine"}]})
            self.send_body(200, "text/event-stream", f"event: message\ndata: {body}\n\n".encode())
            return
        elif method == "ping":
            body = answer(message_id, {})
        else:
            body = json.dumps({"jsonrpc": "2.0", "id": message_id,
                               "error": {"code": -32601, "message": f"Method not found: {method}"}})
        self.send_body(200, "application/json", body.encode())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"LISTENING {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())

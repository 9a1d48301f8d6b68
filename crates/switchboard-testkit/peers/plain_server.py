"""A plain JSON-RPC stdio MCP server of the 2025-11-25 revision, stdlib only, as most servers in
the world are written: no SDK, every answer built by hand, no `resultType`, no `server/discover`
(answered "method not found", as a 2025 server does).

    python plain_server.py            (PLAIN_REVISION=2025-06-18 makes it a server of that revision)

Tools: `echo` (text back), `progress` (a progress notification per step when the call asks
for them), `slow` (waits until cancelled or its seconds pass), `cancelled` (how many calls were
cancelled), `ask` (asks the client a question through `elicitation/create`), `log` (a log
message during the call) and `rich` (every field a tool may carry: title, icons, annotations,
output schema, `_meta` with an MCP Apps UI link, JSON Schema 2020-12 keywords). One resource,
one resource template and one prompt (and, when `PLAIN_SECRET` is set, a resource
`note://plain/secret` and a prompt `secret` that tell it, as a careless server would). Requests
are served on threads, so a call waiting for
its question's answer or for its cancellation does not hold the others up.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

RICH_TOOL = {
    "name": "rich",
    "title": "Rich tool",
    "description": "Carries every field a tool may have.",
    "icons": [{"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16"]}],
    "annotations": {"title": "Rich", "readOnlyHint": True, "openWorldHint": False},
    "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addr", "type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {
            "where": {"$ref": "#/$defs/address"},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "kind": {"type": "string", "enum": ["a", "b"]},
        },
        "allOf": [{"anyOf": [{"required": ["where"]}, {"required": ["pair"]}]}],
        "if": {"properties": {"kind": {"const": "a"}}},
        "then": {"required": ["kind"]},
        "else": {},
        "additionalProperties": False,
        "x-vendor": {"kept": True},
    },
    "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
    "_meta": {"ui": {"resourceUri": "ui://plain/app.html"}, "com.example/tag": ["a", 1]},
}

TOOLS = [
    {"name": "echo", "description": "Echoes text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "progress", "description": "Reports progress, one step at a time.",
     "inputSchema": {"type": "object", "properties": {"steps": {"type": "integer"}}}},
    {"name": "slow", "description": "Waits until cancelled.",
     "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}},
    {"name": "cancelled", "description": "How many calls were cancelled.",
     "inputSchema": {"type": "object"}},
    {"name": "ask", "description": "Asks the person a question.",
     "inputSchema": {"type": "object", "properties": {"question": {"type": "string"}}}},
    {"name": "log", "description": "Logs a message during the call.",
     "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
    RICH_TOOL,
]

RESOURCE = {"uri": "note://plain/readme", "name": "readme", "title": "Read me", "mimeType": "text/plain",
            "_meta": {"com.example/size": 5}}
TEMPLATE = {"uriTemplate": "note://plain/{name}", "name": "note", "mimeType": "text/plain"}
PROMPT = {"name": "greet", "title": "Greet", "description": "Greets someone.",
          "arguments": [{"name": "who", "description": "Whom to greet", "required": False}]}

SECRET = os.environ.get("PLAIN_SECRET", "")

out_lock = threading.Lock()
state_lock = threading.Lock()
cancelled_ids: set = set()
cancelled_count = 0
waiting: dict = {}
next_id = 0


def send(message: dict) -> None:
    with out_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def reply(message_id, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": message_id, "result": result})


def fail(message_id, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}})


def ask_client(method: str, params: dict) -> dict:
    """Sends a request of ours to the client and waits for its answer."""
    global next_id
    with state_lock:
        next_id += 1
        request_id = f"plain-{next_id}"
        done = threading.Event()
        waiting[request_id] = [done, None]
    send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    done.wait(120)
    with state_lock:
        return waiting.pop(request_id)[1] or {"error": {"message": "no answer"}}


def is_cancelled(message_id) -> bool:
    with state_lock:
        return message_id in cancelled_ids


def text(value: str, **extra) -> dict:
    return {"content": [{"type": "text", "text": value}], **extra}


def call(message_id, params: dict) -> None:
    global cancelled_count
    name = params.get("name")
    args = params.get("arguments") or {}
    token = (params.get("_meta") or {}).get("progressToken")
    if name == "echo":
        reply(message_id, text(str(args.get("text", ""))))
    elif name == "progress":
        steps = int(args.get("steps", 3))
        for step in range(1, steps + 1):
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": step, "total": steps,
                                 "message": f"step {step}"}})
            time.sleep(0.02)
        reply(message_id, text(f"{steps} steps"))
    elif name == "slow":
        deadline = time.monotonic() + float(args.get("seconds", 30))
        while time.monotonic() < deadline:
            if is_cancelled(message_id):
                with state_lock:
                    cancelled_count += 1
                return  # A cancelled request is not answered.
            time.sleep(0.01)
        reply(message_id, text("done"))
    elif name == "cancelled":
        with state_lock:
            count = cancelled_count
        reply(message_id, text(str(count)))
    elif name == "ask":
        answer = ask_client("elicitation/create", {
            "mode": "form",
            "message": str(args.get("question", "Your name?")),
            "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string"}},
                                "required": ["answer"]},
        })
        result = answer.get("result") or {}
        if result.get("action") == "accept":
            reply(message_id, text(f"answer: {(result.get('content') or {}).get('answer')}"))
        else:
            reply(message_id, text(f"no answer ({result.get('action') or answer.get('error')})"))
    elif name == "log":
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "logger": "plain", "data": str(args.get("message", ""))}})
        reply(message_id, text("logged"))
    elif name == "rich":
        reply(message_id, text("ok", structuredContent={"ok": True}))
    else:
        fail(message_id, -32602, f"Unknown tool: {name}")


def handle(request: dict) -> None:
    method, message_id, params = request.get("method"), request.get("id"), request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        # PLAIN_REVISION makes it a server of that (older) revision, whatever the client asks.
        answered = os.environ.get("PLAIN_REVISION") or (asked if asked in REVISIONS else REVISIONS[0])
        reply(message_id, {
            "protocolVersion": answered,
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "logging": {}},
            "serverInfo": {"name": "plain", "version": "1.0.0"},
        })
    elif method in ("ping", "logging/setLevel"):
        reply(message_id, {})
    elif method == "tools/list":
        reply(message_id, {"tools": TOOLS})
    elif method == "tools/call":
        call(message_id, params)
    elif method == "resources/list":
        secret = [{"uri": "note://plain/secret", "name": "secret"}] if SECRET else []
        reply(message_id, {"resources": [RESOURCE, *secret]})
    elif method == "resources/templates/list":
        reply(message_id, {"resourceTemplates": [TEMPLATE]})
    elif method == "resources/read":
        uri = params.get("uri")
        if uri == "note://plain/secret" and SECRET:
            reply(message_id, {"contents": [{"uri": uri, "text": f"the secret is {SECRET}"}]})
        elif uri == RESOURCE["uri"] or str(uri).startswith("note://plain/"):
            reply(message_id, {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "hello"}]})
        else:
            fail(message_id, -32002, f"Resource not found: {uri}")
    elif method == "prompts/list":
        secret = [{"name": "secret", "description": "Tells the secret."}] if SECRET else []
        reply(message_id, {"prompts": [PROMPT, *secret]})
    elif method == "prompts/get" and params.get("name") == "secret" and SECRET:
        reply(message_id, {"description": f"about {SECRET}",
                           "messages": [{"role": "user", "content": {"type": "text", "text": f"say {SECRET}"}}]})
    elif method == "prompts/get":
        who = (params.get("arguments") or {}).get("who") or "world"
        reply(message_id, {"description": "A greeting",
                           "messages": [{"role": "user", "content": {"type": "text", "text": f"Hello, {who}!"}}]})
    elif message_id is not None:
        fail(message_id, -32601, f"Method not found: {method}")


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "method" not in message:
            with state_lock:
                entry = waiting.get(message.get("id"))
                if entry is not None:
                    entry[1] = message
                    entry[0].set()
            continue
        if message["method"] == "notifications/cancelled":
            with state_lock:
                cancelled_ids.add((message.get("params") or {}).get("requestId"))
            continue
        if "id" not in message:
            continue
        threading.Thread(target=handle, args=(message,), daemon=True).start()


if __name__ == "__main__":
    main()

"""A stdio MCP server that serves the tools of one file of the tool catalog, stdlib only.

    python catalog_server.py CATALOG_FILE [--name NAME] [--hide TOOL ...] [--control]

CATALOG_FILE is one of `crates/switchboard-testkit/data/catalog/<server>.json` (`{"server",
"source", "license", "tools"}`): real servers' tool definitions, listed verbatim. The server
calls itself NAME (default: the file's `server`), so one file can stand behind several servers
with distinct names. A call never does what the real tool does: it answers one text content,
`<name>.<tool> called with <arguments as sorted JSON>`, and an unknown tool is an
invalid-params error, so a test sees exactly which tool was reached and with what.

The tool set can start smaller and change at runtime:

- `--hide TOOL` (repeatable) starts with that catalog tool left out of `tools/list`;
- `--control` adds one tool of its own, `catalog_toggle(tool)`, which shows a hidden catalog
  tool or hides a shown one and answers `shown <tool>` or `hidden <tool>`. Each change is
  announced with `notifications/tools/list_changed`, written before the call's answer, so a
  client has it by the time the call returns.

Answers initialize (2025-11-25 and older revisions), ping, tools/list (one page) and
tools/call; anything else is "method not found".
"""

from __future__ import annotations

import argparse
import json
import sys
import threading

REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

TOGGLE = {
    "name": "catalog_toggle",
    "description": "Test control: shows a hidden catalog tool or hides a shown one.",
    "inputSchema": {
        "type": "object",
        "properties": {"tool": {"type": "string", "description": "The catalog tool's name"}},
        "required": ["tool"],
    },
}

out_lock = threading.Lock()
state_lock = threading.Lock()


class Catalog:
    """The file's tools and which of them are hidden; every method holds `state_lock`."""

    def __init__(self, path: str, hidden: set[str], control: bool) -> None:
        self.hidden = hidden
        self.control = control
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
        self.server: str = document["server"]
        self.tools: list[dict] = document["tools"]

    def listed(self) -> list[dict]:
        with state_lock:
            tools = [tool for tool in self.tools if tool["name"] not in self.hidden]
        return [*tools, TOGGLE] if self.control else tools

    def has(self, name: str) -> bool:
        with state_lock:
            return any(tool["name"] == name for tool in self.tools) and name not in self.hidden

    def toggle(self, name: str) -> str | None:
        with state_lock:
            if not any(tool["name"] == name for tool in self.tools):
                return None
            if name in self.hidden:
                self.hidden.discard(name)
                return "shown"
            self.hidden.add(name)
            return "hidden"


def send(message: dict) -> None:
    with out_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def reply(message_id, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": message_id, "result": result})


def fail(message_id, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}})


def list_changed() -> None:
    send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


def text(value: str, is_error: bool = False) -> dict:
    result = {"content": [{"type": "text", "text": value}]}
    if is_error:
        result["isError"] = True
    return result


def call(catalog: Catalog, name: str, message_id, params: dict) -> None:
    tool = params.get("name")
    arguments = params.get("arguments") or {}
    if catalog.control and tool == TOGGLE["name"]:
        changed = catalog.toggle(str(arguments.get("tool", "")))
        if changed is None:
            reply(message_id, text(f"no catalog tool {arguments.get('tool')!r}", is_error=True))
            return
        list_changed()
        reply(message_id, text(f"{changed} {arguments.get('tool')}"))
    elif isinstance(tool, str) and catalog.has(tool):
        echoed = json.dumps(arguments, sort_keys=True, ensure_ascii=False)
        reply(message_id, text(f"{name}.{tool} called with {echoed}"))
    else:
        fail(message_id, -32602, f"Unknown tool: {tool}")


def handle(catalog: Catalog, name: str, request: dict) -> None:
    method, message_id, params = request.get("method"), request.get("id"), request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        reply(message_id, {
            "protocolVersion": asked if asked in REVISIONS else REVISIONS[0],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": name, "version": "1.0.0"},
        })
    elif method == "ping":
        reply(message_id, {})
    elif method == "tools/list":
        reply(message_id, {"tools": catalog.listed()})
    elif method == "tools/call":
        call(catalog, name, message_id, params)
    elif message_id is not None:
        fail(message_id, -32601, f"Method not found: {method}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Serves one file of the tool catalog over stdio.")
    parser.add_argument("catalog_file")
    parser.add_argument("--name", help="the server's name (default: the file's `server`)")
    parser.add_argument("--hide", action="append", default=[], help="a catalog tool to start hidden")
    parser.add_argument("--control", action="store_true", help="add the catalog_toggle tool")
    args = parser.parse_args()

    catalog = Catalog(args.catalog_file, set(args.hide), args.control)
    name = args.name or catalog.server
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and "method" in message and "id" in message:
            handle(catalog, name, message)


if __name__ == "__main__":
    main()

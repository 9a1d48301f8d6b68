#!/usr/bin/env python3
"""Writes one file of the tool catalog (crates/switchboard-testkit/data/catalog/<server>.json).

The catalog is the tool definitions of real MCP servers, kept verbatim as test data for tool
search and deferred tool loading: `{"server", "source", "license", "tools": [...]}`, where each
tool keeps only `name`, `title`, `description`, `inputSchema` and `annotations` exactly as the
server lists them (other fields such as `_meta`, `icons` and `outputSchema` are left out).

Three ways to get a server's tools, stdlib only:

  # run a stdio server and ask it (initialize, tools/list with pagination):
  catalog-dump.py stdio SERVER SOURCE LICENSE -- COMMAND [ARGS...]

  # GitHub's MCP server keeps a JSON snapshot per tool (pkg/github/__toolsnaps__/*.snap):
  catalog-dump.py snaps SERVER SOURCE LICENSE GIT_DIR COMMIT [--exclude NAME ...]

  # a JSON file holding a tools/list result, or an array of tools, written by hand from a
  # server's published source (see the catalog README for which files were made this way):
  catalog-dump.py json SERVER SOURCE LICENSE FILE

Each writes `<out>/<SERVER>.json` (`--out`, default the catalog folder) and prints the count.
The commands actually run for every file are in scripts/catalog-dump.sh.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

CATALOG = Path(__file__).resolve().parent.parent / "crates/switchboard-testkit/data/catalog"
KEPT = ("name", "title", "description", "inputSchema", "annotations")


def kept(tool: dict) -> dict:
    return {key: tool[key] for key in KEPT if key in tool}


def ask_stdio(command: list[str], env: dict[str, str]) -> list[dict]:
    """Starts `command`, does the MCP handshake, pages through tools/list, and stops it."""
    child = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
        text=True,
        start_new_session=True,
    )
    # Stderr is drained on a thread so a chatty server cannot block on a full pipe.
    threading.Thread(target=lambda: child.stderr.read(), daemon=True).start()
    next_id = 0

    def request(method: str, params: dict) -> dict:
        nonlocal next_id
        next_id += 1
        child.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}) + "\n")
        child.stdin.flush()
        for line in child.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue  # banners and logs some servers print on stdout
            if message.get("id") == next_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            if "method" in message and "id" in message:
                # A request of the server's (roots/list and the like): answer empty.
                child.stdin.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": []}}) + "\n")
                child.stdin.flush()
        raise RuntimeError(f"{method}: the server closed its output")

    try:
        request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "catalog-dump", "version": "1.0.0"},
        })
        child.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        child.stdin.flush()
        tools: list[dict] = []
        cursor = None
        while True:
            page = request("tools/list", {"cursor": cursor} if cursor else {})
            tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if not cursor:
                return tools
    finally:
        try:
            os.killpg(child.pid, 15)
        except ProcessLookupError:
            pass
        child.wait()


def read_snaps(git_dir: str, commit: str, exclude: set[str]) -> list[dict]:
    listing = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "--name-only", commit, "pkg/github/__toolsnaps__/"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    tools = []
    for path in sorted(listing):
        name = Path(path).stem
        if name in exclude:
            continue
        text = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"],
                              check=True, capture_output=True, text=True).stdout
        tool = json.loads(text)
        if tool.get("name") != name:
            raise RuntimeError(f"{path} names {tool.get('name')!r}")
        tools.append(tool)
    return tools


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(CATALOG))
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server (stdio)")
    parser.add_argument("--exclude", action="append", default=[], help="a tool to leave out (snaps)")
    parser.add_argument("how", choices=["stdio", "snaps", "json"])
    parser.add_argument("server")
    parser.add_argument("source")
    parser.add_argument("license")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args()

    if args.how == "stdio":
        command = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
        env = dict(item.split("=", 1) for item in args.env)
        tools = ask_stdio(command, env)
    elif args.how == "snaps":
        git_dir, commit = args.rest[:2]
        tools = read_snaps(git_dir, commit, set(args.exclude))
    else:
        listed = json.loads(Path(args.rest[0]).read_text())
        tools = listed["tools"] if isinstance(listed, dict) else listed

    names = [tool["name"] for tool in tools]
    if len(set(names)) != len(names):
        sys.exit(f"{args.server}: duplicate tool names")
    document = {"server": args.server, "source": args.source, "license": args.license,
                "tools": [kept(tool) for tool in tools]}
    out = Path(args.out) / f"{args.server}.json"
    out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    print(f"{args.server}: {len(tools)} tools -> {out}")


if __name__ == "__main__":
    main()

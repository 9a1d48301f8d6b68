// Where a server runs: the form's "Runs on" choices from GET /api/nodes, the
// server body with and without a node, and the card's "on NAME" label with the node's health.
// A node the server names but the configuration no longer declares shows as not configured
// and is kept, never dropped.

import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n, install } from "../../js/i18n.js";
import { bodyFrom, formFrom } from "../../js/mcp/server-form.js";
import { coalesced, nodeLabel, nodeNote, nodeOptions, showsNodeChoice } from "../../js/mcp/server-node.js";

const english = JSON.parse(readFileSync(new URL("../../../locales/en-US.json", import.meta.url), "utf8"));
const i18n = createI18n({ load: async () => english, storage: null, remember: async () => {} });
install(i18n);
await i18n.start(["en-US"]);

const NODES = [
  { name: "build-box", state: "up", version: "0.1.0" },
  { name: "gpu", state: "down", lastError: "connection refused" },
  { name: "edge", state: "connecting" },
];

const stdio = { id: "files", name: "files", transport: "stdio", command: "node", args: ["server.js"] };

test("the choices are this machine, then each node with its state", () => {
  assert.deepEqual(nodeOptions(NODES, ""), [
    ["", "This machine"],
    ["build-box", "build-box (up)"],
    ["gpu", "gpu (down)"],
    ["edge", "edge (connecting)"],
  ]);
});

test("a saved node that is no longer configured is a choice of its own, shown as not configured", () => {
  const options = nodeOptions(NODES, "gone");
  assert.deepEqual(options.at(-1), ["gone", "gone (not configured)"]);
  assert.equal(options.length, NODES.length + 2);
  // A configured one is not listed twice.
  assert.equal(nodeOptions(NODES, "gpu").length, NODES.length + 1);
  // Even when no node is configured at all.
  assert.deepEqual(nodeOptions([], "gone"), [["", "This machine"], ["gone", "gone (not configured)"]]);
});

test("the selector is hidden without nodes, unless the server already names one", () => {
  assert.equal(showsNodeChoice([], ""), false);
  assert.equal(showsNodeChoice(null, undefined), false);
  assert.equal(showsNodeChoice(NODES, ""), true);
  assert.equal(showsNodeChoice([], "gone"), true);
});

test("a server on this machine has no node in its body; one on a node names it", () => {
  const local = bodyFrom(formFrom(stdio));
  assert.equal("node" in local, false);
  const remote = bodyFrom({ ...formFrom(stdio), node: "build-box" });
  assert.equal(remote.node, "build-box");
  const http = { id: "r", name: "r", transport: "streamable_http", url: "https://x.example/mcp", node: "edge" };
  assert.equal(bodyFrom(formFrom(http)).node, "edge");
});

test("editing a server keeps its node, configured or not, until another place is chosen", () => {
  const form = formFrom({ ...stdio, node: "gone" });
  assert.equal(form.node, "gone");
  assert.equal(bodyFrom({ ...form, transport: "stdio", timeout: "5" }).node, "gone");
  assert.equal("node" in bodyFrom({ ...form, node: "" }), false);
});

test("the card says which node and how it is", () => {
  assert.equal(nodeLabel(stdio, NODES), null);
  const up = nodeLabel({ ...stdio, node: "build-box" }, NODES);
  assert.deepEqual(up, { name: "build-box", state: "up", text: "on build-box", stateText: "up", lastError: "" });
  const down = nodeLabel({ ...stdio, node: "gpu" }, NODES);
  assert.equal(down.state, "down");
  assert.equal(down.lastError, "connection refused");
  assert.equal(nodeLabel({ ...stdio, node: "edge" }, NODES).stateText, "connecting");
});

test("the card shows a node missing from the configuration as not configured", () => {
  const gone = nodeLabel({ ...stdio, node: "gone" }, NODES);
  assert.equal(gone.state, "unknown");
  assert.equal(gone.stateText, "not configured");
  assert.match(gone.lastError, /gone is not in this Switchboard's configuration/);
  // Before the list has loaded, it is connecting rather than unknown.
  assert.equal(nodeLabel({ ...stdio, node: "gone" }, null).state, "connecting");
});

test("the card's line for the node: its error once, the missing node said plainly", () => {
  const down = nodeLabel({ ...stdio, node: "gpu" }, NODES);
  assert.equal(nodeNote(down, { status: "error", lastError: "" }), "Node gpu: connection refused");
  // The server's own error already names the node's: not said twice.
  assert.equal(nodeNote(down, { status: "error", lastError: "node `gpu` cannot be reached: connection refused" }), "");
  assert.equal(nodeNote(nodeLabel({ ...stdio, node: "build-box" }, NODES), null), "");
  assert.equal(nodeNote(nodeLabel(stdio, NODES), null), "");
  const gone = nodeLabel({ ...stdio, node: "gone" }, NODES);
  assert.equal(nodeNote(gone, null), "The node gone is not in this Switchboard's configuration.");
});

test("a state this UI does not know is shown as the API names it", () => {
  assert.equal(nodeLabel({ ...stdio, node: "x" }, [{ name: "x", state: "draining" }]).stateText, "draining");
});

test("status changes close together share one fetch of the node list", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    let runs = 0;
    const soon = coalesced(() => runs++, 1000);
    soon.request();
    soon.request();
    mock.timers.tick(500);
    soon.request();
    assert.equal(runs, 0);
    mock.timers.tick(500);
    assert.equal(runs, 1);
    soon.request();
    mock.timers.tick(1000);
    assert.equal(runs, 2);
    soon.request();
    soon.cancel();
    mock.timers.tick(5000);
    assert.equal(runs, 2);
  } finally {
    mock.timers.reset();
  }
});

// Deferred tools in the page: the calls Switchboard answers itself (a model's search of the
// tools, a read of more of a large result) told apart from a server's calls and read whatever
// they hold; the pins the assistant editor keeps; tokens as the settings show them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { answerText, nativeSearchesOf, ownCallKind, readOf, searchOf } from "../../js/chat/own-calls.js";
import { awaitsDecision } from "../../js/chat/state.js";
import { isPinned, isWholeServer, pinTool, pinWholeServer, pinnedCount, pinsToSave } from "../../js/assistants/pins.js";
import { savedPercent, serverCost, tokensText } from "../../js/mcp/tool-cost.js";

const search = {
  id: "c1",
  serverId: "",
  serverName: "switchboard",
  toolName: "search_tools",
  arguments: { query: "  sum two numbers ", limit: 3 },
  status: "done",
  approved: true,
  round: 0,
  response: {
    content: [{ type: "text", text: "Found these tools; they can be called from now on:\n- mcp__everything__get-sum: Adds." }],
    _meta: {
      "switchboard/toolSearch": {
        query: "sum two numbers",
        tools: [
          { name: "mcp__everything__get-sum", server: "everything", tool: "get-sum", description: "Adds two numbers", score: 3.2 },
          { name: "mcp__everything__echo", server: "everything", tool: "echo", description: "Echoes", score: 0.4 },
        ],
      },
    },
  },
};

test("a search and a read Switchboard answered are told apart from a server's calls", () => {
  assert.equal(ownCallKind(search), "search");
  assert.equal(ownCallKind({ ...search, toolName: "read_result" }), "read");
  assert.equal(ownCallKind({ ...search, serverName: undefined }), "search", "the name is not needed");
  assert.equal(ownCallKind({ ...search, serverId: "everything", serverName: "everything" }), null,
    "a server's own tool of the same name is that server's");
  assert.equal(ownCallKind({ ...search, serverName: "other" }), null);
  assert.equal(ownCallKind({ ...search, toolName: "echo" }), null);
  assert.equal(ownCallKind({ ...search, status: "error", isError: true }), null,
    "a search refused before it ran is an unknown tool's failed call");
  assert.equal(ownCallKind(null), null);
});

test("what a search found is read from its result, in the order found", () => {
  const { query, tools } = searchOf(search);
  assert.equal(query, "sum two numbers");
  assert.deepEqual(tools.map((t) => [t.tool, t.server]), [["get-sum", "everything"], ["echo", "everything"]]);
  assert.equal(tools[0].description, "Adds two numbers");
  assert.match(answerText(search), /^Found these tools/);
});

test("a search without its result yet says what was asked and found nothing", () => {
  const asked = { ...search, response: undefined, status: "invoking" };
  assert.deepEqual(searchOf(asked), { query: "sum two numbers", tools: [] });
  assert.deepEqual(searchOf({ ...search, response: { content: [] }, arguments: {} }), { query: "", tools: [] });
  const odd = { ...search, response: { _meta: { "switchboard/toolSearch": { query: 3, tools: [null, { name: 5 }, { name: "x" }] } } } };
  assert.deepEqual(searchOf(odd).tools, [{ name: "x", server: "", tool: "x", description: "" }]);
  assert.equal(answerText(asked), "");
});

test("a read says where it read: from an offset, or the places holding a text", () => {
  assert.deepEqual(readOf({ arguments: { handle: "call_1", offset: 4000 } }), { handle: "call_1", offset: 4000, query: null });
  assert.deepEqual(readOf({ arguments: { handle: "call_1", query: " total " } }), { handle: "call_1", offset: null, query: "total" });
  assert.deepEqual(readOf({}), { handle: "", offset: null, query: null });
});

test("a call Switchboard answers never waits for an approval", () => {
  assert.equal(awaitsDecision({ ...search, status: "pending", approved: null }), false);
  assert.equal(awaitsDecision({ ...search, serverId: "everything", serverName: "everything", status: "pending", approved: null }), true);
});

test("pins: a whole server, single tools, and what is saved", () => {
  let pins = pinTool([], "everything", "echo", true);
  pins = pinTool(pins, "everything", "echo", true);
  assert.deepEqual(pins, [{ serverId: "everything", tool: "echo" }], "never twice");
  assert.equal(isPinned(pins, "everything", "echo"), true);
  assert.equal(isPinned(pins, "everything", "get-sum"), false);
  assert.equal(pinnedCount(pins, "everything"), 1);

  pins = pinWholeServer(pins, "everything", true);
  assert.deepEqual(pins, [{ serverId: "everything" }], "the whole server replaces its single pins");
  assert.equal(isWholeServer(pins, "everything"), true);
  assert.equal(isPinned(pins, "everything", "get-sum"), true);
  assert.equal(pinnedCount(pins, "everything"), "all");

  pins = pinWholeServer([...pins, { serverId: "time", tool: "convert_time" }], "everything", false);
  assert.deepEqual(pins, [{ serverId: "time", tool: "convert_time" }]);
  assert.deepEqual(pinTool(pins, "time", "convert_time", false), []);

  const kept = pinsToSave([{ serverId: "time", tool: "convert_time", extra: 1 }, { serverId: "gone" }, { serverId: "everything" }],
    ["everything", "time"]);
  assert.deepEqual(kept, [{ serverId: "time", tool: "convert_time" }, { serverId: "everything" }],
    "pins of servers it no longer uses are dropped");
});

test("tokens are grouped the reader's way, and a server's part is found by its id", () => {
  assert.equal(tokensText(12345.4, "en-US"), "12,345");
  assert.equal(tokensText(12345, "zh-Hans"), "12,345");
  assert.equal(tokensText(undefined, "en-US"), "?");
  const cost = { servers: [{ serverId: "everything", name: "everything", tools: 13, tokens: 2100 }], tools: 13, tokens: 2100, deferredTokens: 210, defers: true };
  assert.deepEqual(serverCost(cost, "everything"), { tools: 13, tokens: 2100 });
  assert.equal(serverCost(cost, "time"), null);
  assert.equal(serverCost(null, "everything"), null);
  assert.equal(savedPercent(cost), 90);
  assert.equal(savedPercent({ tokens: 0, deferredTokens: 100 }), 0);
  assert.equal(savedPercent({ tokens: 100, deferredTokens: 150 }), 0, "never a negative saving");
});

test("a provider's own tool search, kept with its round, reads as a search with what it found", () => {
  const message = {
    metadata: {
      providerBlocks: [
        [
          { type: "text", text: "Looking." },
          { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: { query: "sum numbers" } },
          {
            type: "tool_search_tool_result",
            tool_use_id: "srvtoolu_1",
            content: { type: "tool_search_tool_search_result", tool_references: [{ type: "tool_reference", tool_name: "mcp__everything__get-sum" }] },
          },
        ],
      ],
    },
  };
  const [search] = nativeSearchesOf(message, 0);
  assert.equal(ownCallKind(search), "search");
  assert.equal(awaitsDecision(search), false);
  const { query, tools } = searchOf(search);
  assert.equal(query, "sum numbers");
  assert.deepEqual(tools.map((tool) => [tool.name, tool.server, tool.tool]), [["mcp__everything__get-sum", "everything", "get-sum"]]);
  assert.deepEqual(nativeSearchesOf(message, 1), []);
  assert.deepEqual(nativeSearchesOf({ metadata: {} }, 0), []);
});

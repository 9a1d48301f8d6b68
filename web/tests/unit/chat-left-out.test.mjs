// The servers a turn was started without, read from its message whatever the message holds.

import { test } from "node:test";
import assert from "node:assert/strict";
import { leftOutOf } from "../../js/chat/left-out.js";

test("the servers a turn left out are read from its metadata", () => {
  const github = { serverId: "github", name: "GitHub", code: "MCP_UNREACHABLE", kind: "unreachable" };
  assert.deepEqual(leftOutOf({ metadata: { unavailableServers: [github] } }), [github]);
});

test("a turn that left none out, or an odd value, shows nothing", () => {
  assert.deepEqual(leftOutOf({ metadata: { rounds: ["hi"] } }), []);
  assert.deepEqual(leftOutOf({}), []);
  assert.deepEqual(leftOutOf(null), []);
  assert.deepEqual(leftOutOf({ metadata: { unavailableServers: "GitHub" } }), []);
  assert.deepEqual(leftOutOf({ metadata: { unavailableServers: [null, { serverId: "x" }] } }), []);
});

// A tool call's badge: a rejected call reads "rejected", a stopped one "cancelled".

import { test } from "node:test";
import assert from "node:assert/strict";
import { statusKey } from "../../js/chat/call-status.js";

test("a rejected call is told from a cancelled one", () => {
  assert.equal(statusKey({ status: "cancelled", approved: false }), "rejected");
  assert.equal(statusKey({ status: "cancelled" }), "cancelled", "stopped before a decision");
  assert.equal(statusKey({ status: "cancelled", approved: true }), "cancelled", "stopped after approval");
  assert.equal(statusKey({ status: "done", approved: true }), "done");
});

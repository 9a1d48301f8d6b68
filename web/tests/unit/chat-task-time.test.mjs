// How long a call's task has been running, said in the words of the locale files.

import { test } from "node:test";
import assert from "node:assert/strict";
import { durationWords, elapsedSeconds } from "../../js/chat/task-time.js";

test("the time since a task started is whole seconds, never negative", () => {
  assert.equal(elapsedSeconds(1_000, 4_999), 3);
  assert.equal(elapsedSeconds(5_000, 1_000), 0, "a clock behind the server's");
  assert.equal(elapsedSeconds(undefined, 1_000), 0);
});

test("a duration reads in seconds, then minutes, then hours", () => {
  assert.deepEqual(durationWords(0), ["ui.task.time_s", { s: 0 }]);
  assert.deepEqual(durationWords(59), ["ui.task.time_s", { s: 59 }]);
  assert.deepEqual(durationWords(61), ["ui.task.time_ms", { m: 1, s: 1 }]);
  assert.deepEqual(durationWords(3599), ["ui.task.time_ms", { m: 59, s: 59 }]);
  assert.deepEqual(durationWords(3600 * 2 + 60 * 5 + 9), ["ui.task.time_hm", { h: 2, m: 5 }]);
});

// The chat's state: each live event changes what a conversation shows as the stored history
// would, and an assistant message reads as its rounds with their calls.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  applyEvent, awaitsDecision, caughtUp, fromHistory, pendingTasks, roundsOf, settled, waitsOnTask, withDelta,
} from "../../js/chat/state.js";

const call = (id, round, status = "pending", extra = {}) => ({
  id, round, status, serverId: "s", serverName: "s", toolName: id, displayName: `mcp__s__${id}`, arguments: {}, ...extra,
});

const history = () =>
  fromHistory({
    id: "c1",
    title: "",
    running: false,
    messages: [{ id: "u1", role: "user", content: "hi", toolCalls: [], metadata: {} }],
  });

test("a streamed answer with a tool call builds the message the history holds", () => {
  let view = history();
  const message = { id: "a1", role: "assistant", content: "", toolCalls: [], metadata: {} };
  view = applyEvent(view, { type: "message.created", conversationId: "c1", message });
  assert.equal(view.running, true);
  view = applyEvent(view, { type: "message.delta", conversationId: "c1", messageId: "a1", delta: "Let me " });
  view = applyEvent(view, { type: "message.delta", conversationId: "c1", messageId: "a1", delta: "check." });
  view = applyEvent(view, { type: "assistant.toolCall.updated", conversationId: "c1", messageId: "a1", toolCall: call("echo", 0) });
  assert.ok(awaitsDecision(view.messages[1].toolCalls[0]));
  view = applyEvent(view, {
    type: "assistant.toolCall.updated", conversationId: "c1", messageId: "a1",
    toolCall: call("echo", 0, "done", { approved: true, response: { content: [{ type: "text", text: "ok" }] } }),
  });
  assert.equal(view.messages[1].toolCalls.length, 1, "an update replaces the call, not adds one");
  assert.equal(view.messages[1].toolCalls[0].status, "done");
  assert.ok(!awaitsDecision(view.messages[1].toolCalls[0]));
  view = applyEvent(view, {
    type: "message.completed", conversationId: "c1", messageId: "a1", content: "Let me check.\n\nDone.", stop: "answered",
  });
  assert.equal(view.running, false);
  assert.equal(view.messages[1].content, "Let me check.\n\nDone.");
});

test("events of other conversations and unknown messages change nothing", () => {
  const view = history();
  assert.equal(applyEvent(view, { type: "message.delta", conversationId: "c2", messageId: "u1", delta: "x" }), view);
  assert.equal(applyEvent(view, { type: "message.delta", conversationId: "c1", messageId: "zz", delta: "x" }), view);
  assert.equal(applyEvent(view, { type: "server.status", serverId: "s", status: "connected" }), view);
  assert.equal(applyEvent(null, { type: "message.delta", conversationId: "c1" }), null);
});

test("a failed run is shown with its code and stops the run", () => {
  let view = { ...history(), running: true };
  view = applyEvent(view, { type: "run.failed", conversationId: "c1", code: "UPSTREAM_UNAVAILABLE", message: "down" });
  assert.equal(view.running, false);
  assert.deepEqual(view.failure, { code: "UPSTREAM_UNAVAILABLE", message: "down" });
});

test("a stored message reads as its rounds: each round's text, then its calls", () => {
  const message = {
    content: "Let me check.\n\nDone.",
    metadata: { rounds: ["Let me check.", "Done."] },
    toolCalls: [call("a", 0, "done"), call("b", 0, "cancelled")],
  };
  const rounds = roundsOf(message);
  assert.equal(rounds.length, 2);
  assert.equal(rounds[0].text, "Let me check.");
  assert.deepEqual(rounds[0].calls.map((c) => c.id), ["a", "b"]);
  assert.equal(rounds[1].text, "Done.");
  assert.deepEqual(rounds[1].calls, []);
});

test("while it streams, text beyond the stored rounds follows the last round's calls", () => {
  const streaming = { content: "Done so far", metadata: {}, toolCalls: [call("a", 0, "done")] };
  const rounds = roundsOf(streaming);
  assert.deepEqual(rounds.map((r) => r.text), ["", "Done so far"]);
  assert.deepEqual(rounds[0].calls.map((c) => c.id), ["a"]);
  const first = roundsOf({ content: "Thinking", metadata: {}, toolCalls: [] });
  assert.deepEqual(first.map((r) => r.text), ["Thinking"]);
  assert.deepEqual(roundsOf({ content: "", metadata: {}, toolCalls: [] }), []);
});

test("streamed text goes to the round being written, as the server stores it", () => {
  let message = { id: "a1", role: "assistant", content: "", toolCalls: [], metadata: {} };
  message = withDelta(message, "I will ");
  message = withDelta(message, "check.");
  message = { ...message, toolCalls: [call("a", 0)] };
  let rounds = roundsOf(message);
  assert.equal(rounds[0].text, "I will check.", "the text comes before the call it announces");
  assert.deepEqual(rounds[0].calls.map((c) => c.id), ["a"]);
  message = withDelta(message, "Done.");
  rounds = roundsOf(message);
  assert.deepEqual(rounds.map((r) => r.text), ["I will check.", "Done."]);
  assert.equal(message.content, "I will check.\n\nDone.");
  // A history loaded mid-stream goes on from what it holds.
  const loaded = { content: "Hello wor", metadata: { rounds: ["Hello wor"] }, toolCalls: [] };
  assert.deepEqual(roundsOf(withDelta(loaded, "ld.")).map((r) => r.text), ["Hello world."]);
});

test("a history reloaded after the run ended keeps the failure and is not running", () => {
  let view = { ...history(), running: true };
  view = applyEvent(view, { type: "run.failed", conversationId: "c1", code: "MCP_AUTH_FAILED", message: "401" });
  const again = settled(view, { id: "c1", title: "", running: true, messages: [] });
  assert.equal(again.running, false);
  assert.deepEqual(again.failure, { code: "MCP_AUTH_FAILED", message: "401" });
});

test("events that came while the first history loaded are caught up without counting twice", () => {
  const answer = { id: "a1", role: "assistant", content: "Let me check.", toolCalls: [call("echo", 0)], metadata: { rounds: ["Let me check."] } };
  const loaded = fromHistory({ id: "c1", title: "", running: true, messages: [history().messages[0], answer] });
  const events = [
    // Already in the history: not added again, its text not doubled.
    { type: "message.created", conversationId: "c1", message: { ...answer, content: "", toolCalls: [] } },
    { type: "message.delta", conversationId: "c1", messageId: "a1", delta: "Let me check." },
    // Newer than the history: the call's latest state wins.
    { type: "assistant.toolCall.updated", conversationId: "c1", messageId: "a1", toolCall: call("echo", 0, "done") },
    // Not in the history: added with its text.
    { type: "message.created", conversationId: "c1", message: { id: "a2", role: "assistant", content: "", toolCalls: [], metadata: {} } },
    { type: "message.delta", conversationId: "c1", messageId: "a2", delta: "More." },
  ];
  const view = caughtUp(loaded, events);
  assert.equal(view.messages.length, 3);
  assert.equal(view.messages[1].content, "Let me check.");
  assert.equal(view.messages[1].toolCalls[0].status, "done");
  assert.equal(view.messages[2].content, "More.");
  assert.equal(view.running, true);
  const ended = caughtUp(view, [{ type: "run.failed", conversationId: "c1", code: "LLM_ERROR", message: "no" }]);
  assert.equal(ended.running, false);
  assert.equal(ended.failure.code, "LLM_ERROR");
});

test("a call that runs as a task parks the turn, shows the task's progress and goes on when it ends", () => {
  const task = { id: "tsk_1", status: "working", createdAt: 1_000 };
  const running = call("slow", 0, "invoking", { approved: true, task });
  let view = {
    ...history(),
    running: true,
    messages: [...history().messages, { id: "a1", role: "assistant", content: "", toolCalls: [running], metadata: {} }],
  };
  assert.ok(waitsOnTask(view.messages[1].toolCalls[0]));
  view = applyEvent(view, { type: "run.parked", conversationId: "c1", messageId: "a1" });
  assert.equal(view.running, false, "no run answers while the task runs");
  assert.deepEqual(pendingTasks(view).map((c) => c.id), ["slow"]);

  view = applyEvent(view, {
    type: "task.updated", conversationId: "c1", messageId: "a1", callId: "slow", taskId: "tsk_1",
    status: "input_required", statusMessage: "half way",
  });
  assert.deepEqual(view.messages[1].toolCalls[0].task, { id: "tsk_1", status: "input_required", statusMessage: "half way", createdAt: 1_000 });
  // Another task's update, or another conversation's, changes nothing.
  const same = applyEvent(view, {
    type: "task.updated", conversationId: "c1", messageId: "a1", callId: "slow", taskId: "tsk_2", status: "failed",
  });
  assert.equal(same.messages[1].toolCalls[0].task.status, "input_required");
  assert.equal(applyEvent(view, { type: "task.updated", conversationId: "c2", messageId: "a1", callId: "slow", taskId: "tsk_1", status: "failed" }), view);

  view = applyEvent(view, {
    type: "assistant.toolCall.updated", conversationId: "c1", messageId: "a1",
    toolCall: { ...running, status: "done", task: { ...task, status: "completed" }, response: { content: [] } },
  });
  assert.deepEqual(pendingTasks(view), []);
  assert.equal(view.running, true, "the turn goes on once its last task ended");
  view = applyEvent(view, { type: "message.completed", conversationId: "c1", messageId: "a1", content: "Done.", stop: "answered" });
  assert.equal(view.running, false);
});

test("a turn that waits on two tasks goes on only when both ended", () => {
  const first = call("one", 0, "invoking", { task: { id: "t1", status: "working", createdAt: 0 } });
  const second = call("two", 0, "invoking", { task: { id: "t2", status: "working", createdAt: 0 } });
  let view = {
    ...history(),
    messages: [...history().messages, { id: "a1", role: "assistant", content: "", toolCalls: [first, second], metadata: {} }],
  };
  view = applyEvent(view, {
    type: "assistant.toolCall.updated", conversationId: "c1", messageId: "a1",
    toolCall: { ...first, status: "cancelled", task: { ...first.task, status: "cancelled" } },
  });
  assert.equal(view.running, false, "the other task still runs");
  assert.deepEqual(pendingTasks(view).map((c) => c.id), ["two"]);
  // A call that was no task ending changes nothing of the run.
  const plain = { ...history(), messages: [...history().messages, { id: "a1", role: "assistant", toolCalls: [call("p", 0, "invoking")], metadata: {} }] };
  const after = applyEvent(plain, { type: "assistant.toolCall.updated", conversationId: "c1", messageId: "a1", toolCall: call("p", 0, "done") });
  assert.equal(after.running, false);
  // A turn whose last message is the person's waits on nothing.
  assert.deepEqual(pendingTasks(history()), []);
});

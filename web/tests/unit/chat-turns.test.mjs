// A turn run again, as the page shows it before the run's events arrive; the stored failure
// of a turn; the "thinking" moment; and a node call's resolved arguments.

import { test } from "node:test";
import assert from "node:assert/strict";
import { settled } from "../../js/chat/state.js";
import { canRetry, failureOf, forked, isThinking, questionBefore, retrying } from "../../js/chat/turns.js";
import { argumentRows, fromWords, hasRun } from "../../js/chat/resolved-arguments.js";

const user = (id, content) => ({ id, role: "user", content, toolCalls: [], metadata: {} });
const answer = (id, content, metadata = {}, toolCalls = []) => ({ id, role: "assistant", content, toolCalls, metadata });
const failed = { code: "UPSTREAM_UNAVAILABLE", message: "the model call failed", hint: "Try again later." };
const conversation = (messages, running = false) => ({ id: "c1", title: "", running, failure: null, messages });

test("a stored failure is read from its turn, and Retry is offered on the last turn only", () => {
  const old = answer("a1", "", { failure: failed });
  const last = answer("a2", "Partial", { failure: failed });
  const view = conversation([user("u1", "q1"), old, user("u2", "q2"), last]);
  assert.deepEqual(failureOf(last), failed);
  assert.equal(failureOf(answer("a3", "fine")), null);
  assert.equal(failureOf(answer("a4", "", { failure: { code: 1 } })), null, "not a failure's shape");
  assert.ok(canRetry(view, last));
  assert.ok(!canRetry(view, old), "an earlier failed turn is regenerated instead");
  assert.ok(!canRetry({ ...view, running: true }, last), "not while a run answers");
});

test("after a run ends, a failure kept with the turn replaces the announced one", () => {
  const announced = { ...conversation([]), failure: { code: "X", message: "announced" } };
  const history = { id: "c1", running: true, messages: [user("u1", "q"), answer("a1", "", { failure: failed })] };
  assert.equal(settled(announced, history).failure, null, "shown with its turn instead");
  const unstored = { id: "c1", running: false, messages: [user("u1", "q")] };
  assert.equal(settled(announced, unstored).failure.message, "announced");
  assert.equal(settled(announced, history).running, false);
});

test("the model is thinking until it says something or asks for a tool", () => {
  const calls = (status) => [{ id: "c", round: 0, status, toolName: "echo" }];
  const rounds = (texts, done) => ({ rounds: texts, roundsDone: done });
  assert.ok(isThinking(conversation([user("u1", "q")], true)), "no answer begun");
  assert.ok(isThinking(conversation([user("u1", "q"), answer("a1", "", rounds([], 0))], true)));
  assert.ok(!isThinking(conversation([user("u1", "q"), answer("a1", "Hel", rounds(["Hel"], 0))], true)), "it speaks");
  const asking = answer("a1", "", rounds([""], 1), calls("pending"));
  assert.ok(!isThinking(conversation([user("u1", "q"), asking], true)), "a call waits for the person");
  const running = answer("a1", "", rounds([""], 1), calls("invoking"));
  assert.ok(!isThinking(conversation([user("u1", "q"), running], true)), "a tool runs");
  const answered = answer("a1", "", rounds([""], 1), calls("done"));
  assert.ok(isThinking(conversation([user("u1", "q"), answered], true)), "asked again with the result");
  assert.ok(!isThinking(conversation([user("u1", "q")], false)), "no run");
  const broken = answer("a1", "", { failure: failed });
  assert.ok(!isThinking(conversation([user("u1", "q"), broken], true)), "a failed turn");
});

test("a fork drops what came after the message, and the message itself when it is replaced", () => {
  const view = conversation([user("u1", "q1"), answer("a1", "A1"), user("u2", "q2"), answer("a2", "A2")]);
  view.failure = { code: "X", message: "old" };
  const regenerated = forked(view, "u1", { keep: true });
  assert.deepEqual(regenerated.messages.map((m) => m.id), ["u1"]);
  assert.equal(regenerated.running, true);
  assert.equal(regenerated.failure, null);
  const edited = forked(view, "u2", { keep: false });
  assert.deepEqual(edited.messages.map((m) => m.id), ["u1", "a1"]);
  assert.equal(forked(view, "nope", { keep: true }), view);
  assert.equal(questionBefore(view.messages, "a2").id, "u2");
  assert.equal(questionBefore(view.messages, "a1").id, "u1");
  assert.equal(questionBefore(view.messages, "u1"), null);
});

test("a retried turn loses its failure and the round that broke off", () => {
  const turn = answer("a1", "Done before\n\nhalf", { rounds: ["Done before", "half"], roundsDone: 1, failure: failed });
  const view = retrying(conversation([user("u1", "q"), turn]), "a1");
  const retried = view.messages[1];
  assert.equal(view.running, true);
  assert.equal(retried.metadata.failure, undefined);
  assert.deepEqual(retried.metadata.rounds, ["Done before"]);
  assert.equal(retried.content, "Done before");
  assert.equal(turn.metadata.failure, failed, "the stored message is not changed in place");
  const whole = retrying(conversation([answer("a2", "All", { rounds: ["All"], roundsDone: 1, failure: failed })]), "a2");
  assert.equal(whole.messages[0].content, "All");
});

test("a node call's arguments are its resolved ones, each mapped one with where it comes from", () => {
  const call = {
    status: "pending",
    arguments: { title: "Crash" },
    resolvedArguments: { owner: "admin", path: "repos/admin/x", steps: 1, title: "Crash" },
    mappedParameters: { owner: { variables: ["user.name"] }, path: { variables: ["user.name", "repo"] }, steps: { variables: [] } },
  };
  assert.deepEqual(argumentRows(call), [
    { name: "owner", value: '"admin"', from: { variables: ["user.name"] } },
    { name: "path", value: '"repos/admin/x"', from: { variables: ["user.name", "repo"] } },
    { name: "steps", value: "1", from: { variables: [] } },
    { name: "title", value: '"Crash"', from: null },
  ]);
  assert.deepEqual(fromWords({ variables: ["user.name"] }), ["ui.call.from_variable", { name: "user.name" }]);
  assert.deepEqual(fromWords({ variables: ["a", "b"] }), ["ui.call.from_variables", { names: "a, b" }]);
  assert.deepEqual(fromWords({ variables: [] }), ["ui.call.fixed", {}]);
  assert.equal(argumentRows({ status: "pending", arguments: { a: 1 } }), null, "a call with no node");
  assert.ok(!hasRun(call));
  assert.ok(hasRun({ status: "done" }) && hasRun({ status: "error" }) && !hasRun({ status: "cancelled" }));
});

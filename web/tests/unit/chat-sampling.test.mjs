// A server's sampling request in the middle of a tool call (MCP sampling/createMessage): when
// the person is asked to review it, the answer's body at each stage (the request sent as asked
// or as edited, the model's answer returned as edited, or either rejected), and the line once
// decided, also when the server's setting answered it without asking.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n, install } from "../../js/i18n.js";
import { asksQuestion, openQuestion } from "../../js/chat/question.js";
import {
  openSampling, requestEdited, samplingBody, samplingDraft, samplingLine, samplingMessages, samplingStage,
} from "../../js/chat/sampling.js";

const english = JSON.parse(readFileSync(new URL("../../../locales/en-US.json", import.meta.url), "utf8"));
const i18n = createI18n({ load: async () => english, storage: null, remember: async () => {} });
install(i18n);
await i18n.start(["en-US"]);

const sampling = (extra = {}) => ({
  stage: "request",
  messages: [{ role: "user", text: "What is 2+2?" }, { role: "assistant", text: "Let me think." }],
  systemPrompt: "You are a helpful test server.",
  maxTokens: 100,
  model: "gpt-4o-mini",
  modelHints: ["claude-3-sonnet"],
  ...extra,
});
const question = (extra = {}, answer = null) => ({ id: "q1", mode: "sampling", message: "", sampling: sampling(extra), answer });
const call = (status, q) => ({ id: "c1", status, serverName: "everything", toolName: "sampleLLM", question: q });

test("a sampling request waits for the person while the call runs and it is undecided", () => {
  assert.equal(openSampling(call("invoking", question()))?.id, "q1");
  assert.equal(openSampling(call("invoking", question({ stage: "answer", answer: "4" })))?.id, "q1", "the answer stage too");
  assert.equal(openSampling(call("invoking", question({}, { action: "decline" }))), null, "decided");
  assert.equal(openSampling(call("done", question())), null, "the call ended");
  assert.equal(openSampling(call("invoking", question({ auto: true }))), null, "answered without asking");
  assert.equal(openSampling(call("invoking", { id: "q", mode: "form", answer: null })), null, "not sampling");
  assert.equal(openSampling(undefined), null);
});

test("what marks a question as waiting recognises sampling too", () => {
  assert.equal(asksQuestion(call("invoking", question())), true);
  assert.equal(openQuestion(call("invoking", question())).id, "q1");
  assert.equal(asksQuestion(call("invoking", question({ auto: true }))), false);
  assert.equal(asksQuestion(call("invoking", question({}, { action: "accept" }))), false);
  assert.equal(asksQuestion(call("pending", question())), false);
});

test("the stage is request unless the model has answered", () => {
  assert.equal(samplingStage(question()), "request");
  assert.equal(samplingStage(question({ stage: "answer" })), "answer");
  assert.equal(samplingStage(question({ stage: "later" })), "request", "an unknown stage");
});

test("the messages as shown: a role each, missing text as nothing", () => {
  const q = question({ messages: [{ role: "assistant", text: "a" }, { role: "system", text: 3 }] });
  assert.deepEqual(samplingMessages(q), [{ role: "assistant", text: "a" }, { role: "user", text: "" }]);
  assert.deepEqual(samplingMessages({ sampling: {} }), []);
});

test("an unedited request is sent as the server asked: no content", () => {
  const q = question();
  const draft = samplingDraft(q);
  assert.deepEqual(draft, { texts: ["What is 2+2?", "Let me think."], systemPrompt: "You are a helpful test server.", answer: "" });
  assert.equal(requestEdited(q, draft), false);
  assert.deepEqual(samplingBody(q, "accept", draft), { questionId: "q1", action: "accept" });
  assert.deepEqual(samplingBody(q, "accept"), { questionId: "q1", action: "accept" }, "the draft defaults to the request");
});

test("an edited request is sent with every message and the system prompt as edited", () => {
  const q = question();
  const draft = { ...samplingDraft(q), texts: ["What is 3+3?", "Let me think."] };
  assert.equal(requestEdited(q, draft), true);
  assert.deepEqual(samplingBody(q, "accept", draft), {
    questionId: "q1",
    action: "accept",
    content: {
      messages: [{ role: "user", text: "What is 3+3?" }, { role: "assistant", text: "Let me think." }],
      systemPrompt: "You are a helpful test server.",
    },
  });
  const system = { ...samplingDraft(q), systemPrompt: "Be brief." };
  assert.equal(samplingBody(q, "accept", system).content.systemPrompt, "Be brief.");
  assert.deepEqual(samplingBody(q, "accept", system).content.messages.map((m) => m.text), ["What is 2+2?", "Let me think."]);
});

test("a system prompt emptied is taken away (null); none given and none written sends no key", () => {
  const q = question();
  const cleared = { ...samplingDraft(q), systemPrompt: "  " };
  assert.equal(samplingBody(q, "accept", cleared).content.systemPrompt, null);
  const bare = question({ systemPrompt: undefined });
  const edited = { ...samplingDraft(bare), texts: ["Other", "Let me think."] };
  assert.equal("systemPrompt" in samplingBody(bare, "accept", edited).content, false);
  const added = { ...samplingDraft(bare), systemPrompt: "New one" };
  assert.equal(requestEdited(bare, added), true);
  assert.equal(samplingBody(bare, "accept", added).content.systemPrompt, "New one");
});

test("rejecting sends no content, whatever was edited, at either stage", () => {
  const q = question();
  const draft = { ...samplingDraft(q), texts: ["changed", "changed"] };
  assert.deepEqual(samplingBody(q, "decline", draft), { questionId: "q1", action: "decline" });
  const a = question({ stage: "answer", answer: "4" });
  assert.deepEqual(samplingBody(a, "decline", { ...samplingDraft(a), answer: "5" }), { questionId: "q1", action: "decline" });
  assert.deepEqual(samplingBody(a, "cancel"), { questionId: "q1", action: "cancel" });
});

test("the model's answer goes back to the server as its text, edited or not", () => {
  const a = question({ stage: "answer", answer: "The answer is 4." });
  assert.equal(samplingDraft(a).answer, "The answer is 4.", "the box starts with the model's draft");
  assert.deepEqual(samplingBody(a, "accept"), { questionId: "q1", action: "accept", content: { text: "The answer is 4." } });
  const edited = { ...samplingDraft(a), answer: "4" };
  assert.deepEqual(samplingBody(a, "accept", edited), { questionId: "q1", action: "accept", content: { text: "4" } });
});

test("once decided, one line says how", () => {
  const answered = question({ stage: "answer", answer: "4" }, { action: "accept" });
  assert.equal(samplingLine(call("done", answered), answered.answer), "Sampled by gpt-4o-mini");
  assert.equal(samplingLine(call("invoking", question()), { action: "decline" }), "Rejected");
  assert.equal(samplingLine(call("invoking", question()), { action: "cancel" }), "Cancelled");
  assert.equal(samplingLine(call("invoking", question()), null), null, "still waiting");
  const sent = question({}, { action: "accept" });
  assert.match(samplingLine(call("invoking", sent), sent.answer), /^Sent to gpt-4o-mini/, "the model is answering");
  const auto = question({ stage: "answer", answer: "4", auto: true }, { action: "accept" });
  assert.equal(samplingLine(call("done", auto), auto.answer), "Sampled by gpt-4o-mini (approved automatically)");
  assert.equal(samplingLine(call("done", question({ model: "" }, { action: "accept" })), { action: "accept" }), "Sampled by the model");
});

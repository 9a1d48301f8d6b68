// A server's question in the middle of a tool call (MCP elicitation): when a call asks one,
// the form prefilled from the schema's defaults (SEP-1034), titled enums shown by their
// titles (SEP-1330), the answer's request body for each action, and the line once answered.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n, install } from "../../js/i18n.js";
import {
  answerBody, answeredText, asksQuestion, initialAnswer, openQuestion, questionField, questionLink,
} from "../../js/chat/question.js";

const english = JSON.parse(readFileSync(new URL("../../../locales/en-US.json", import.meta.url), "utf8"));
const i18n = createI18n({ load: async () => english, storage: null, remember: async () => {} });
install(i18n);
await i18n.start(["en-US"]);

// What server-everything's trigger-elicitation-request asks, cut to one field of each sort.
const SCHEMA = {
  type: "object",
  properties: {
    name: { title: "String", type: "string", description: "Your full, legal name" },
    check: { title: "Boolean", type: "boolean" },
    firstLine: { title: "String with default", type: "string", default: "It was a dark and stormy night." },
    integer: { title: "Integer", type: "integer", minimum: 1, maximum: 100, default: 42 },
    color: { type: "string", enum: ["red", "green"] },
    hero: {
      type: "string", title: "Titled Single Select Enum", default: "hero-2",
      oneOf: [{ const: "hero-1", title: "Superman" }, { const: "hero-2", title: "Green Lantern" }],
    },
    fish: {
      type: "array", minItems: 1, default: ["fish-1"],
      items: { anyOf: [{ const: "fish-1", title: "Tuna" }, { const: "fish-2", title: "Salmon" }] },
    },
    pet: { type: "string", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"], default: "pet-2" },
  },
  required: ["name"],
};

const formQuestion = (extra = {}) => ({
  id: "q1", mode: "form", message: "Please provide inputs for the following fields:", requestedSchema: SCHEMA, answer: null, ...extra,
});
const urlQuestion = (url = "https://auth.example/approve?x=1") => ({ id: "q2", mode: "url", message: "Go there.", url, answer: null });
const call = (status, question) => ({ id: "c1", status, serverName: "everything", toolName: "t", question });

test("a call asks while it runs with a question that has no answer yet", () => {
  assert.equal(asksQuestion(call("invoking", formQuestion())), true);
  assert.equal(asksQuestion(call("invoking", urlQuestion())), true);
  assert.equal(openQuestion(call("invoking", formQuestion())).id, "q1");
  assert.equal(asksQuestion(call("invoking", formQuestion({ answer: { action: "decline" } }))), false, "answered");
  assert.equal(asksQuestion(call("done", formQuestion())), false, "the call ended");
  assert.equal(asksQuestion(call("pending", formQuestion())), false, "not running yet");
  assert.equal(asksQuestion(call("invoking", undefined)), false, "no question");
  assert.equal(asksQuestion(call("invoking", formQuestion({ mode: "telepathy" }))), false, "a mode not known");
  assert.equal(asksQuestion(undefined), false);
});

test("the form starts from each property's default, the required field marked", () => {
  const field = questionField(formQuestion());
  const byKey = Object.fromEntries(field.children.map((c) => [c.key, c]));
  assert.equal(byKey.name.label, "String");
  assert.equal(byKey.name.required, true);
  assert.equal(byKey.check.required, false);
  const state = initialAnswer(field);
  assert.equal(state.name, "");
  assert.equal(state.firstLine, "It was a dark and stormy night.");
  assert.equal(state.integer, "42");
  assert.equal(state.check, null, "an optional box without a default is unset");
  assert.equal(state.color, "");
});

test("titled enums are selects shown by their titles, with their defaults chosen", () => {
  const field = questionField(formQuestion());
  const byKey = Object.fromEntries(field.children.map((c) => [c.key, c]));
  assert.equal(byKey.hero.kind, "select");
  assert.deepEqual(byKey.hero.options, [{ label: "Superman", value: "hero-1" }, { label: "Green Lantern", value: "hero-2" }]);
  assert.equal(byKey.fish.item.kind, "select");
  assert.deepEqual(byKey.fish.item.options.map((o) => o.label), ["Tuna", "Salmon"]);
  assert.deepEqual(byKey.pet.options.map((o) => o.label), ["Cats", "Dogs"], "the older enumNames");
  assert.deepEqual(byKey.color.options.map((o) => o.label), ["red", "green"], "untitled: the values");
  const state = initialAnswer(field);
  assert.equal(state.hero, "1");
  assert.deepEqual(state.fish, ["0"]);
  assert.equal(state.pet, "1");
  // A choice that is not all constants is still typed as JSON.
  assert.equal(questionField({ requestedSchema: { type: "object", properties: { x: { anyOf: [{ const: 1 }, { type: "string" }] } } } }).children[0].kind, "json");
});

test("accepting a form sends the fields filled in, defaults included", () => {
  const question = formQuestion();
  const field = questionField(question);
  const state = { ...initialAnswer(field), name: "Ada Lovelace", check: true, color: "1" };
  const { body, errors } = answerBody(question, "accept", field, state);
  assert.equal(errors, undefined);
  assert.deepEqual(body, {
    questionId: "q1",
    action: "accept",
    content: {
      name: "Ada Lovelace", check: true, firstLine: "It was a dark and stormy night.", integer: 42, color: "green",
      hero: "hero-2", fish: ["fish-1"], pet: "pet-2",
    },
  });
});

test("an accepted form missing a required field is not sent", () => {
  const question = formQuestion();
  const field = questionField(question);
  const { body, errors } = answerBody(question, "accept", field, initialAnswer(field));
  assert.equal(body, undefined);
  assert.deepEqual(errors, [{ path: "name", message: "required" }]);
  const bad = answerBody(question, "accept", field, { ...initialAnswer(field), name: "x", integer: "500" });
  assert.deepEqual(bad.errors, [{ path: "integer", message: "must be at most 100" }]);
});

test("declining or cancelling sends no fields, whatever the form holds", () => {
  const question = formQuestion();
  const field = questionField(question);
  for (const action of ["decline", "cancel"]) {
    assert.deepEqual(answerBody(question, action, field, initialAnswer(field)), { body: { questionId: "q1", action } });
  }
});

test("a url question is answered without fields, and only an http(s) link is offered", () => {
  const question = urlQuestion();
  assert.deepEqual(answerBody(question, "accept", questionField(question), {}), { body: { questionId: "q2", action: "accept" } });
  assert.equal(questionLink(question), "https://auth.example/approve?x=1");
  assert.equal(questionLink(urlQuestion("http://localhost:8080/x")), "http://localhost:8080/x");
  assert.equal(questionLink(urlQuestion("javascript:alert(1)")), null);
  assert.equal(questionLink(urlQuestion("data:text/html,hi")), null);
  assert.equal(questionLink(urlQuestion("not a url")), null);
  assert.equal(questionLink({ ...urlQuestion(), url: undefined }), null);
  assert.equal(questionLink(formQuestion()), null, "a form question has no link");
});

test("a question without a schema has a form without fields", () => {
  const field = questionField(formQuestion({ requestedSchema: undefined }));
  assert.equal(field.kind, "object");
  assert.deepEqual(field.children, []);
  const question = formQuestion({ requestedSchema: null });
  assert.deepEqual(answerBody(question, "accept", questionField(question), {}).body.content, {});
});

test("the answered line says how it was answered", () => {
  assert.equal(answeredText({ action: "accept", content: { name: "Ada" } }), "You answered: accepted");
  assert.equal(answeredText({ action: "decline" }), "You answered: declined");
  assert.equal(answeredText({ action: "cancel" }), "You answered: cancelled");
});

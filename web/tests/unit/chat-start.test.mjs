// The chat's first screen: the assistant it offers, what starting a conversation asks of the
// API, which keys send, and when it says that no model provider is configured.

import { test } from "node:test";
import assert from "node:assert/strict";
import { titleOf } from "../../js/chat/compose.js";
import { newConversation, preselect, providerMissing, sendsOnKey, showsNoProvider, titleFrom } from "../../js/chat/start.js";

const assistants = [{ id: "a1", name: "Helper" }, { id: "a2", name: "Writer" }];
const refused = (status, code) => Object.assign(new Error("refused"), { status, code });

test("the assistant used last is offered first while it exists, else the first one", () => {
  assert.equal(preselect(assistants, "a2"), "a2");
  assert.equal(preselect(assistants, null), "a1", "nothing remembered");
  assert.equal(preselect(assistants, "gone"), "a1", "the remembered one was deleted");
  assert.equal(preselect(assistants, ""), "", "the last conversation had no assistant");
});

test("with no assistant at all, none is offered", () => {
  assert.equal(preselect([], "a1"), "");
  assert.equal(preselect([], null), "");
  assert.equal(preselect(null, "a1"), "", "still loading");
});

test("a conversation starts named after its message, with the assistant when there is one", () => {
  const title = (content, command) => titleOf({ content }, command ? { entry: { command } } : null);
  assert.deepEqual(newConversation("a1", title("  Add 2 and 3\nplease ")), { title: "Add 2 and 3", assistantId: "a1" });
  assert.deepEqual(newConversation("", title("Hello")), { title: "Hello" });
  // A prompt sent without text names it after the command.
  assert.deepEqual(newConversation("a1", title("", "/everything:args-prompt")), { title: "/everything:args-prompt", assistantId: "a1" });
});

test("a long first line is cut to a title at a word", () => {
  const title = titleFrom("word ".repeat(30));
  assert.ok(title.endsWith("…"));
  assert.ok(title.length <= 61, title);
  assert.ok(!title.slice(0, -1).endsWith(" w"), "not cut inside a word");
});

test("Enter sends; Shift+Enter, other keys and Enter while composing do not", () => {
  assert.equal(sendsOnKey({ key: "Enter", shiftKey: false, isComposing: false }), true);
  assert.equal(sendsOnKey({ key: "Enter", shiftKey: true, isComposing: false }), false);
  assert.equal(sendsOnKey({ key: "Enter", shiftKey: false, isComposing: true }), false);
  assert.equal(sendsOnKey({ key: "a", shiftKey: false, isComposing: false }), false);
});

test("no provider is said only when none is stored and a send was refused as invalid", () => {
  const invalid = refused(400, "VALIDATION_ERROR");
  assert.equal(providerMissing([], invalid), true);
  // The server may have a provider from its environment: an empty list alone says nothing.
  assert.equal(providerMissing([], null), false);
  assert.equal(providerMissing([{ id: "p1" }], invalid), false, "a stored provider: some other mistake");
  assert.equal(providerMissing(null, invalid), false, "the list could not be read");
  assert.equal(providerMissing([], refused(409, "CONFLICT")), false);
  assert.equal(providerMissing([], refused(0, "NETWORK_ERROR")), false);
});

test("GET /api/me's providerConfigured decides the notice as soon as it is known, before any send", () => {
  assert.equal(showsNoProvider(false, null, null), true, "none configured: said at once");
  assert.equal(showsNoProvider(false, [{ id: "p" }], null), true, "the server's word wins");
  assert.equal(showsNoProvider(true, [], refused(400, "VALIDATION_ERROR")), false, "one from the environment");
  assert.equal(showsNoProvider(true, [], null), false);
});

test("while providerConfigured is unknown, a send refused for want of a provider still says so", () => {
  assert.equal(showsNoProvider(undefined, [], null), false, "nothing sent yet");
  assert.equal(showsNoProvider(undefined, [], refused(400, "VALIDATION_ERROR")), true);
  assert.equal(showsNoProvider(undefined, [{ id: "p" }], refused(400, "VALIDATION_ERROR")), false);
  assert.equal(showsNoProvider(null, null, refused(400, "VALIDATION_ERROR")), false, "providers unknown too");
});

// Prompts as slash commands in the message box: when the list shows, each prompt named
// /<server>:<prompt>, the list filtered by what is typed, what stays in the box once one is
// chosen, the required arguments, and the message's body (text, attachments, prompt).

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  afterCommand, argumentValues, filterPrompts, missingArguments, promptArgs, promptEntries, slashQuery,
} from "../../js/chat/slash.js";
import { canSend, composeMessage, titleOf } from "../../js/chat/compose.js";

const groups = [
  {
    server: { id: "everything", name: "everything" },
    prompts: [
      { name: "simple_prompt", description: "A prompt without arguments" },
      {
        name: "complex_prompt",
        arguments: [
          { name: "temperature", description: "Temperature setting", required: true },
          { name: "style", description: "Output style" },
        ],
      },
    ],
  },
  { server: { id: "notes", name: "Notes" }, prompts: [{ name: "summarise", arguments: [{ name: "topic", required: false }] }] },
  { server: { id: "broken", name: "broken" }, error: { message: "down" } },
];
const entries = promptEntries(groups);
const byCommand = (c) => entries.find((e) => e.command === c);

test("the list shows while the text starts with a slash; the query is its first line after it", () => {
  assert.equal(slashQuery("/"), "");
  assert.equal(slashQuery("/every"), "every");
  assert.equal(slashQuery("/everything:simple_prompt and more\nsecond line"), "everything:simple_prompt and more");
  assert.equal(slashQuery("hello /x"), null);
  assert.equal(slashQuery(""), null);
  assert.equal(slashQuery(undefined), null);
});

test("each prompt is named /<server name>:<prompt name>, a failed server giving none", () => {
  assert.deepEqual(entries.map((e) => e.command), [
    "/everything:simple_prompt", "/everything:complex_prompt", "/Notes:summarise",
  ]);
  assert.equal(byCommand("/Notes:summarise").serverId, "notes");
});

test("filtered case-insensitively: those starting with the query first, then those containing it", () => {
  assert.equal(filterPrompts(entries, "").length, 3);
  assert.deepEqual(filterPrompts(entries, "notes").map((e) => e.command), ["/Notes:summarise"]);
  assert.deepEqual(filterPrompts(entries, "PROMPT").map((e) => e.command), ["/everything:simple_prompt", "/everything:complex_prompt"]);
  const reversed = filterPrompts([...entries].reverse(), "e").map((e) => e.command);
  assert.deepEqual(reversed, ["/everything:complex_prompt", "/everything:simple_prompt", "/Notes:summarise"],
    "those starting with it before those containing it, each in its order");
  assert.deepEqual(filterPrompts(entries, "s:s").map((e) => e.command), ["/Notes:summarise"], "across the colon");
  assert.deepEqual(filterPrompts(entries, "mary").map((e) => e.command), [], "no match");
});

test("a command typed whole and followed by text still matches", () => {
  assert.deepEqual(filterPrompts(entries, "everything:simple_prompt tell me").map((e) => e.command), ["/everything:simple_prompt"]);
  assert.deepEqual(filterPrompts(entries, "everything:simple_promptX").map((e) => e.command), []);
});

test("once chosen, the box keeps only what was written after the command", () => {
  const e = byCommand("/everything:simple_prompt");
  assert.equal(afterCommand("/everything:simple_prompt and then this", e), "and then this");
  assert.equal(afterCommand("/EVERYTHING:simple_prompt\nmore", e), "more");
  assert.equal(afterCommand("/everything:simple_prompt", e), "");
  assert.equal(afterCommand("/simp", e), "", "only the filter was typed");
  assert.equal(afterCommand("/everything:simple_promptish", e), "");
});

test("a prompt's arguments, the required ones checked", () => {
  const complex = byCommand("/everything:complex_prompt").prompt;
  assert.deepEqual(promptArgs(complex), [
    { name: "temperature", description: "Temperature setting", required: true },
    { name: "style", description: "Output style", required: false },
  ]);
  assert.deepEqual(promptArgs({ name: "x" }), []);
  assert.deepEqual(missingArguments(complex, {}), ["temperature"]);
  assert.deepEqual(missingArguments(complex, { temperature: "  " }), ["temperature"], "blank is missing");
  assert.deepEqual(missingArguments(complex, { temperature: "0.7" }), []);
  assert.deepEqual(argumentValues(complex, { temperature: "0.7", style: " ", other: "x" }), { temperature: "0.7" });
});

test("a plain message's body is its text", () => {
  assert.deepEqual(composeMessage({ draft: "  Hello  " }), { body: { content: "Hello" } });
  assert.deepEqual(composeMessage({ draft: "  " }), { empty: true });
  assert.equal(canSend(" ", null), false);
  assert.equal(canSend("x", null), true);
});

test("attachments go as {serverId, uri} each, at most 8", () => {
  const attachments = Array.from({ length: 9 }, (_, n) => ({ serverId: "everything", serverName: "everything", uri: `test://${n}`, name: `r${n}` }));
  const { body } = composeMessage({ draft: "Read these", attachments: attachments.slice(0, 2) });
  assert.deepEqual(body, { content: "Read these", attachments: [{ serverId: "everything", uri: "test://0" }, { serverId: "everything", uri: "test://1" }] });
  assert.equal(composeMessage({ draft: "x", attachments }).body.attachments.length, 8);
  assert.equal("attachments" in composeMessage({ draft: "x", attachments: [] }).body, false);
});

test("a prompt is sent with its arguments, and the text after it (which may be empty)", () => {
  const prompt = { entry: byCommand("/everything:complex_prompt"), values: { temperature: "0.7", style: "" } };
  assert.deepEqual(composeMessage({ draft: "", prompt }), {
    body: { content: "", prompt: { serverId: "everything", name: "complex_prompt", arguments: { temperature: "0.7" } } },
  });
  assert.equal(canSend("", prompt), true, "a prompt goes without text");
  const simple = { entry: byCommand("/everything:simple_prompt"), values: {} };
  const { body } = composeMessage({ draft: " and briefly ", prompt: simple, attachments: [{ serverId: "notes", uri: "n://1" }] });
  assert.deepEqual(body, {
    content: "and briefly",
    attachments: [{ serverId: "notes", uri: "n://1" }],
    prompt: { serverId: "everything", name: "simple_prompt", arguments: {} },
  });
});

test("a prompt missing a required argument is not sent: the missing ones are named", () => {
  const prompt = { entry: byCommand("/everything:complex_prompt"), values: { style: "terse" } };
  assert.deepEqual(composeMessage({ draft: "go", prompt }), { missing: ["temperature"] });
});

test("a conversation started by a prompt alone is named after its command", () => {
  const prompt = { entry: byCommand("/everything:simple_prompt"), values: {} };
  assert.equal(titleOf({ content: "" }, prompt), "/everything:simple_prompt");
  assert.equal(titleOf({ content: "Sum it up" }, prompt), "Sum it up");
  assert.equal(titleOf({ content: "Plain" }, null), "Plain");
});

// A server asks a question in the middle of a tool call (MCP elicitation): server-everything's
// trigger-elicitation-request, auto-approved for the assistant "Helper", asks for a form.
// The form shows inline in the call's block with the server's words and the fields of its
// schema, prefilled from their defaults; the person fills in the required name, ticks the
// box and accepts; the tool gets the answer and the model then answers the conversation.
//
// Set up by crates/switchboard/tests/web_ui.rs: server "everything" (server-everything) with
// `trigger-elicitation-request` auto-approved, assistant "Helper" allowed to use it, and a
// scripted model that calls `mcp__everything__trigger-elicitation-request` ({}) and then
// answers "Thanks, noted.".

import { assert, assertLabelled, callStatus, run, screenshot, signIn, toolCall } from "./harness.mjs";

const TOOL = "trigger-elicitation-request";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();
  await page.waitForFunction(() => document.getElementById("start-assistant")?.selectedOptions[0]?.textContent === "Helper");
  await page.getByLabel("Message").fill("Ask me something.");
  await page.getByLabel("Message").press("Enter");
  await page.waitForURL(/\/chat\/.+/);

  // The call runs (auto-approved) and the server's question shows inline, as a named form.
  await callStatus(page, TOOL, "invoking");
  const call = toolCall(page, TOOL);
  const form = call.getByRole("form", { name: "Question from everything" });
  await form.waitFor();
  assert.match(await form.innerText(), /Please provide inputs for the following fields:/);
  assert.equal(await call.getByRole("button", { name: "Approve" }).count(), 0, "no approval asked");
  // Screen readers hear that a question waits.
  await page.locator(".conversation > [role=status]", { hasText: "1 question from a server" }).waitFor({ state: "attached" });

  // Fields by their labels (the schema's titles); a default prefills its field (SEP-1034).
  // By role: the accessible name leaves out the required mark, which is hidden from it.
  const firstLine = form.getByRole("textbox", { name: "String with default", exact: true });
  assert.equal(await firstLine.inputValue(), "It was a dark and stormy night.");
  const name = form.getByRole("textbox", { name: "String", exact: true });
  assert.equal(await name.getAttribute("required"), "", "name is required");
  assert.equal(await name.inputValue(), "");
  await assertLabelled(page);
  await screenshot(page, "chat-server-question");

  // Accept without the required name: nothing is sent, the form says what is missing.
  await form.getByRole("button", { name: "Accept" }).click();
  await form.getByRole("alert").waitFor();
  assert.match(await form.getByRole("alert").innerText(), /name/);

  await name.fill("Ada Lovelace");
  await form.getByRole("checkbox", { name: "Boolean", exact: true }).check();
  await form.getByRole("button", { name: "Accept" }).click();

  // Answered: one line instead of the form, and the tool got the fields.
  await call.getByText("You answered: accepted").waitFor();
  assert.equal(await call.getByRole("form").count(), 0, "the form is gone");
  await callStatus(page, TOOL, "done");
  const result = await call.locator('[data-role="result"]').innerText();
  assert.match(result, /Name: Ada Lovelace/);
  assert.match(result, /Agreed to terms: true/);

  await page.locator("article.message.assistant .markdown").getByText("Thanks, noted.").waitFor();
  await page.getByRole("button", { name: "Send" }).waitFor();
  assert.ok(await call.getByText("You answered: accepted").isVisible(), "the answer stays shown after the run");
});

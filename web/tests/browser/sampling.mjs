// A server asks the model something in the middle of a tool call (MCP sampling):
// server-everything's trigger-sampling-request, auto-approved for the assistant "Helper".
// The request shows inline in the call's block (the server's messages, its system prompt, the
// model that answers, the token cap); the person edits the question and sends it to the model;
// the model's answer comes back for review, is edited and returned to the server, whose tool
// result carries it; the model then answers the conversation.
//
// Set up by crates/switchboard/tests/web_ui.rs: server "everything" with
// `trigger-sampling-request` auto-approved, assistant "Helper" using it, and a scripted model
// that calls the tool ({"prompt": "What is 2+2?"}), answers the sampling request "4", and then
// answers the conversation "The server's model was asked.". The model is "scripted".

import { assert, assertLabelled, callStatus, run, screenshot, signIn, toolCall } from "./harness.mjs";

const TOOL = "trigger-sampling-request";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();
  await page.waitForFunction(() => document.getElementById("start-assistant")?.selectedOptions[0]?.textContent === "Helper");
  await page.getByLabel("Message").fill("Ask your model.");
  await page.getByLabel("Message").press("Enter");
  await page.waitForURL(/\/chat\/.+/);

  // The request, for review.
  await callStatus(page, TOOL, "invoking");
  const call = toolCall(page, TOOL);
  const request = call.locator('form.sampling[data-stage="request"]');
  await request.waitFor();
  const shown = await request.innerText();
  assert.match(shown, /What is 2\+2\?/);
  assert.match(shown, /You are a helpful test server\./);
  assert.match(shown, /Model: scripted/);
  await assertLabelled(page);
  await screenshot(page, "chat-sampling-request");

  // Edited, then sent to the model.
  await request.locator("button.sampling-edit").click();
  await request.getByLabel("Turn 1 (user)").fill("What is 3+3?");
  await request.locator("button.sampling-send").click();

  // The model's answer, for review: edited and returned.
  const answer = call.locator('form.sampling[data-stage="answer"]');
  await answer.waitFor();
  const text = answer.locator("textarea.sampling-answer");
  assert.equal(await text.inputValue(), "4");
  await text.fill("six");
  await answer.locator("button.sampling-return").click();

  await callStatus(page, TOOL, "done");
  const result = await call.locator('[data-role="result"]').innerText();
  assert.match(result, /six/);
  await call.locator('[data-role="answered"]', { hasText: "Sampled by scripted" }).waitFor();
  await page.locator("article.message.assistant .markdown").getByText("The server's model was asked.").waitFor();
});

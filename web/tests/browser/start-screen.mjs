// The first screen's box does what an open conversation's does, before any conversation
// exists: a resource of the assistant's server attached from its picker and a server's
// prompt used as a slash command (its argument filled in) go with the first message; the
// conversation then opens with both shown on the message, named after its text.
//
// Set up by crates/switchboard/tests/web_ui.rs: server "everything" (server-everything) used
// by the assistant "Helper", and a scripted model that answers "Sunny in Lisbon." (the test
// checks what the model was sent).

import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();
  await page.waitForFunction(() => document.getElementById("start-assistant")?.selectedOptions[0]?.textContent === "Helper");
  await page.waitForFunction(() => document.activeElement?.id === "start-input");
  const box = page.locator("#start-input");

  // Attach a listed resource of Helper's server.
  await page.getByRole("button", { name: "Attach", exact: true }).click();
  const picker = page.locator("#resource-picker");
  const group = picker.locator('section.resource-group[data-server-id="everything"]');
  await group.locator('li.resource-row[data-uri="demo://resource/static/document/architecture.md"] button.resource-choose').click();
  await assertLabelled(page);
  await screenshot(page, "start-attach");
  await page.locator("button.resource-picker-close").click();
  assert.equal(await page.locator("ul.composer-chips > li.composer-chip").count(), 1);

  // A prompt as a slash command, with its argument, and a line of text.
  await box.fill("/args");
  const item = page.locator('#slash-list li.slash-item[data-command="/everything:args-prompt"]');
  await item.click();
  const form = page.locator('fieldset.prompt-form[data-command="/everything:args-prompt"]');
  await form.locator('input.prompt-arg[name="city"]').fill("Lisbon");
  await box.fill("Plan my day there.");
  await screenshot(page, "start-slash-prompt");
  await box.press("Enter");

  // The conversation opens, named after the text, its message with the prompt and resource.
  await page.waitForURL(/\/chat\/.+/);
  await page.getByRole("heading", { name: "Plan my day there." }).waitFor();
  const sent = page.locator("article.message.user").first();
  await sent.locator(".used-prompt span.prompt-chip").waitFor();
  assert.match(await sent.locator(".used-prompt").innerText(), /args-prompt/);
  assert.equal(await sent.locator(".message-attachments button.attachment-chip").count(), 1);
  await page.locator("article.message.assistant .markdown").getByText("Sunny in Lisbon.").waitFor();
  assert.equal(await page.locator("ul.composer-chips > li.composer-chip").count(), 0, "the open box starts empty");
});

// What a person sends besides text: a resource of the assistant's server attached
// from the composer's picker (a listed one, and a template filled in), and a server's prompt
// used as a slash command with its argument filled in a small form. Attaching subscribes to
// the resources, which server-everything acknowledges in its log: the server's card on the
// settings page shows that line in its Log panel.
//
// Set up by crates/switchboard/tests/web_ui.rs: server "everything" (server-everything) used
// by the assistant "Helper", and a scripted model that answers "Read both." and then
// "Sunny in Lisbon." (the test checks what the model was sent).

import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();
  await page.waitForFunction(() => document.getElementById("start-assistant")?.selectedOptions[0]?.textContent === "Helper");
  await page.getByLabel("Message").fill("Hello.");
  await page.getByLabel("Message").press("Enter");
  await page.waitForURL(/\/chat\/.+/);
  await page.locator("article.message.assistant .markdown").getByText("Read both.").waitFor();
  const box = page.locator("#composer-input");

  // Attach a listed resource and a template filled in.
  await page.getByRole("button", { name: "Attach", exact: true }).click();
  const picker = page.locator("#resource-picker");
  await picker.waitFor();
  const group = picker.locator('section.resource-group[data-server-id="everything"]');
  await group.locator('li.resource-row[data-uri="demo://resource/static/document/architecture.md"] button.resource-choose').click();
  const template = group.locator('div.resource-template[data-uri-template="demo://resource/dynamic/text/{resourceId}"]');
  await template.locator('input.template-var[data-var="resourceId"]').fill("42");
  await template.locator("button.template-add").click();
  await assertLabelled(page);
  await screenshot(page, "chat-attach");
  await page.locator("button.resource-picker-close").click();
  const chips = page.locator("ul.composer-chips > li.composer-chip");
  assert.equal(await chips.count(), 2);

  // A prompt as a slash command: the list, the argument form, then the turn.
  await box.fill("/args");
  const item = page.locator('#slash-list li.slash-item[data-command="/everything:args-prompt"]');
  await item.waitFor();
  await item.click();
  const form = page.locator('fieldset.prompt-form[data-command="/everything:args-prompt"]');
  await form.waitFor();
  await form.locator('input.prompt-arg[name="city"]').fill("Lisbon");
  await screenshot(page, "chat-slash-prompt");
  await page.getByRole("button", { name: "Send", exact: true }).click();

  // The sent message shows its prompt and its attachments.
  const sent = page.locator("article.message.user").last();
  await sent.locator(".used-prompt span.prompt-chip").waitFor();
  assert.match(await sent.locator(".used-prompt").innerText(), /args-prompt/);
  const attached = sent.locator(".message-attachments button.attachment-chip");
  assert.equal(await attached.count(), 2);
  await attached.nth(1).click();
  assert.match(await sent.locator("pre.attachment-text").innerText(), /Resource 42/);
  await page.locator("article.message.assistant .markdown").getByText("Sunny in Lisbon.").waitFor();
  assert.equal(await chips.count(), 0, "the chips are cleared once sent");

  // What the server logged, on its card: the subscriptions the attachments made.
  await page.getByRole("link", { name: "MCP servers" }).click();
  const card = page.locator('article.server-card[data-server-id="everything"]');
  await card.getByRole("button", { name: "Log", exact: true }).click();
  const log = card.getByRole("region", { name: "Log of everything" });
  await log.locator("ol.log-lines li", { hasText: "Received Subscribe Resource request" }).first().waitFor();
  await assertLabelled(page);
  await screenshot(page, "settings-server-log");
});

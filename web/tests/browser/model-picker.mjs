// The chat header's model picker, filled from the provider's models and remembered with the
// conversation; the chat's own system prompt and temperature, set beside it. The turn after
// the choice asks the model for them (the Rust side reads the model's requests).

import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByLabel("Message").fill("First, with the default.");
  // The box sends once the assistants are loaded (its Send button says when).
  await page.waitForFunction(() => document.querySelector(".start-composer button[type=submit]")?.disabled === false);
  await page.getByLabel("Message").press("Enter");
  await page.waitForURL(/\/chat\/.+/);
  await page.getByText("Default answer.").waitFor();

  const picker = page.getByLabel("Model");
  await picker.locator("option", { hasText: "scripted-small" }).waitFor({ state: "attached" });
  const options = await picker.locator("option").allInnerTexts();
  assert.deepEqual(options, ["Default (scripted-large)", "scripted-large", "scripted-small"]);
  const saved = page.waitForResponse((r) => r.url().endsWith("/settings") && r.request().method() === "PUT");
  await picker.selectOption("scripted-small");
  assert.equal((await saved).status(), 200);

  await page.getByRole("button", { name: "Chat settings" }).click();
  const settings = page.getByRole("form", { name: "Chat settings" });
  await settings.getByLabel("System prompt").fill("Answer in French.");
  await settings.getByLabel("Temperature").fill("0.5");
  await settings.getByRole("button", { name: "Save" }).click();
  await settings.getByText("Saved.").waitFor();
  await assertLabelled(page);
  await screenshot(page, "chat-model-picker");

  await page.getByLabel("Message").fill("Now in French.");
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByText("Réponse.").waitFor();

  // Remembered with the conversation.
  await page.reload();
  await page.getByText("Réponse.").waitFor();
  await page.getByLabel("Model").locator("option", { hasText: "scripted-small" }).waitFor({ state: "attached" });
  assert.equal(await page.getByLabel("Model").inputValue(), "scripted-small");
  await page.getByRole("button", { name: "Chat settings" }).click();
  assert.equal(await page.getByLabel("System prompt").inputValue(), "Answer in French.");
  assert.equal(await page.getByLabel("Temperature").inputValue(), "0.5");
});

// Providers that just work. With no provider yet, the page looks for a model server on this
// machine (the test's scripted model, on a port the settings list) and offers it; one click
// adds it. A provider's Test lists its models; a refused port and a wrong key say so in
// words. Moving a provider with a stored key to another origin asks first, saying why, and
// keeps the key once the person agrees.

import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

const LOCAL_URL = process.env.SB_LOCAL_URL;
const LOCAL_PORT = process.env.SB_LOCAL_PORT;
const KEYED_URL = process.env.SB_KEYED_URL;
const CLOSED_PORT = process.env.SB_CLOSED_PORT;

await run(async (page) => {
  await signIn(page, "/providers");

  // The first start's offer: found, shown, nothing added until the click.
  const offer = page.locator("section.local-offer");
  const found = offer.locator(`.found[data-port="${LOCAL_PORT}"]`);
  await found.getByText(`Local server on port ${LOCAL_PORT} is running at ${LOCAL_URL} with 2 models (llama3.2:latest, qwen3:8b).`).waitFor();
  assert.equal(await page.locator("article.card").count(), 0);
  await assertLabelled(page);
  await screenshot(page, "providers-local-offer");
  await found.getByRole("button", { name: `Add Local server on port ${LOCAL_PORT}` }).click();
  const local = page.getByRole("article", { name: `Local server on port ${LOCAL_PORT}` });
  await local.getByText("llama3.2:latest").waitFor();

  // Its Test lists its models.
  await local.getByRole("button", { name: "Test" }).click();
  await local.getByText("Reached: 2 models (llama3.2:latest, qwen3:8b).").waitFor();

  // Before saving: a port where nothing listens says so.
  await page.getByRole("button", { name: "Add provider" }).click();
  let dialog = page.getByRole("dialog", { name: "Add a provider" });
  await dialog.getByLabel("Name").fill("Keyed");
  await dialog.getByLabel("Base URL").fill(`http://127.0.0.1:${CLOSED_PORT}/v1`);
  await dialog.getByLabel("Default model").fill("scripted-large");
  await dialog.getByRole("button", { name: "Test" }).click();
  await dialog
    .getByRole("alert")
    .getByText(`nothing listens at 127.0.0.1:${CLOSED_PORT} (the connection was refused)`)
    .waitFor();
  // A wrong key says so.
  await dialog.getByLabel("Base URL").fill(KEYED_URL);
  await dialog.getByLabel("API key").fill("sk-wrong");
  await dialog.getByRole("button", { name: "Test" }).click();
  await dialog.getByRole("alert").getByText("the provider refused the API key (401").waitFor();
  await screenshot(page, "providers-test-wrong-key");
  // The right one is reached, and saved.
  await dialog.getByLabel("API key").fill("sk-right");
  await dialog.getByRole("button", { name: "Test" }).click();
  await dialog.getByText("Reached: 2 models (scripted-large, scripted-small).").waitFor();
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });

  // Another origin for the saved key: asked first, with why; agreed, saved with the key.
  const keyed = page.getByRole("article", { name: "Keyed" });
  await keyed.getByRole("button", { name: "Edit" }).click();
  dialog = page.getByRole("dialog", { name: "Edit Keyed" });
  assert.equal(await dialog.getByLabel("API key").inputValue(), "********");
  await dialog.getByLabel("Base URL").fill(LOCAL_URL);
  await dialog.getByRole("button", { name: "Save" }).click();
  const ask = dialog.locator('[data-role="key-origin"]');
  await ask
    .getByText(
      `The stored API key was used at ${new URL(KEYED_URL).origin}, and the new address is at ${new URL(LOCAL_URL).origin}: the key would be sent there.`,
    )
    .waitFor();
  await assertLabelled(page);
  await screenshot(page, "providers-key-new-origin");
  await ask.getByRole("button", { name: "Send the stored key there and save" }).click();
  await dialog.waitFor({ state: "detached" });
  await keyed.getByText(LOCAL_URL).waitFor();
});

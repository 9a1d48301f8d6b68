// Providers and credentials: a wrong token is refused by the prompt; a provider's key and an
// HTTP server's bearer token and header are shown masked and never reach the page; saving a
// masked key keeps the stored one (the model then receives it, which the Rust side checks),
// and the server dialog tests its masked edits with the saved secrets;
// an assistant picks the provider and chats through it.

import { BASE, TOKEN, assert, assertLabelled, run } from "./harness.mjs";

const KEY = "sk-ui-secret-4711";
const BEARER = "tok-ui-secret-0815";
const HEADER = "header-ui-secret-2323";
const LLM_URL = process.env.SB_LLM_URL;
const HTTP_URL = process.env.SB_EVERYTHING_HTTP;

await run(async (page) => {
  // A wrong token is refused; the right one signs in.
  await page.goto(`${BASE}/providers`);
  const prompt = page.getByRole("dialog", { name: "Sign in" });
  await prompt.getByLabel("API token").fill("sb_wrong");
  await prompt.getByRole("button", { name: "Sign in" }).click();
  await prompt.getByText("That token is not valid.").waitFor();
  await signInWith(page, prompt);

  // Add a provider with a key: it is shown masked.
  await page.getByRole("button", { name: "Add provider" }).click();
  let dialog = page.getByRole("dialog", { name: "Add a provider" });
  await assertLabelled(page);
  await dialog.getByLabel("Name").fill("Scripted");
  await dialog.getByLabel("Kind").selectOption("openai");
  await dialog.getByLabel("Base URL").fill(LLM_URL);
  await dialog.getByLabel("API key").fill(KEY);
  await dialog.getByLabel("Default model").fill("scripted-ui");
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  const card = page.getByRole("article", { name: "Scripted" });
  assert.equal(await card.locator('[data-role="key"]').innerText(), "********");

  // Edit it: the key field holds the mask; change the model and keep the key.
  await card.getByRole("button", { name: "Edit" }).click();
  dialog = page.getByRole("dialog", { name: "Edit Scripted" });
  assert.equal(await dialog.getByLabel("API key").inputValue(), "********");
  await dialog.getByLabel("Default model").fill("scripted-ui-2");
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  await card.getByText("scripted-ui-2").waitFor();

  // An HTTP server with a header and a bearer token.
  await page.getByRole("link", { name: "MCP servers" }).click();
  await page.getByRole("button", { name: "Add server" }).click();
  dialog = page.getByRole("dialog", { name: "Add an MCP server" });
  await dialog.getByLabel("Name").fill("remote");
  await dialog.getByLabel("Transport").selectOption("streamable_http");
  await dialog.getByLabel("URL").fill(HTTP_URL);
  await dialog.locator("#server-headers").getByRole("button", { name: "Add" }).click();
  await dialog.getByLabel("Header 1").fill("X-Team");
  await dialog.getByLabel("Value 1").fill(HEADER);
  await dialog.getByLabel("Authentication").selectOption("bearer");
  await dialog.getByLabel("Bearer token").fill(BEARER);
  await assertLabelled(page);
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  const server = page.locator('article.server-card[data-server-id="remote"]');
  await server.getByRole("button", { name: "Test connection" }).click();
  await server.locator(".test-report").getByText("get-sum", { exact: true }).waitFor();
  await server.getByRole("button", { name: "Edit" }).click();
  dialog = page.getByRole("dialog", { name: "Edit remote" });
  assert.equal(await dialog.getByLabel("Bearer token").inputValue(), "********");
  assert.equal(await dialog.getByLabel("Value 1").inputValue(), "********");
  // Testing the edits as they stand: the masked secrets are the saved ones.
  await dialog.getByRole("button", { name: "Test these settings" }).click();
  await dialog.locator(".test-report").getByText("get-sum", { exact: true }).waitFor();
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  await server.getByRole("button", { name: "Test connection" }).click();
  await server.locator(".test-report").getByText("get-sum", { exact: true }).waitFor();

  // An assistant on the provider, and a chat through it.
  await page.getByRole("link", { name: "Assistants" }).click();
  await page.getByRole("button", { name: "Add assistant" }).click();
  dialog = page.getByRole("dialog", { name: "Add an assistant" });
  await dialog.getByLabel("Name").fill("Keyed");
  await dialog.getByLabel("Provider").selectOption({ label: "Scripted" });
  await assertLabelled(page);
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  await page.getByRole("article", { name: "Keyed" }).getByText(/Scripted · provider's default model/).waitFor();

  await page.getByRole("link", { name: "Chat" }).click();
  await page.getByLabel("Assistant").selectOption({ label: "Keyed" });
  await page.getByRole("button", { name: "New chat" }).click();
  await page.waitForURL(/\/chat\/.+/);
  await page.getByLabel("Message").fill("Hello");
  await page.getByLabel("Message").press("Enter");
  await page.getByText("Hi from the keyed provider.").waitFor();
  await assertLabelled(page);

  // No secret was ever sent to the page.
  for (const path of ["/providers", "/settings/mcp"]) {
    await page.goto(BASE + path);
    await page.locator("article.card").first().waitFor();
    const seen = await page.content();
    for (const secret of [KEY, BEARER, HEADER, TOKEN]) assert.ok(!seen.includes(secret), `${secret} is on ${path}`);
  }

  // Deleting (the confirmation is accepted): the assistant, then the provider.
  await page.getByRole("link", { name: "Assistants" }).click();
  await page.getByRole("article", { name: "Keyed" }).getByRole("button", { name: "Delete" }).click();
  await page.getByText("No assistants yet.").waitFor();
  await page.getByRole("link", { name: "Providers" }).click();
  await page.getByRole("article", { name: "Scripted" }).getByRole("button", { name: "Delete" }).click();
  await page.getByText(/No providers stored/).waitFor();
});

async function signInWith(page, prompt) {
  await prompt.getByLabel("API token").fill(TOKEN);
  await prompt.getByRole("button", { name: "Sign in" }).click();
  await prompt.waitFor({ state: "detached" });
  await page.getByRole("heading", { name: "Providers" }).waitFor();
}

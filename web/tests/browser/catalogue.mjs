// Settings → MCP servers → Add from catalogue: set up the filesystem entry (its root folder
// is required: left blank, the form says so), add it, and see its card badged as a preset;
// then a ModelScope entry, whose API key is typed masked. The Rust side then checks what the
// API stored.

import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

const ROOT = process.env.SB_ROOT;

await run(async (page) => {
  await signIn(page, "/settings/mcp");
  const panel = page.getByRole("region", { name: "Add from catalogue" });
  const filesystem = panel.locator('li[data-entry="filesystem"]');
  await filesystem.waitFor();
  assert.match(await filesystem.innerText(), /read_file/);
  assert.match(await filesystem.innerText(), /@modelcontextprotocol\/server-filesystem@/);

  // Set up: the required root folder left blank is named, nothing is sent.
  await filesystem.getByRole("button", { name: "Set up" }).click();
  const form = filesystem.getByRole("form", { name: "Set up Filesystem" });
  await form.getByRole("button", { name: "Add" }).click();
  assert.match(await form.getByRole("alert").innerText(), /Fill in: Root folder/);

  await form.getByLabel("Root folder").fill(ROOT);
  await form.getByRole("button", { name: "Add" }).click();
  await panel.getByRole("status").getByText("Added filesystem.").waitFor();
  const card = page.locator('article.server-card[data-server-id="filesystem"]');
  await card.locator('[data-role="preset"]').getByText("From catalogue").waitFor();
  assert.ok((await card.locator(".address").innerText()).endsWith(ROOT));

  // A ModelScope preset: the API key is a password field.
  const search = panel.locator('li[data-entry="modelscope-search"]');
  await search.getByRole("button", { name: "Set up" }).click();
  const searchForm = search.getByRole("form", { name: "Set up Web search (ModelScope)" });
  const key = searchForm.getByLabel("ModelScope API key");
  assert.equal(await key.getAttribute("type"), "password");
  await key.fill("ms-browser-secret");
  await searchForm.getByRole("button", { name: "Add" }).click();
  const searchCard = page.locator('article.server-card[data-server-id="modelscope-search"]');
  await searchCard.locator('[data-role="preset"]').getByText("ModelScope preset").waitFor();
  assert.ok(!(await page.content()).includes("ms-browser-secret"), "the key is not shown");

  await assertLabelled(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, "settings-catalogue");
});

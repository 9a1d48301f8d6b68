// Deferred tools in the page. The MCP servers page says what each server's tools cost a
// request and searches the tools; the assistant editor sets "Helper" (server-everything,
// get-sum auto-approved) to deferred with echo pinned and shows what its tools cost; in a
// chat the model's search shows inline as a search with the tools it found, then the found
// tool's call, the same after a reload (at a phone's width). Set up by web_ui/deferred.rs.

import { assert, assertFits, assertLabelled, callStatus, run, screenshot, signIn, toolCall } from "./harness.mjs";

const TOKENS = /about [\d,]+ tokens per request/;

await run(async (page) => {
  await signIn(page, "/settings/mcp");
  const card = page.locator('article.server-card[data-server-id="everything"]');
  const cost = card.locator('[data-role="tool-cost"]');
  await cost.waitFor();
  assert.match(await cost.innerText(), new RegExp(`^\\d+ tools, ${TOKENS.source}$`));

  // The search box finds what a model's search would.
  await page.getByLabel("Words to search the tools for").fill("sum two numbers");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const results = page.getByRole("list", { name: "Tools found for “sum two numbers”" });
  await results.locator('li[data-tool-name="mcp__everything__get-sum"]').waitFor();
  assert.match(await results.locator("li").first().innerText(), /get-sum\s+everything/);
  await assertLabelled(page);
  await screenshot(page, "tool-search-settings");

  // The assistant editor: deferred, echo pinned, and the cost as saved (auto: all shown).
  await page.getByRole("link", { name: "Assistants" }).click();
  await page.getByRole("article", { name: "Helper" }).getByRole("button", { name: "Edit" }).click();
  let dialog = page.getByRole("dialog", { name: "Edit Helper" });
  let costs = dialog.locator('[data-role="tool-cost"]');
  await costs.locator('[data-role="cost-all"]').waitFor();
  assert.match(await costs.locator('[data-role="cost-all"]').innerText(), new RegExp(`^${TOKENS.source} \\(\\d+ tools\\)$`));
  assert.match(await costs.locator('[data-role="cost-deferred"]').innerText(), new RegExp(`^${TOKENS.source} \\(\\d+% less\\)$`));
  assert.equal(await costs.getAttribute("data-defers"), "false", "a few tools are all shown under auto");
  assert.equal(await dialog.getByLabel("Tool exposure").inputValue(), "auto");
  await dialog.getByLabel("Tool exposure").selectOption("deferred");
  await dialog.getByText("Only the pinned tools and a search").waitFor();
  const pinned = dialog.locator('.pinned-server[data-server-id="everything"]');
  await pinned.getByText("Pin single tools").click();
  await pinned.getByLabel("echo", { exact: true }).check();
  await pinned.getByText("Pin single tools (1 pinned)").waitFor();
  await dialog.locator('[data-role="exposure"]').scrollIntoViewIfNeeded();
  await assertLabelled(page);
  await screenshot(page, "assistant-tool-exposure");
  await dialog.getByRole("button", { name: "Save", exact: true }).click();
  await dialog.waitFor({ state: "detached" });

  // Opened again: as saved, and its runs now defer.
  await page.getByRole("article", { name: "Helper" }).getByRole("button", { name: "Edit" }).click();
  dialog = page.getByRole("dialog", { name: "Edit Helper" });
  costs = dialog.locator('[data-role="tool-cost"][data-defers="true"]');
  await costs.waitFor();
  assert.match(await costs.locator('[data-role="cost-now"]').innerText(), /defer the tools/);
  assert.equal(await dialog.getByLabel("Tool exposure").inputValue(), "deferred");
  await dialog.getByText("Pin single tools (1 pinned)").waitFor();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "detached" });

  // The chat: the model searches, then calls what it found.
  await page.getByRole("link", { name: "Chat" }).click();
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();
  await page.waitForFunction(() => document.getElementById("start-assistant")?.selectedOptions[0]?.textContent === "Helper");
  await page.getByLabel("Message").fill("What is 2 plus 3?");
  await page.getByLabel("Message").press("Enter");
  await page.waitForURL(/\/chat\/.+/);
  await searchShown(page);
  await callStatus(page, "get-sum", "done");
  assert.match(await toolCall(page, "get-sum").innerText(), /everything \/ get-sum/);
  await page.getByText("2 plus 3 is 5.").waitFor();
  await assertLabelled(page);
  await screenshot(page, "tool-search-chat");

  // Reloaded, at a phone's width: the same, and nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await callStatus(page, "get-sum", "done");
  await searchShown(page);
  await assertFits(page);
});

/** The model's search, inline: what it searched, the tools it found, no approval, no error. */
async function searchShown(page) {
  const search = page.getByRole("region", { name: "Searched tools for “sum two numbers”" });
  await search.waitFor();
  assert.equal(await search.getAttribute("data-status"), "done");
  const found = search.getByRole("list", { name: "Tools found" });
  await found.locator('li[data-tool-name="mcp__everything__get-sum"]').waitFor();
  assert.match(await found.locator('li[data-tool-name="mcp__everything__get-sum"]').innerText(), /get-sum\s+everything/);
  assert.match(await search.locator('[data-role="found-count"]').innerText(), /^found (\d+ tools|1 tool)$/);
  assert.equal(await search.getByRole("button").count(), 0, "nothing to approve");
  assert.equal((await search.locator("header .tool-name").innerText()).trim(), "Searched tools for “sum two numbers”");
  assert.equal(await search.locator(".result-error, .result-text").count(), 0, "no error, no raw result");
}

// Settings → MCP servers with an MCP node configured: the dialog offers "Runs on"
// with this machine and the node with its state; a server saved on the node shows "on NAME"
// and the node's health on its card (the node here is not running: down, with its error),
// and editing it keeps its node. The Rust side then checks what the API stored.

import { EVERYTHING, assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

const NODE = process.env.SB_NODE || "build-box";

await run(async (page) => {
  await signIn(page, "/settings/mcp");
  await page.getByRole("heading", { name: "MCP servers" }).waitFor();

  await page.getByRole("button", { name: "Add server" }).click();
  const dialog = page.getByRole("dialog", { name: "Add an MCP server" });
  const runsOn = dialog.getByLabel("Runs on");
  await runsOn.waitFor();
  assert.equal(await runsOn.inputValue(), "", "a new server runs on this machine");
  const options = await runsOn.locator("option").allInnerTexts();
  assert.equal(options[0], "This machine");
  assert.equal(options.length, 2, `${options}`);
  assert.match(options[1], new RegExp(`^${NODE} \\((connecting|down|up)\\)$`));

  await dialog.getByLabel("Name").fill("remote");
  await dialog.getByLabel("Transport").selectOption("stdio");
  await runsOn.selectOption(NODE);
  await dialog.getByLabel("Command").fill(EVERYTHING.program);
  await dialog.getByLabel("Arguments (one per line)").fill(EVERYTHING.args.join("\n"));
  await assertLabelled(page);
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });

  // The card names the node and shows it down (nothing listens at its address), its error
  // as the label's tooltip.
  const card = page.locator('article.server-card[data-server-id="remote"]');
  const node = card.locator('[data-role="node"]');
  await node.waitFor();
  assert.match(await node.innerText(), new RegExp(`on ${NODE}`));
  await card.locator('[data-role="node"].node-down').waitFor();
  assert.ok((await node.getAttribute("title")).length > 0, "the node's error is its tooltip");
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, "settings-mcp-node");

  // Editing keeps the node.
  await card.getByRole("button", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit remote" });
  assert.equal(await edit.getByLabel("Runs on").inputValue(), NODE);
  await edit.getByLabel("Call timeout (seconds)").fill("20");
  await edit.getByRole("button", { name: "Save" }).click();
  await edit.waitFor({ state: "detached" });
});

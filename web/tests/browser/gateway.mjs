// Settings → MCP gateway: a view made in the page (a name the server would refuse is caught
// first; then server-everything with two of its tools checked, under their own names), the
// tools that will ask a person and what clients without elicitation get, a token limited to
// it made and shown once, and the snippets for the three clients: Claude Desktop's launching
// this machine's switchboard on the same data as the signed-in admin, the others carrying the
// view's URL and that token. Claude Desktop's snippet is written to $SB_SNIPPET as copied;
// the Rust side runs it from another folder and checks what the API stored.

import { writeFileSync } from "node:fs";
import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/settings/mcp");
  const section = page.getByRole("region", { name: "MCP gateway" });
  await section.waitFor();
  await section.getByText("No views yet.").waitFor();

  await section.getByRole("button", { name: "New view" }).click();
  const dialog = page.getByRole("dialog", { name: "New view" });
  await dialog.locator("#view-name").fill("Desktop App");
  await dialog.getByLabel("everything", { exact: true }).check();
  await dialog.getByLabel("Every enabled tool").uncheck();
  await dialog.getByLabel("echo", { exact: true }).check();
  await dialog.getByLabel("get-sum", { exact: true }).check();
  await dialog.getByLabel("Tool names").selectOption("own");
  await dialog.getByRole("button", { name: "Save" }).click();
  const problems = dialog.getByRole("alert");
  await problems.getByText("The name must be 1 to 64 characters", { exact: false }).waitFor();
  await assertLabelled(page);

  await dialog.locator("#view-name").fill("desktop");
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  const item = section.locator('li[data-view="desktop"]');
  await item.waitFor();
  assert.match(await item.innerText(), /\/mcp\/v\/desktop/);
  assert.match(await item.innerText(), /everything/);

  await item.getByRole("button", { name: "Connect a client" }).click();
  const connect = page.getByRole("dialog", { name: "Connect a client to desktop" });
  await connect.getByText("No tokens for this view yet.").waitFor();
  const approvals = connect.getByRole("region", { name: "Approvals" });
  await approvals.getByText("These tools ask you before they run", { exact: false }).waitFor();
  assert.deepEqual(await approvals.locator("ul.asking code").allInnerTexts(), ["echo", "get-sum"]);
  await approvals.getByText("gets an error for them that says how to auto-approve", { exact: false }).waitFor();
  // Before a token exists the HTTP snippets hold a placeholder.
  assert.match(await connect.locator('[data-client="cursor"] pre').innerText(), /Bearer <token>/);
  await connect.getByLabel("Token label").fill("Claude Desktop");
  await connect.getByRole("button", { name: "Create a token" }).click();
  const secret = (await connect.locator("[data-secret]").innerText()).trim();
  assert.match(secret, /^sb_/);
  await connect.getByText("Copy this token now", { exact: false }).waitFor();
  await connect.locator(".view-tokens li").getByText("Claude Desktop").waitFor();

  const snippet = async (client) => JSON.parse(await connect.locator(`[data-client="${client}"] pre`).innerText());
  const claudeText = await connect.locator('[data-client="claude"] pre').innerText();
  const claude = JSON.parse(claudeText).mcpServers.switchboard;
  assert.match(claude.command, /^\/.*switchboard$/);
  assert.deepEqual(claude.args.slice(2), ["--user", "admin", "mcp", "--stdio", "--view", "desktop"]);
  assert.equal(claude.args[0], "--data-dir");
  assert.match(claude.args[1], /^\//);
  assert.ok(!claudeText.includes(secret), "Claude Desktop's local snippet carries no token");
  writeFileSync(process.env.SB_SNIPPET, claudeText);
  const cursor = await snippet("cursor");
  assert.equal(cursor.mcpServers.switchboard.url, new URL("/mcp/v/desktop", page.url()).href);
  assert.equal(cursor.mcpServers.switchboard.headers.Authorization, `Bearer ${secret}`);
  const vscode = await snippet("vscode");
  assert.equal(vscode.servers.switchboard.type, "http");
  assert.equal(vscode.servers.switchboard.headers.Authorization, `Bearer ${secret}`);

  // Copying says whether it worked (a headless browser may not grant the clipboard).
  await connect.locator('[data-client="vscode"]').getByRole("button", { name: "Copy" }).click();
  await connect.locator('[data-client="vscode"]').locator('[role="status"], [role="alert"]').waitFor();
  await assertLabelled(page);
  await screenshot(page, "gateway-connect");
});

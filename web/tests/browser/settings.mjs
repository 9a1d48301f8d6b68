// Settings → MCP servers: add server-everything over stdio through the edit dialog (testing
// the form's values first: a failing command, then the right one), test the connection,
// disable one tool and auto-approve another, try a tool through the form generated from its
// schema, and import a Claude Desktop file. The Rust side then checks what the API stored.

import { EVERYTHING, assert, assertFits, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/settings/mcp");
  await page.getByRole("heading", { name: "MCP servers" }).waitFor();

  // Add the server.
  await page.getByRole("button", { name: "Add server" }).click();
  const dialog = page.getByRole("dialog", { name: "Add an MCP server" });
  await dialog.getByLabel("Name").fill("everything");
  await dialog.getByLabel("Transport").selectOption("stdio");
  // No MCP node is configured: no "Runs on" choice (the server runs on this machine).
  assert.equal(await dialog.getByLabel("Runs on").count(), 0, "no node selector without nodes");
  await dialog.getByLabel("Command").fill("/nonexistent/mcp-server");
  await dialog.getByLabel("Call timeout (seconds)").fill("30");

  // Test the form's values before saving: a failure shows its code in the dialog, and in
  // words what to do about it...
  const testForm = dialog.getByRole("button", { name: "Test these settings" });
  await testForm.click();
  const failed = dialog.getByRole("alert");
  await failed.locator("code").waitFor();
  assert.match(
    await failed.innerText(),
    /could not start `\/nonexistent\/mcp-server`: `\/nonexistent\/mcp-server` was not found; check the path/,
  );

  // ...and the fixed values connect: server info and tools, still in the dialog.
  await dialog.getByLabel("Command").fill(EVERYTHING.program);
  await dialog.getByLabel("Arguments (one per line)").fill(EVERYTHING.args.join("\n"));
  await testForm.click();
  const tried = dialog.locator(".test-report");
  await tried.waitFor();
  assert.match(await tried.innerText(), /Connected to mcp-servers\/everything/);
  await tried.getByText("get-sum", { exact: true }).waitFor();
  assert.equal(await dialog.getByRole("alert").count(), 0, "the earlier error is gone");
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });

  const card = page.locator('article.server-card[data-server-id="everything"]');
  await card.waitFor();
  assert.match(await card.locator(".address").innerText(), /server-everything.*stdio/);

  // Test connection: server info and tools; the live status turns to connected.
  await card.getByRole("button", { name: "Test connection" }).click();
  const report = card.locator(".test-report");
  await report.waitFor();
  assert.match(await report.innerText(), /Connected to mcp-servers\/everything/);
  await report.getByText("get-sum", { exact: true }).waitFor();

  // Its tools come through the shared connection, whose live status turns to connected.
  await card.getByRole("button", { name: "Tools" }).click();
  await card.locator('[data-role="status"].status-connected').waitFor();

  // Switch tools: disable get-env, auto-approve echo.
  // Each switch is stored at once (waiting for its PUT is set up before the click).
  const stored = (tool) =>
    page.waitForResponse((r) => r.url().endsWith(`/tools/${tool}`) && r.request().method() === "PUT" && r.ok());
  await Promise.all([stored("get-env"), card.getByLabel("Enable get-env", { exact: true }).uncheck()]);
  await Promise.all([stored("echo"), card.getByLabel("Auto-approve echo", { exact: true }).check()]);
  // After the reload of the list, the switches show what was stored.
  await page.waitForFunction(() => {
    const env = document.querySelector('tr[data-tool="get-env"] input[aria-label="Enable get-env"]');
    const echo = document.querySelector('tr[data-tool="echo"] input[aria-label="Auto-approve echo"]');
    return env && !env.checked && echo && echo.checked;
  });

  // Try get-sum through its generated form: two number fields.
  await card.locator('tr[data-tool="get-sum"]').getByRole("button", { name: "Try" }).click();
  const form = card.locator('form.try-tool[data-tool="get-sum"]');
  const a = form.getByLabel(/^a/);
  const b = form.getByLabel(/^b/);
  assert.equal(await a.getAttribute("type"), "number");
  assert.equal(await b.getAttribute("type"), "number");
  await a.fill("2");
  await b.fill("3.5");
  await form.getByRole("button", { name: "Call" }).click();
  const result = form.locator('[data-role="result"]');
  await result.waitFor();
  assert.match(await result.innerText(), /The sum of 2 and 3\.5 is 5\.5/);

  // An enum becomes a select (get-structured-content's location).
  await card.locator('tr[data-tool="get-structured-content"]').getByRole("button", { name: "Try" }).click();
  const weather = card.locator('form.try-tool[data-tool="get-structured-content"]');
  const location = weather.locator("select");
  await location.selectOption("Chicago");
  await weather.getByRole("button", { name: "Call" }).click();
  await weather.locator('[data-role="result"]').waitFor();
  assert.match(await weather.locator('[data-role="result"]').innerText(), /temperature/i);

  await assertLabelled(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, "settings-mcp");

  // Import a Claude Desktop file: one HTTP server is added, one bad entry is reported.
  const file = {
    mcpServers: {
      "remote-docs": { url: "https://mcp.example.com/mcp", headers: { "X-Team": "docs" } },
      broken: { url: "ftp://example.com/mcp" },
    },
  };
  await page.getByLabel("Servers file").setInputFiles({
    name: "claude_desktop_config.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(file)),
  });
  const imported = page.locator(".import-report");
  await imported.waitFor();
  assert.match(await imported.innerText(), /Imported 1/);
  assert.match(await imported.innerText(), /broken skipped/);
  await page.locator('article.server-card[data-server-id="remote-docs"]').waitFor();

  // Editing shows every field of the stored server.
  await card.getByRole("button", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit everything" });
  await assertLabelled(page);
  assert.equal(await edit.getByLabel("Command").inputValue(), EVERYTHING.program);
  assert.equal(await edit.getByLabel("Call timeout (seconds)").inputValue(), "30");
  await edit.getByRole("button", { name: "Cancel" }).click();
  await edit.waitFor({ state: "detached" });

  // A phone's width: the cards and the open tool list fit.
  await page.setViewportSize({ width: 390, height: 844 });
  await assertFits(page);
});

// Settings → MCP servers, OAuth sign-in in the browser: an OAuth server's card
// offers "Sign in"; the authorization server's page opens in a new tab, the person approves
// there, the tab comes back through /oauth/callback to the settings page, which says so and
// shows the server connected. The Rust side then calls the server's tool with the new token.

import { assert, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/settings/mcp");
  const card = page.locator('article.server-card[data-server-id="notes"]');
  await card.waitFor();
  const signInButton = card.getByRole("button", { name: "Sign in" });
  await signInButton.waitFor();

  const opened = page.context().waitForEvent("page");
  await signInButton.click();
  const tab = await opened;
  // The authorization server's own page (peers/oauth_server.py): who asks, for what.
  await tab.locator("#client").waitFor();
  assert.match(await tab.locator("#client").innerText(), /Switchboard/);
  await screenshot(tab, "oauth-authorize");
  await tab.getByRole("button", { name: "Approve" }).click();

  // Back on Switchboard, through the callback, with the outcome on the page.
  await tab.waitForURL(/\/settings\/mcp/);
  await tab.getByText("Signed in to notes").waitFor();
  assert.ok(!tab.url().includes("signedIn"), `the query is cleared: ${tab.url()}`);
  const back = tab.locator('article.server-card[data-server-id="notes"]');
  await back.locator('[data-role="status"].status-connected').waitFor();
  await back.getByRole("button", { name: "Sign out" }).waitFor();
  await screenshot(tab, "settings-mcp-signed-in");
});

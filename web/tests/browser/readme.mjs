// The README's screenshots, from a realistic session: an assistant "Travel planner" with
// the reference time server (mcp-server-time from the catalogue), a real-looking question, the
// tool call with its result, and the answer. Set up by web_ui.rs
// readme_screenshot_of_a_realistic_session.

import { assert, callStatus, run, screenshot, signIn, toolCall } from "./harness.mjs";

const QUESTION = "My call with the Tokyo office is at 9:00 their time tomorrow. What time is that in Berlin?";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();
  await page.waitForFunction(() => document.getElementById("start-assistant")?.selectedOptions[0]?.textContent === "Travel planner");
  await page.getByLabel("Message").fill(QUESTION);
  await page.getByLabel("Message").press("Enter");
  await page.waitForURL(/\/chat\/.+/);
  await callStatus(page, "convert_time", "done");
  assert.match(await toolCall(page, "convert_time").innerText(), /time \/ convert_time/);
  await page.getByText("1:00 in Berlin").waitFor();
  await page.evaluate(() => document.activeElement?.blur());
  await screenshot(page, "readme-chat");

  // The MCP servers page: the time server connected, its test report and tools; the
  // catalogue's filesystem server beside it.
  await page.getByRole("link", { name: "MCP servers" }).click();
  const time = page.locator('article.server-card[data-server-id="time"]');
  await time.locator('[data-role="status"].status-connected').waitFor();
  await time.getByRole("button", { name: "Test connection" }).click();
  await time.getByText(/Connected to .* tools\./).waitFor();
  await time.getByRole("button", { name: "Test connection" }).waitFor();
  await time.getByRole("button", { name: "Tools" }).click();
  await time.getByText("convert_time").last().waitFor();
  await page.locator('article.server-card[data-server-id="filesystem"]').waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, "readme-settings");
});

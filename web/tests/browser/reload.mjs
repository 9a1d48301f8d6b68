// A page reloaded while a tool call waits for approval shows it waiting, and approving it
// after the reload finishes the turn. Then Stop cancels a run that waits, and a run that
// fails shows why.

import { assert, callStatus, run, signIn, toolCall } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("button", { name: "New chat" }).click();
  await page.waitForURL(/\/chat\/.+/);
  await page.getByLabel("Message").fill("Echo something for me.");
  await page.getByLabel("Message").press("Enter");
  await callStatus(page, "echo", "pending");

  await page.reload();
  await callStatus(page, "echo", "pending");
  const echo = toolCall(page, "echo");
  // By keyboard: the buttons are real buttons.
  await echo.getByRole("button", { name: "Approve" }).focus();
  await page.keyboard.press("Enter");
  await callStatus(page, "echo", "done");
  assert.match(await echo.innerText(), /Echo: after a reload/);
  await page.getByText("Echoed after the reload.").waitFor();

  // Stop: the next call waits; Stop cancels the run and the call with it.
  await page.getByRole("button", { name: "Send" }).waitFor();
  await page.getByLabel("Message").fill("Echo once more.");
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator('section.tool-call[data-tool="echo"][data-status="pending"]').waitFor();
  await page.getByRole("button", { name: "Stop" }).click();
  await callStatus(page, "echo", "cancelled");
  await page.getByRole("button", { name: "Send" }).waitFor();
  assert.equal(await page.locator('section.tool-call[data-status="pending"]').count(), 0);

  // A run that fails says why, and keeps saying it after the conversation is reloaded.
  const reloaded = page.waitForResponse(
    (r) => /\/api\/conversations\/[^/]+$/.test(new URL(r.url()).pathname) && r.request().method() === "GET",
  );
  await page.getByLabel("Message").fill("Fail, please.");
  await page.getByRole("button", { name: "Send" }).click();
  const failure = page.locator(".messages [role=alert]");
  await failure.waitFor();
  await reloaded;
  await page.getByRole("button", { name: "Send" }).waitFor();
  assert.match(await failure.innerText(), /key rejected/);
  assert.ok(await failure.isVisible(), "the failure stays after the reload");
});

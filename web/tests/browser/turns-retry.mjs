// A turn that failed still says why after the page is reloaded (its code, the words, what to
// do) with Retry; Retry runs it again, the page shows the model thinking until its answer
// begins, and the failure is gone. Then each message's Copy puts its text on the clipboard.

import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, "/");
  await page.getByRole("button", { name: "New chat" }).click();
  await page.waitForURL(/\/chat\/.+/);
  await page.getByLabel("Message").fill("Tell me a fact.");
  await page.getByLabel("Message").press("Enter");
  const failure = page.locator(".messages .turn-failure");
  const retry = failure.getByRole("button", { name: "Retry" });
  await retry.waitFor();

  await page.reload();
  await retry.waitFor();
  const said = await failure.innerText();
  assert.match(said, /This answer failed/);
  assert.match(said, /UPSTREAM_UNAVAILABLE/);
  assert.match(said, /key rejected/);
  assert.match(said, /try again later/i, "what to do");
  assert.equal(await failure.getAttribute("role"), "alert");
  await assertLabelled(page);
  await screenshot(page, "turn-failed");

  await retry.click();
  const thinking = page.locator('[data-role="thinking"]');
  await thinking.waitFor();
  assert.match(await thinking.innerText(), /Thinking/);
  const answer = page.locator("article.message.assistant").last();
  await answer.locator(".markdown").getByText("Octopuses have three hearts.").waitFor();
  await thinking.waitFor({ state: "detached" });
  assert.equal(await failure.count(), 0, "the failure went with the retry");

  await answer.getByRole("button", { name: "Copy" }).click();
  await answer.getByText("Copied").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "Octopuses have three hearts.");
  const question = page.locator("article.message.user").last();
  await question.getByRole("button", { name: "Copy" }).click();
  await question.getByText("Copied").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "Tell me a fact.");

  // As stored: one question, one answer, nothing failed.
  await page.reload();
  await page.getByText("Octopuses have three hearts.").waitFor();
  assert.equal(await page.locator("article.message").count(), 2);
  assert.equal(await failure.count(), 0);
});

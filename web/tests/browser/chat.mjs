// Assistants and chat: create an assistant that may use server-everything, chat with it
// (started from the first screen's box with Enter), approve two tool calls (one answers with
// an image) and reject a third, see every result inline and the final answer rendered from
// Markdown with nothing of its HTML run (the sanitiser strips it; the Content-Security-Policy
// would refuse it anyway). Then the same page at a phone's width.

import { assert, assertFits, assertLabelled, callStatus, run, screenshot, signIn, toolCall } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/assistants");

  await page.getByRole("button", { name: "Add assistant" }).click();
  const dialog = page.getByRole("dialog", { name: "Add an assistant" });
  await dialog.getByLabel("Name").fill("Helper");
  await dialog.getByLabel("System prompt").fill("You help with sums.");
  await dialog.getByLabel("Tool mode").selectOption("native");
  await dialog.getByLabel("Max rounds").fill("5");
  await dialog.getByLabel("everything").check();
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  const card = page.getByRole("article", { name: "Helper" });
  assert.match(await card.innerText(), /Servers: everything/);

  // The chat opens ready to type: the box has the focus, the assistant is chosen (the only
  // one), and Enter starts the conversation with it.
  await page.getByRole("link", { name: "Chat" }).click();
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();
  await page.waitForFunction(() => document.activeElement?.id === "start-input");
  await page.waitForFunction(() => document.getElementById("start-assistant")?.selectedOptions[0]?.textContent === "Helper");
  await assertLabelled(page);
  await page.getByLabel("Message").fill("Echo hello, show me the tiny image and add 2 and 3.");
  await page.getByLabel("Message").press("Enter");
  await page.waitForURL(/\/chat\/.+/);
  await page.getByText("with Helper").waitFor();

  // The conversation is named after its first message, in the list too.
  await page.getByRole("heading", { name: "Echo hello, show me the tiny image and add 2 and 3." }).waitFor();
  await page.getByRole("link", { name: "Echo hello, show me the tiny image and add 2 and 3." }).waitFor();

  // Three calls wait for a decision, each with its server, tool and arguments.
  for (const tool of ["echo", "get-tiny-image", "get-sum"]) await callStatus(page, tool, "pending");
  const echo = toolCall(page, "echo");
  assert.match(await echo.innerText(), /everything \/ echo/);
  assert.match(await echo.locator("pre.arguments").innerText(), /"message": "hello"/);
  assert.ok(await page.getByRole("button", { name: "Stop" }).isVisible(), "Stop shows while the run waits");

  await echo.getByRole("button", { name: "Approve" }).click();
  await callStatus(page, "echo", "done");
  assert.match(await echo.locator('[data-role="result"]').innerText(), /Echo: hello/);

  const image = toolCall(page, "get-tiny-image");
  await image.getByRole("button", { name: "Approve" }).click();
  await callStatus(page, "get-tiny-image", "done");
  const img = image.locator("img.result-image");
  await img.waitFor();
  assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), "the tool's image is shown");

  await toolCall(page, "get-sum").getByRole("button", { name: "Reject" }).click();
  await callStatus(page, "get-sum", "cancelled");
  const rejected = toolCall(page, "get-sum").locator('[data-role="status"]');
  assert.equal((await rejected.textContent()).trim(), "rejected", "a rejected call says so");

  // The final answer, rendered from Markdown; its HTML does not run.
  const answer = page.locator("article.message.assistant .markdown").last();
  await answer.getByText("All three handled").waitFor();
  assert.equal(await answer.locator("strong").first().innerText(), "approved");
  assert.equal(await answer.locator("script, [onerror], [onclick], iframe").count(), 0);
  assert.equal(await answer.locator("img[src]").count(), 0, "no image URL from the model is fetched");
  assert.equal(await answer.locator('a[href^="javascript"]').count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, "no script from the model ran");
  await page.getByRole("button", { name: "Send" }).waitFor();
  // Every result is still inline after the run.
  assert.match(await toolCall(page, "get-sum").innerText(), /Not run\s+REJECTED the user rejected this tool call/);
  await assertLabelled(page);
  await screenshot(page, "chat");

  // A phone's width: nothing scrolls sideways and the composer is there.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await callStatus(page, "echo", "done");
  await assertFits(page);
  assert.ok(await page.getByLabel("Message").isVisible());
  await screenshot(page, "chat-phone");
}, {
  // DOMPurify parses the answer in an inert document, where Chromium reports the inline
  // handler it refuses; what reaches the page has none, and __pwned stays unset.
  blocked: /inline event handler/,
});

// The approval card of a call offered through a tool node (set up by web_ui.rs: the demo
// server's echo, `text` mapped to the assistant's variable `greeting` and `steps` fixed)
// shows the arguments that will run, each mapped one tagged with where its value comes
// from, and what the model asked for under them; once approved, the arguments that ran.

import { assert, assertLabelled, callStatus, run, screenshot, signIn, toolCall } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByLabel("Assistant").selectOption({ label: "Greeter" });
  await page.getByRole("button", { name: "New chat" }).click();
  await page.waitForURL(/\/chat\/.+/);
  await page.getByLabel("Message").fill("Greet me.");
  await page.getByRole("button", { name: "Send" }).click();
  await callStatus(page, "echo", "pending");

  const echo = toolCall(page, "echo");
  assert.match(await echo.locator("summary").first().innerText(), /Arguments that will run/);
  const resolved = echo.locator('[data-role="resolved-arguments"]');
  const text = resolved.locator('[data-param="text"]');
  assert.match(await text.locator("dd code").innerText(), /^"Hello"$/);
  assert.equal(await text.getAttribute("data-mapped"), "true");
  assert.equal(await text.locator(".tag").innerText(), "from variable greeting");
  const steps = resolved.locator('[data-param="steps"]');
  assert.equal(await steps.locator("dd code").innerText(), "1");
  assert.equal(await steps.locator(".tag").innerText(), "fixed by the tool node");
  const delay = resolved.locator('[data-param="delay_ms"]');
  assert.equal(await delay.locator("dd code").innerText(), "0");
  assert.equal(await delay.getAttribute("data-mapped"), null, "the model's own argument");
  await echo.getByText("What the model asked for").click();
  assert.deepEqual(JSON.parse(await echo.locator(".model-asked pre.arguments").innerText()), { delay_ms: 0 });
  await assertLabelled(page);
  await screenshot(page, "approval-resolved-arguments");

  await echo.getByRole("button", { name: "Approve" }).click();
  await callStatus(page, "echo", "done");
  assert.match(await echo.locator("summary").first().innerText(), /Arguments that ran/);
  assert.match(await echo.locator('[data-role="result"]').innerText(), /Hello/);
  await page.getByText("Greeted.").waitFor();
});

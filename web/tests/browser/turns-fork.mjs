// A message edited and sent again starts the conversation over from it, and an answer
// regenerated is replaced: what came after the fork is gone from the page, and stays gone
// after a reload (web_ui.rs checks the model was not sent it either).

import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("button", { name: "New chat" }).click();
  await page.waitForURL(/\/chat\/.+/);
  const ask = async (text, answer) => {
    await page.getByLabel("Message").fill(text);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText(answer, { exact: true }).waitFor();
    await page.getByRole("button", { name: "Send" }).waitFor();
  };
  await ask("First question", "Answer one.");
  await ask("Second question", "Answer two.");
  const messages = page.locator("article.message");
  assert.equal(await messages.count(), 4);

  // Edit the first question: the box holds its text; Cancel leaves it as it was.
  const first = page.locator("article.message.user").first();
  await first.getByRole("button", { name: "Edit" }).click();
  const box = first.getByLabel("Edit your message");
  assert.equal(await box.inputValue(), "First question");
  await first.getByRole("button", { name: "Cancel" }).click();
  await box.waitFor({ state: "detached" });
  await first.getByRole("button", { name: "Edit" }).click();
  await box.fill("First question, put better");
  await first.getByText("the messages after it are removed").waitFor();
  await assertLabelled(page);
  await screenshot(page, "edit-message");
  await first.getByRole("button", { name: "Save and send" }).click();
  await page.getByText("Answer to the edit.", { exact: true }).waitFor();
  await page.getByRole("button", { name: "Send" }).waitFor();
  assert.equal(await messages.count(), 2);
  for (const gone of ["Second question", "Answer one.", "Answer two."]) {
    assert.equal(await page.getByText(gone, { exact: true }).count(), 0, `${gone} is gone`);
  }

  // Regenerate the answer: it is replaced.
  const answer = page.locator("article.message.assistant").last();
  await answer.locator('button[data-action="regenerate"]:not([disabled])').click();
  await page.getByText("Answer to the edit, again.", { exact: true }).waitFor();
  await page.getByRole("button", { name: "Send" }).waitFor();
  assert.equal(await page.getByText("Answer to the edit.", { exact: true }).count(), 0);
  assert.equal(await messages.count(), 2);

  await page.reload();
  await page.getByText("Answer to the edit, again.", { exact: true }).waitFor();
  assert.equal(await messages.count(), 2);
  assert.equal(await page.getByText("First question, put better", { exact: true }).count(), 1);
});

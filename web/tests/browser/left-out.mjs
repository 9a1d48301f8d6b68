// A turn started without a server that cannot be reached says so above its answer, in words
// ("GitHub is unreachable: its tools are left out") and in the reader's language, and still
// after a reload: the notice belongs to the turn.

import { assert, run, screenshot, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("button", { name: "New chat" }).click();
  await page.waitForURL(/\/chat\/.+/);
  await page.getByLabel("Message").fill("What can you do?");
  await page.getByLabel("Message").press("Enter");
  const notice = page.getByRole("list", { name: "Servers left out of this answer" });
  await notice.waitFor();
  assert.equal(await notice.innerText(), "GitHub is unreachable: its tools are left out");
  await page.getByText("Answered without GitHub.").waitFor();
  await screenshot(page, "left-out");

  await page.reload();
  await page.getByText("Answered without GitHub.").waitFor();
  assert.equal(await notice.innerText(), "GitHub is unreachable: its tools are left out");

  await page.getByLabel("Language").selectOption("zh-Hans");
  const chinese = page.getByRole("list", { name: "本次回答略过的服务器" });
  await chinese.waitFor();
  assert.equal(await chinese.innerText(), "无法连接 GitHub：已略过它的工具");
  await screenshot(page, "left-out-zh");
});

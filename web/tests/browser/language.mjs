// A browser set to Chinese gets the page in Chinese, sign-in prompt included, and the
// server's errors in Chinese with their hint under the message; the switch in the header
// turns the page to English at once and keeps that choice for the user (PATCH /api/me, which
// the Rust test checks), so a reload stays English although the browser asks for Chinese.

import { BASE, TOKEN, assert, run, screenshot } from "./harness.mjs";

await run(
  async (page) => {
    await page.goto(BASE + "/settings/mcp");
    const prompt = page.getByRole("dialog", { name: "登录" });
    await prompt.getByLabel("API 令牌").fill(TOKEN);
    await prompt.getByRole("button", { name: "登录" }).click();
    await prompt.waitFor({ state: "detached" });
    await page.getByRole("heading", { name: "MCP 服务器" }).waitFor();
    assert.equal(await page.getAttribute("html", "lang"), "zh-Hans");
    assert.ok(await page.getByRole("link", { name: "聊天" }).isVisible());

    // The server's own error, in Chinese, with what to do about it: a second "demo" server.
    await page.getByRole("button", { name: "添加服务器" }).click();
    const dialog = page.getByRole("dialog", { name: "添加 MCP 服务器" });
    await dialog.getByLabel("名称").fill("demo");
    await dialog.getByLabel("命令").fill("demo-command");
    await dialog.getByRole("button", { name: "保存" }).click();
    const alert = dialog.getByRole("alert");
    await alert.waitFor();
    const text = await alert.innerText();
    assert.match(text, /CONFLICT/);
    assert.match(text, /MCP 服务器 "demo" 已存在/, text);
    assert.match(await alert.locator(".hint").innerText(), /请刷新以查看当前状态/);
    await screenshot(page, "language-zh");
    await dialog.getByRole("button", { name: "取消" }).click();

    // Switched to English: at once, and kept for this user.
    const kept = page.waitForResponse((r) => r.url().endsWith("/api/me") && r.request().method() === "PATCH");
    await page.getByLabel("语言").selectOption("en-US");
    assert.equal((await kept).status(), 200);
    await page.getByRole("heading", { name: "MCP servers" }).waitFor();
    assert.ok(await page.getByRole("link", { name: "Chat" }).isVisible());
    assert.equal(await page.getAttribute("html", "lang"), "en-US");

    await page.reload();
    await page.getByRole("heading", { name: "MCP servers" }).waitFor();
    assert.ok(await page.getByRole("button", { name: "Add server" }).isVisible());
    await screenshot(page, "language-en");
  },
  { locale: "zh-CN" },
);

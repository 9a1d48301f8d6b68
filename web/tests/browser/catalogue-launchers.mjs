// Settings → MCP servers → Add from catalogue on a machine without Node.js: the Rust test
// started `serve` with a PATH that has `uvx` and no `npx`. Each npx entry says, before anyone
// clicks Set up, that npx is missing and to install Node.js; the uvx entries and the remote
// ones say nothing.

import { assert, assertLabelled, run, signIn } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/settings/mcp");
  const panel = page.getByRole("region", { name: "Add from catalogue" });
  const filesystem = panel.locator('li[data-entry="filesystem"]');
  await filesystem.waitFor();

  const notice = filesystem.locator('[data-role="launcher-missing"]');
  assert.match(
    await notice.innerText(),
    /^npx was not found on the machine Switchboard runs on: install Node\.js there/,
  );
  assert.equal(
    await filesystem.getByRole("button", { name: "Set up" }).getAttribute("aria-expanded"),
    "false",
    "the notice shows before Set up is clicked",
  );

  for (const name of ["git", "time", "modelscope-search"]) {
    const entry = panel.locator(`li[data-entry="${name}"]`);
    await entry.waitFor();
    assert.equal(await entry.locator('[data-role="launcher-missing"]').count(), 0, name);
  }
  await assertLabelled(page);
});

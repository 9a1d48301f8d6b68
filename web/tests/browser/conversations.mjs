// The conversation list: grouped by when each conversation was last active (Today, Previous
// 7 days, a month), searched by title and by the text of its messages, and a conversation
// renamed from its header (Escape keeps the old title; the new one is kept after a reload).
// At a desktop's width the list stands beside the chat and the header is not folded.
//
// Set up by crates/switchboard/tests/web_ui.rs: "Trip to Lisbon" (its message: "Book the
// 100% cotton tour"), "Groceries", "Quarterly report" (last active 3 days ago) and "Old
// ideas" (45 days ago).

import { assert, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

const DAY = 24 * 60 * 60 * 1000;

await run(async (page) => {
  await signIn(page, "/");
  const list = page.getByRole("complementary", { name: "Conversations" });
  const titles = async () => (await list.locator(".conversation-group li a").allInnerTexts()).map((s) => s.trim());
  const group = (key) => list.locator(`section.conversation-group[data-group="${key}"]`);

  // Desktop: the list beside the chat, the header's links in place, no Menu, no drawer button.
  await group("today").getByRole("link", { name: "Groceries" }).waitFor();
  assert.ok(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Assistants" }).isVisible());
  assert.equal(await page.getByRole("button", { name: "Menu" }).isVisible(), false);
  assert.equal(await page.getByRole("button", { name: "Conversations" }).isVisible(), false);

  // Grouped by date, newest first.
  assert.equal(await group("today").getByRole("heading").innerText(), "Today");
  assert.deepEqual(await group("today").locator("li a").allInnerTexts(), ["Groceries", "Trip to Lisbon"]);
  assert.equal(await group("week").getByRole("heading").innerText(), "Previous 7 days");
  assert.deepEqual(await group("week").locator("li a").allInnerTexts(), ["Quarterly report"]);
  const old = new Date(Date.now() - 45 * DAY);
  const month = `${old.getFullYear()}-${String(old.getMonth() + 1).padStart(2, "0")}`;
  const monthName = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long" }).format(old);
  assert.equal(await group(month).getByRole("heading").innerText(), monthName);
  assert.deepEqual(await group(month).locator("li a").allInnerTexts(), ["Old ideas"]);
  await screenshot(page, "chat-list-grouped");

  // Search: by a message's text, by a title (without case), nothing found, then all again.
  const search = page.getByRole("searchbox", { name: "Search conversations" });
  const searched = async (text) => {
    await search.fill(text);
    await list.locator(`.conversation-list[data-results-for="${text.trim()}"]`).waitFor();
    return titles();
  };
  assert.deepEqual(await searched("cotton"), ["Trip to Lisbon"]);
  assert.deepEqual(await searched("100%"), ["Trip to Lisbon"], "% is looked for, not a wildcard");
  assert.deepEqual(await searched("REPORT"), ["Quarterly report"]);
  assert.deepEqual(await searched("zebra"), []);
  await list.getByRole("status").getByText("No conversation holds “zebra”.").waitFor();
  await assertLabelled(page);
  assert.equal((await searched("")).length, 4);

  // Rename from the header: Escape keeps the old title; Enter saves the new one.
  await list.getByRole("link", { name: "Groceries" }).click();
  const heading = page.locator(".conversation-head h1");
  await page.getByRole("heading", { name: "Groceries" }).waitFor();
  await page.getByRole("button", { name: "Rename" }).click();
  const title = page.getByRole("textbox", { name: "Title" });
  assert.equal(await title.inputValue(), "Groceries");
  await title.fill("Not this");
  await title.press("Escape");
  assert.equal(await heading.innerText(), "Groceries");
  await page.waitForFunction(() => document.activeElement?.classList.contains("rename-button"));
  await page.getByRole("button", { name: "Rename" }).click();
  await title.fill("Shopping list");
  await assertLabelled(page);
  await screenshot(page, "chat-rename");
  await title.press("Enter");
  await page.getByRole("heading", { name: "Shopping list" }).waitFor();
  await list.getByRole("link", { name: "Shopping list" }).waitFor();
  assert.equal(await list.getByRole("link", { name: "Groceries" }).count(), 0);
  assert.deepEqual(await searched("shopping"), ["Shopping list"]);

  await page.reload();
  await page.getByRole("heading", { name: "Shopping list" }).waitFor();
  await list.getByRole("link", { name: "Shopping list" }).waitFor();
});

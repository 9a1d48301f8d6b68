// A phone's width (390 x 844): the header folds into a menu and the conversation list into
// a drawer. The Menu button opens the links (choosing one goes there and closes it); the
// Conversations button opens the drawer, which a tap outside, Escape or choosing a
// conversation closes. Nothing is wider than the screen, on any of these screens.
//
// Set up by crates/switchboard/tests/web_ui.rs: conversations "Groceries" and one with a
// long title without spaces.

import { assert, assertFits, assertLabelled, run, screenshot, signIn } from "./harness.mjs";

const LONG = "Averyveryverylongtitlewithoutanyspacesthatmustwrapratherthanwidenthepage";

await run(async (page) => {
  await signIn(page, "/");
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();
  const drawer = page.getByRole("complementary", { name: "Conversations" });
  const drawerButton = page.getByRole("button", { name: "Conversations" });
  const menu = page.getByRole("button", { name: "Menu" });
  const links = page.getByRole("navigation", { name: "Main" });

  // Folded: the header shows Menu, not its links; the list is closed.
  assert.ok(await menu.isVisible());
  assert.equal(await links.isVisible(), false);
  assert.equal(await drawer.isVisible(), false);
  assert.equal(await drawerButton.getAttribute("aria-expanded"), "false");
  await assertFits(page);
  await assertLabelled(page);
  await screenshot(page, "phone-start");

  // The menu: opened, its links go where they say and close it.
  await menu.click();
  assert.equal(await menu.getAttribute("aria-expanded"), "true");
  await links.getByRole("link", { name: "Assistants" }).click();
  await page.waitForURL(/\/assistants$/);
  await links.waitFor({ state: "hidden" });
  await assertFits(page);
  await menu.click();
  await screenshot(page, "phone-menu");
  await links.getByRole("link", { name: "Chat" }).click();
  await page.getByRole("heading", { name: "Start a conversation" }).waitFor();

  // The drawer: opened by its button, closed by a tap outside it, and by Escape.
  await drawerButton.click();
  await drawer.getByRole("link", { name: "Groceries" }).waitFor({ state: "visible" });
  assert.equal(await drawerButton.getAttribute("aria-expanded"), "true");
  await page.waitForFunction(() => document.getElementById("conversation-drawer").contains(document.activeElement));
  await drawer.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)));
  await assertFits(page);
  await assertLabelled(page);
  await screenshot(page, "phone-drawer");
  await page.mouse.click(370, 420);
  await drawer.waitFor({ state: "hidden" });
  await drawerButton.click();
  await drawer.getByRole("link", { name: "Groceries" }).waitFor({ state: "visible" });
  await page.keyboard.press("Escape");
  await drawer.waitFor({ state: "hidden" });
  await page.waitForFunction(() => document.activeElement?.classList.contains("drawer-button"));

  // Choosing a conversation opens it and closes the drawer; a long title wraps.
  await drawerButton.click();
  await drawer.getByRole("link", { name: LONG }).click();
  await page.getByRole("heading", { name: LONG }).waitFor();
  await drawer.waitFor({ state: "hidden" });
  assert.ok(await page.getByLabel("Message").isVisible());
  await assertFits(page);
  await screenshot(page, "phone-conversation");

  // Choosing the conversation already open closes it too.
  await drawerButton.click();
  await drawer.getByRole("link", { name: LONG }).click();
  await drawer.waitFor({ state: "hidden" });
}, { viewport: { width: 390, height: 844 } });

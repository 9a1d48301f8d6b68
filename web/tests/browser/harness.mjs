// What every browser scenario shares: Chromium driven by playwright-core (from the pinned
// test peers, never downloaded), the address and token of the `switchboard serve` the Rust
// test started, sign-in through the token prompt, screenshots, and a check that the page
// raised no error and broke no Content-Security-Policy rule.
//
// A scenario is `node web/tests/browser/<name>.mjs`, run by crates/switchboard/tests/web_ui.rs
// with SB_URL, SB_TOKEN, SB_SCREENSHOTS, SB_EVERYTHING and SWITCHBOARD_PEERS set.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

import { CHROMIUM, CHROMIUM_ARGS } from "../chromium.mjs";

const require = createRequire(join(need("SWITCHBOARD_PEERS"), "node", "package.json"));
const { chromium } = require("playwright-core");

export const BASE = need("SB_URL");
export const TOKEN = need("SB_TOKEN");
/** server-everything over stdio: {program, args}. */
export const EVERYTHING = JSON.parse(process.env.SB_EVERYTHING || "null");

function need(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through cargo test (web_ui.rs)`);
  return value;
}

/**
 * Runs `scenario(page)` in a fresh headless Chromium at `viewport`, then checks the page.
 * `blocked` names the Content-Security-Policy reports the scenario provokes on purpose (a
 * model's answer carrying an inline handler); any other report fails it. `locale` sets the
 * browser's language (default: English).
 */
export async function run(scenario, { viewport = { width: 1280, height: 860 }, blocked = null, locale } = {}) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const problems = [];
  try {
    // `locale`: the browser's language (navigator.languages, Accept-Language).
    const context = await browser.newContext({ viewport, ...(locale ? { locale } : {}) });
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
    page.on("console", (m) => {
      const text = m.text();
      if (!/Content.Security.Policy|Refused to/i.test(text)) return;
      if (blocked && blocked.test(text)) return;
      problems.push(`CSP: ${text}`);
    });
    page.on("dialog", (d) => d.accept());
    await scenario(page);
    assert.deepEqual(problems, [], "the page raised errors");
  } catch (e) {
    console.error(`scenario failed: ${e.stack || e}`);
    if (problems.length) console.error(problems.join("\n"));
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}

/** Opens `path` and signs in through the token prompt the first 401 brings up. */
export async function signIn(page, path = "/") {
  await page.goto(BASE + path);
  const prompt = page.getByRole("dialog", { name: "Sign in" });
  await prompt.getByLabel("API token").fill(TOKEN);
  await prompt.getByRole("button", { name: "Sign in" }).click();
  await prompt.waitFor({ state: "detached" });
}

/**
 * Every visible control on the page (dialogs included) has an accessible name from a label,
 * a legend-less aria-label or aria-labelledby: keyboard and screen-reader users can tell
 * what each one is. Answers nothing; throws naming the unlabelled ones.
 */
export async function assertLabelled(page) {
  const unnamed = await page.evaluate(() => {
    const named = (el) =>
      (el.labels && el.labels.length > 0) || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby");
    return [...document.querySelectorAll("input, select, textarea, button")]
      .filter((el) => el.type !== "hidden" && el.getClientRects().length > 0)
      .filter((el) => (el.tagName === "BUTTON" ? !el.textContent.trim() && !named(el) : !named(el)))
      .map((el) => el.outerHTML.slice(0, 120));
  });
  assert.deepEqual(unnamed, [], "controls without a name");
}

/** Nothing on the page is wider than the window (no sideways scrolling at phone width). */
export async function assertFits(page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the window`);
}

export async function screenshot(page, name) {
  const dir = process.env.SB_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
}

/** The tool-call block of `tool` (its status in `data-status`). */
export function toolCall(page, tool) {
  return page.locator(`section.tool-call[data-tool="${tool}"]`).last();
}

/** Waits until the block of `tool` has `status`. */
export async function callStatus(page, tool, status) {
  await page.locator(`section.tool-call[data-tool="${tool}"][data-status="${status}"]`).last().waitFor();
}

export { assert };

// A server's log panel (GET /api/mcp-servers/{id}/logs, oldest first): lines listed newest
// first, each level's badge coloured by severity and named in the reader's language, and the
// local time of day as HH:MM:SS.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n, install } from "../../js/i18n.js";
import { clockTime, levelClass, levelText, newestFirst } from "../../js/mcp/server-log.js";

const FILES = {
  "en-US": JSON.parse(readFileSync(new URL("../../../locales/en-US.json", import.meta.url), "utf8")),
  "zh-Hans": JSON.parse(readFileSync(new URL("../../../locales/zh-Hans.json", import.meta.url), "utf8")),
};
const i18n = createI18n({ load: async (tag) => FILES[tag], storage: null, remember: async () => {} });
install(i18n);
await i18n.start(["en-US"]);

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

test("the lines are listed newest first, and the API's array is left as it came", () => {
  const lines = [
    { at: 1000, level: "info", text: "started" },
    { at: 2000, level: "warning", text: "slow" },
    { at: 2000, level: "error", text: "failed" },
  ];
  assert.deepEqual(newestFirst(lines).map((l) => l.text), ["failed", "slow", "started"]);
  assert.equal(lines[0].text, "started");
  assert.deepEqual(newestFirst([]), []);
  assert.deepEqual(newestFirst(null), []);
});

test("debug, info and notice are muted, warning amber, error and above red", () => {
  assert.deepEqual(
    LEVELS.map(levelClass),
    ["level-muted", "level-muted", "level-muted", "level-warning", "level-error", "level-error", "level-error", "level-error"],
  );
  // A level this UI does not know is neither hidden nor alarming.
  assert.equal(levelClass("verbose"), "level-muted");
  assert.equal(levelClass(undefined), "level-muted");
});

test("every level has a name in both languages; an unknown one is shown as the server names it", async () => {
  assert.equal(levelText("warning"), "warning");
  assert.equal(levelText("verbose"), "verbose");
  await i18n.choose("zh-Hans", false);
  try {
    assert.equal(levelText("error"), "错误");
    for (const level of LEVELS) {
      const key = `ui.log.level_${level}`;
      assert.ok(FILES["en-US"][key] && FILES["zh-Hans"][key], `${key} in both files`);
      assert.notEqual(levelText(level), key, key);
    }
  } finally {
    await i18n.choose("en-US", false);
  }
});

test("the time of day is local HH:MM:SS, padded and on a 24-hour clock", () => {
  assert.equal(clockTime(new Date(2024, 0, 2, 3, 4, 5)), "03:04:05");
  assert.equal(clockTime(new Date(2024, 11, 31, 23, 59, 59, 999)), "23:59:59");
  assert.equal(clockTime(new Date(2024, 5, 1, 0, 0, 0)), "00:00:00");
  assert.equal(clockTime(new Date(Number.NaN)), "--:--:--");
});

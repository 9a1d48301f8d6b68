// The UI's languages: the browser's languages pick zh-Hans or en-US as the server does, the
// switch shows the page in the chosen language at once and keeps the choice (through the API
// when signed in, in this browser otherwise), and every string comes from the locale files.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n, format, pickLocale } from "../../js/i18n.js";

const FILES = {
  "en-US": JSON.parse(readFileSync(new URL("../../../locales/en-US.json", import.meta.url), "utf8")),
  "zh-Hans": JSON.parse(readFileSync(new URL("../../../locales/zh-Hans.json", import.meta.url), "utf8")),
};

function memoryStorage() {
  const items = new Map();
  return {
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => items.set(k, String(v)),
    items,
  };
}

function setup() {
  const storage = memoryStorage();
  const remembered = [];
  const loaded = [];
  const i18n = createI18n({
    load: async (locale) => {
      loaded.push(locale);
      return FILES[locale];
    },
    storage,
    remember: async (locale) => remembered.push(locale),
  });
  return { i18n, storage, remembered, loaded };
}

test("the browser's languages choose the locale, simplified Chinese as zh-Hans", () => {
  assert.equal(pickLocale(["zh-CN", "en"]), "zh-Hans");
  assert.equal(pickLocale(["zh"]), "zh-Hans");
  assert.equal(pickLocale(["zh-SG"]), "zh-Hans");
  assert.equal(pickLocale(["zh-Hans-CN"]), "zh-Hans");
  assert.equal(pickLocale(["fr-FR", "zh-CN"]), "zh-Hans", "a language we lack is skipped");
  assert.equal(pickLocale(["zh-TW", "en-US"]), "en-US");
  assert.equal(pickLocale(["en-GB", "zh-CN"]), "en-US");
  assert.equal(pickLocale(["de"]), "en-US");
  assert.equal(pickLocale([]), "en-US");
  assert.equal(pickLocale(undefined), "en-US");
});

test("placeholders are filled and unknown ones kept", () => {
  assert.equal(format("Edit {name} {other}", { name: "x" }), "Edit x {other}");
  assert.equal(format("{count} 个", { count: 0 }), "0 个");
});

test("the switch shows the chosen language at once and keeps it in this browser when signed out", async () => {
  const { i18n, storage, remembered } = setup();
  assert.equal(await i18n.start(["en-US"]), "en-US");
  assert.equal(i18n.t("ui.chat.send"), "Send");
  const changes = [];
  i18n.onChange((locale) => changes.push(locale));

  assert.equal(await i18n.choose("zh-Hans", false), "zh-Hans");
  assert.equal(i18n.locale(), "zh-Hans");
  assert.equal(i18n.t("ui.chat.send"), "发送");
  assert.equal(i18n.t("ui.server.edit_title", { name: "everything" }), "编辑 everything");
  assert.deepEqual(changes, ["zh-Hans"]);
  assert.equal(storage.items.get("switchboard.locale"), "zh-Hans");
  assert.deepEqual(remembered, [], "no API call when signed out");

  // The next visit starts in the stored choice, whatever the browser says.
  const again = createI18n({ load: async (l) => FILES[l], storage, remember: async () => {} });
  assert.equal(await again.start(["en-US"]), "zh-Hans");
  // An unknown choice changes nothing.
  assert.equal(await i18n.choose("fr", false), "zh-Hans");
});

test("signed in, the choice is stored for the user, and their stored choice wins", async () => {
  const { i18n, remembered } = setup();
  await i18n.start(["zh-CN"]);
  assert.equal(i18n.locale(), "zh-Hans");
  await i18n.choose("en-US", true);
  assert.deepEqual(remembered, ["en-US"]);
  assert.equal(i18n.t("ui.nav.sign_out"), "Sign out");

  // GET /api/me says the user chose zh-Hans on another device.
  assert.equal(await i18n.adopt("zh-Hans"), "zh-Hans");
  assert.equal(i18n.t("ui.nav.sign_out"), "退出登录");
  // No preference stored: the page stays as it is.
  assert.equal(await i18n.adopt(null), "zh-Hans");
});

test("a key the files lack shows as itself, so it is noticed", async () => {
  const { i18n } = setup();
  await i18n.start(["en"]);
  assert.equal(i18n.t("ui.no.such.key"), "ui.no.such.key");
});

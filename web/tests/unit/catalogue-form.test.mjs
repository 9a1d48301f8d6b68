// "Add from catalogue" (web/js/mcp/catalogue-form.js): the form of an entry's settings and the
// body it sends, as properties over random entries and forms, then examples.
//
//   SWITCHBOARD_PEERS=$PWD/.peers node --test web/tests/unit/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { createI18n, install } from "../../js/i18n.js";
import {
  bodyFrom, fieldType, formFor, launcherNotice, launchLine, missing, presetBadge, presetsById,
} from "../../js/mcp/catalogue-form.js";

const require = createRequire(
  process.env.SWITCHBOARD_PEERS ? process.env.SWITCHBOARD_PEERS + "/node/" : new URL("../../../.peers/node/", import.meta.url),
);
const fc = require("fast-check");

const RUNS = { numRuns: Number(process.env.FC_NUM_RUNS) || 300 };

const settingArb = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/),
  label: fc.string({ minLength: 1, maxLength: 10 }),
  kind: fc.constantFrom("path", "secret", "text"),
  required: fc.boolean(),
});
const entryArb = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
  settings: fc.uniqueArray(settingArb, { selector: (s) => s.name, maxLength: 5 }),
});
// A form as a person leaves it: any value (blank, spaces, text) for each setting, maybe a
// stray key that is no setting, and any server name.
const caseArb = entryArb.chain((entry) =>
  fc.record({
    entry: fc.constant(entry),
    values: fc.record(
      Object.fromEntries(entry.settings.map((s) => [s.name, fc.oneof(fc.constant(""), fc.constant("  "), fc.string())])),
    ),
    stray: fc.option(fc.string({ minLength: 1, maxLength: 5 }), { nil: undefined }),
    name: fc.oneof(fc.constant(entry.name), fc.string()),
  }),
);

test("the body holds only the entry's settings that are filled in, trimmed", () => {
  fc.assert(
    fc.property(caseArb, ({ entry, values, stray, name }) => {
      const form = { name, values: { ...values } };
      if (stray !== undefined && !entry.settings.some((s) => s.name === stray)) form.values[stray] = "x";
      const body = bodyFrom(entry, form);
      const names = new Set(entry.settings.map((s) => s.name));
      for (const [key, value] of Object.entries(body.settings)) {
        assert.ok(names.has(key), `unknown setting ${key}`);
        assert.equal(value, value.trim());
        assert.notEqual(value, "");
        assert.equal(value, String(values[key]).trim());
      }
      for (const setting of entry.settings) {
        if (String(values[setting.name]).trim()) assert.ok(setting.name in body.settings);
      }
      // The name is sent only when it is another than the entry's own.
      if ("name" in body) assert.notEqual(body.name, entry.name);
      else assert.ok(!name.trim() || name.trim() === entry.name);
    }),
    RUNS,
  );
});

test("nothing is missing exactly when every required setting has a value", () => {
  fc.assert(
    fc.property(caseArb, ({ entry, values }) => {
      const form = { name: entry.name, values };
      const blank = missing(entry, form);
      const body = bodyFrom(entry, form);
      const complete = entry.settings.filter((s) => s.required).every((s) => s.name in body.settings);
      assert.equal(blank.length === 0, complete);
      assert.deepEqual(blank, entry.settings.filter((s) => s.required && !(s.name in body.settings)).map((s) => s.label));
    }),
    RUNS,
  );
});

test("a new form is blank, named after the entry, and sends no settings", () => {
  fc.assert(
    fc.property(entryArb, (entry) => {
      const form = formFor(entry);
      assert.equal(form.name, entry.name);
      assert.deepEqual(Object.keys(form.values).sort(), entry.settings.map((s) => s.name).sort());
      assert.deepEqual(bodyFrom(entry, form), { settings: {} });
    }),
    RUNS,
  );
});

test("a secret is typed masked, other settings in the clear", () => {
  assert.equal(fieldType("secret"), "password");
  assert.equal(fieldType("path"), "text");
  assert.equal(fieldType("text"), "text");
});

test("an entry's launch is one line, and preset marks become badges by server", () => {
  assert.equal(
    launchLine({ launch: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem@1.0.0", "{{root}}"] } }),
    "npx -y @modelcontextprotocol/server-filesystem@1.0.0 {{root}}",
  );
  assert.equal(launchLine({ launch: { url: "https://mcp.modelscope.cn/servers/fetch" } }), "https://mcp.modelscope.cn/servers/fetch");
  assert.deepEqual(presetsById([{ serverId: "notes", presetType: "reference" }]), { notes: "reference" });
  assert.equal(presetBadge(undefined), null);
  assert.equal(typeof presetBadge("reference"), "string");
  assert.notEqual(presetBadge("modelscope"), presetBadge("reference"));
});

test("the example of the issue: a filesystem root, trimmed, under another name", () => {
  const fs = { name: "filesystem", settings: [{ name: "root", label: "Root folder", kind: "path", required: true }] };
  assert.deepEqual(missing(fs, formFor(fs)), ["Root folder"]);
  assert.deepEqual(bodyFrom(fs, { name: "notes", values: { root: " /srv/notes " } }), {
    name: "notes",
    settings: { root: "/srv/notes" },
  });
});

test("a missing launcher says what to install, before anyone sets the entry up", async () => {
  const english = JSON.parse(readFileSync(new URL("../../../locales/en-US.json", import.meta.url), "utf8"));
  const i18n = createI18n({ load: async () => english, storage: null, remember: async () => {} });
  install(i18n);
  await i18n.start(["en-US"]);
  assert.equal(launcherNotice({ name: "time" }), null);
  const npx = launcherNotice({ missingLauncher: { command: "npx", advice: "install_node" } });
  assert.match(npx, /^npx was not found .*install Node\.js/);
  const uvx = launcherNotice({ missingLauncher: { command: "uvx", advice: "install_uv" } });
  assert.match(uvx, /install uv/);
  const other = launcherNotice({ missingLauncher: { command: "my-server", advice: "install" } });
  assert.match(other, /my-server was not found on the PATH/);
});


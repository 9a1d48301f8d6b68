// The tool form rendered in headless Chromium: each property of random schemas gets the
// control its type says, with a label, and a form filled in by typing collects the right
// arguments. The page loads web/ as the server would (same CSP), through page.route, with
// no server. Skipped, saying so, when Chromium is not installed.
//
//   SWITCHBOARD_PEERS=$PWD/.peers node --test web/tests/unit/
//   SWITCHBOARD_CHROMIUM=/path/to/chrome   another browser binary (default /usr/bin/chromium)
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { idFor, nameOf } from "../../js/schema-form.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../chromium.mjs";

const require = createRequire(
  process.env.SWITCHBOARD_PEERS ? process.env.SWITCHBOARD_PEERS + "/node/" : new URL("../../../.peers/node/", import.meta.url),
);
const fc = require("fast-check");

const WEB = resolve(fileURLToPath(new URL("../../", import.meta.url)));
const SKIP = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM}: apt-get install chromium, or set SWITCHBOARD_CHROMIUM`;
// The policy crates/switchboard-server/src/web.rs sends with every page.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
const TYPES = { ".js": "text/javascript", ".html": "text/html", ".css": "text/css", ".json": "application/json" };

const PAGE_HTML = `<!doctype html><meta charset="utf-8"><title>schema form test</title>
<div id="root"></div><script type="module" src="/test/page.js"></script>`;
const PAGE_JS = `
import { h, render } from "/vendor/preact.js";
import { useMemo, useState } from "/vendor/hooks.js";
import htm from "/vendor/htm.js";
import { SchemaForm, collect, fieldFor, initialValue } from "/js/schema-form.js";
import { createI18n, install } from "/js/i18n.js";
const html = htm.bind(h);
// The form's words in English, from the locale file as the server serves it.
const i18n = createI18n({ load: async (l) => (await fetch(\`/api/locales/\${l}\`)).json(), storage: null });
install(i18n);
await i18n.start(["en-US"]);
function App({ schema, prefix }) {
  const field = useMemo(() => fieldFor(schema), [schema]);
  const [state, setState] = useState(() => initialValue(field));
  const out = collect(field, state);
  return html\`<form onSubmit=\${(e) => e.preventDefault()}>
    <\${SchemaForm} schema=\${schema} value=\${state} onChange=\${setState} idPrefix=\${prefix} errors=\${out.errors} />
  </form><pre id="out">\${JSON.stringify(out)}</pre>\`;
}
let mounted = 0;
// The schema comes as JSON text: Playwright's own transfer would drop a "__proto__" key.
window.mount = (json, prefix) =>
  render(html\`<\${App} key=\${++mounted} schema=\${JSON.parse(json)} prefix=\${prefix} />\`, document.getElementById("root"));
window.ready = true;
`;

// ---- random schemas with what each property must look like ------------------------------

const keyArb = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/u) },
  { weight: 1, arbitrary: fc.constantFrom("a.b", "a b", "__proto__", "0", "é", "x-y") },
);
const { node: nodeArb } = fc.letrec((tie) => ({
  node: fc.oneof({ maxDepth: 3, depthSize: "small" }, tie("leaf"), tie("leaf"), tie("object"), tie("array"), tie("wrap")),
  leaf: fc.oneof(
    fc.constantFrom("string", "long", "number", "integer", "boolean", "json").map((t) => ({ t })),
    fc.record({
      t: fc.constant("enum"),
      values: fc.uniqueArray(fc.oneof(fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,6}$/u), fc.integer({ min: -99, max: 99 })), {
        minLength: 1,
        maxLength: 5,
      }),
    }),
  ),
  object: fc.record({
    t: fc.constant("object"),
    props: fc.uniqueArray(fc.tuple(keyArb, tie("node"), fc.boolean()), { minLength: 1, maxLength: 4, selector: (p) => p[0] }),
  }),
  array: fc.record({ t: fc.constant("array"), item: tie("node") }),
  wrap: fc.record({ t: fc.constant("wrap"), how: fc.constantFrom("ref", "nullable", "anyOfNull"), inner: tie("node") }),
}));

/** `spec` as JSON Schema (refs go into defs) and what it must render: {kind, options?, ...}. */
function build(spec, defs) {
  switch (spec.t) {
    case "string":
      return [{ type: "string", description: "some text" }, { kind: "text" }];
    case "long":
      return [{ type: "string", maxLength: 2000 }, { kind: "text", multiline: true }];
    case "number":
    case "integer":
      return [{ type: spec.t }, { kind: spec.t }];
    case "boolean":
      return [{ type: "boolean" }, { kind: "checkbox" }];
    case "json":
      return [{ description: "any value" }, { kind: "json" }];
    case "enum":
      return [{ enum: spec.values }, { kind: "select", options: spec.values.map(String) }];
    case "object": {
      // Kept in the order a JSON object keeps its keys (integer-like keys first).
      const built = Object.fromEntries(spec.props.map(([k, s, req]) => [k, [...build(s, defs), req]]));
      const keys = Object.keys(built);
      return [
        {
          type: "object",
          properties: Object.fromEntries(keys.map((k) => [k, built[k][0]])),
          required: keys.filter((k) => built[k][2]),
        },
        { kind: "object", children: keys.map((k) => ({ key: k, exp: built[k][1], required: built[k][2] })) },
      ];
    }
    case "array": {
      const [items, exp] = build(spec.item, defs);
      return [{ type: "array", items }, { kind: "array", item: exp }];
    }
    default: {
      const [inner, exp] = build(spec.inner, defs);
      if (spec.how === "ref") {
        const name = `D${Object.keys(defs).length}`;
        defs[name] = inner;
        return [{ $ref: `#/$defs/${name}` }, exp];
      }
      const nullable = { ...exp, nullable: true };
      if (spec.how === "nullable" && typeof inner.type === "string") return [{ ...inner, type: [inner.type, "null"] }, nullable];
      return [{ anyOf: [inner, { type: "null" }] }, nullable];
    }
  }
}

const rootArb = fc
  .uniqueArray(fc.tuple(keyArb, nodeArb, fc.boolean()), { minLength: 1, maxLength: 5, selector: (p) => p[0] })
  .map((props) => {
    const defs = {};
    const [schema, exp] = build({ t: "object", props }, defs);
    return { schema: { ...schema, $defs: defs }, exp };
  });

// ---- the browser -------------------------------------------------------------------------

let browser;
let page;
const problems = [];

async function openPage() {
  page = await browser.newPage();
  page.setDefaultTimeout(5000);
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  await page.route("http://sb.test/**", (route) => {
    const { pathname } = new URL(route.request().url());
    const headers = { "content-security-policy": CSP };
    if (pathname === "/test/page.html") return route.fulfill({ body: PAGE_HTML, contentType: TYPES[".html"], headers });
    if (pathname === "/test/page.js") return route.fulfill({ body: PAGE_JS, contentType: TYPES[".js"], headers });
    if (pathname === "/api/locales/en-US")
      return route.fulfill({ body: readFileSync(join(WEB, "../locales/en-US.json")), contentType: TYPES[".json"], headers });
    const file = join(WEB, decodeURIComponent(pathname));
    if (!file.startsWith(WEB + sep) || !existsSync(file)) return route.fulfill({ status: 404, body: "not found" });
    return route.fulfill({ body: readFileSync(file), contentType: TYPES[extname(file)] ?? "application/octet-stream", headers });
  });
  await page.goto("http://sb.test/test/page.html");
  await page.waitForFunction(() => window.ready === true);
}

const byId = (id) => `[id="${id}"]`; // ids are [A-Za-z0-9_:-] only

/** What the page shows for the element with `id`. */
function describeControl(id) {
  const el = document.getElementById(id);
  if (!el) return null;
  const legend = el.tagName === "FIELDSET" ? el.querySelector(":scope > legend") : null;
  return {
    tag: el.tagName.toLowerCase(),
    type: el.getAttribute("type"),
    kind: el.dataset.kind,
    name: el.getAttribute("name"),
    required: el.required === true,
    step: el.getAttribute("step"),
    labels: el.labels ? [...el.labels].map((l) => l.textContent) : [],
    legend: legend && legend.textContent,
    options: el.tagName === "SELECT" ? [...el.options].filter((o) => o.value !== "").map((o) => o.textContent) : null,
    emptyChoice: el.tagName === "SELECT" ? [...el.options].find((o) => o.value === "")?.textContent ?? null : null,
    addButton: document.getElementById(`${id}:add`)?.textContent ?? null,
  };
}

/** Checks the control of `path` against `exp`, adding an item to every list on the way. */
async function checkField(path, exp, required, label) {
  const id = idFor("t", path);
  const d = await page.evaluate(describeControl, id);
  const at = nameOf(path);
  assert.ok(d, `${at}: no element #${id}`);
  assert.equal(d.kind, exp.kind, `${at}: data-kind`);
  assert.equal(d.name, at, `${at}: name`);
  const shownRequired = required && !exp.nullable;
  if (exp.kind === "object" || exp.kind === "array") {
    assert.equal(d.tag, "fieldset", `${at}: a fieldset`);
    assert.ok(d.legend.startsWith(label), `${at}: legend ${d.legend}`);
  } else {
    assert.ok(d.labels.length > 0 && d.labels[0].startsWith(label), `${at}: label ${JSON.stringify(d.labels)}`);
    if (exp.kind !== "checkbox") assert.equal(d.required, shownRequired, `${at}: required`);
  }
  switch (exp.kind) {
    case "text":
      assert.equal(d.tag, exp.multiline ? "textarea" : "input", at);
      if (!exp.multiline) assert.equal(d.type, "text", at);
      break;
    case "number":
    case "integer":
      assert.deepEqual([d.tag, d.type], ["input", "number"], at);
      assert.equal(d.step, exp.kind === "integer" ? "1" : "any", at);
      break;
    case "checkbox":
      assert.deepEqual([d.tag, d.type], ["input", "checkbox"], at);
      break;
    case "select":
      assert.equal(d.tag, "select", at);
      assert.deepEqual(d.options, exp.options, `${at}: options`);
      if (!shownRequired) assert.equal(d.emptyChoice, "—", `${at}: empty choice`);
      break;
    case "json":
      assert.equal(d.tag, "textarea", at);
      break;
    case "object":
      for (const c of exp.children) await checkField([...path, c.key], c.exp, c.required, c.key);
      break;
    case "array": {
      assert.equal(d.addButton, "Add item", `${at}: Add item button`);
      const first = idFor("t", [...path, 0]);
      assert.equal(await page.$(byId(first)), null, `${at}: starts empty`);
      await page.click(byId(`${id}:add`));
      await page.waitForSelector(byId(first), { state: "attached" });
      await checkField([...path, 0], exp.item, true, `${label} item 1`);
      const remove = await page.evaluate(
        (i) => document.getElementById(i).closest("li").querySelector(":scope > button")?.textContent,
        first,
      );
      assert.equal(remove, "Remove", `${at}: Remove button`);
      break;
    }
    default:
      assert.fail(`${at}: unexpected kind ${exp.kind}`);
  }
}

/** Every control has a label, every id is unique, every aria-describedby target exists. */
function auditPage() {
  const bad = [];
  const root = document.getElementById("root");
  for (const c of root.querySelectorAll("input, select, textarea")) if (!c.labels.length) bad.push(`no label: ${c.id}`);
  for (const f of root.querySelectorAll("fieldset")) if (!f.querySelector(":scope > legend")) bad.push(`no legend: ${f.id}`);
  const ids = [...root.querySelectorAll("[id]")].map((e) => e.id);
  if (new Set(ids).size !== ids.length) bad.push("duplicate ids");
  for (const e of root.querySelectorAll("[aria-describedby]"))
    for (const ref of e.getAttribute("aria-describedby").split(" ")) {
      if (!document.getElementById(ref)) bad.push(`dangling ${ref}`);
    }
  for (const b of root.querySelectorAll("button")) {
    if (b.type !== "button" || !b.textContent.trim()) bad.push(`button ${b.outerHTML}`);
  }
  return bad;
}

async function out() {
  return JSON.parse(await page.textContent("#out"));
}

/** Waits (by polling the page, no sleeps) until the collected output equals `expected`. */
async function expectOut(expected) {
  const want = JSON.stringify(expected);
  try {
    await page.waitForFunction((w) => document.getElementById("out").textContent === w, want, { timeout: 5000 });
  } catch {
    assert.deepEqual(await out(), expected);
  }
}

if (SKIP) test.skip(`SchemaForm in Chromium: ${SKIP}`);
else describe("SchemaForm in Chromium", () => {
  before(async () => {
    const { chromium } = require("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    await openPage();
  });
  after(async () => {
    await browser?.close();
  });

  test("random schemas render each property as the control its type says, labelled", async () => {
    const samples = fc.sample(rootArb, { seed: 2002, numRuns: 25 });
    for (const [n, { schema, exp }] of samples.entries()) {
      await page.evaluate((s) => window.mount(s, "t"), JSON.stringify(schema));
      try {
        for (const c of exp.children) await checkField([c.key], c.exp, c.required, c.key);
        assert.deepEqual(await page.evaluate(auditPage), []);
      } catch (e) {
        e.message = `schema #${n} ${JSON.stringify(schema)}\n${e.message}`;
        throw e;
      }
    }
    assert.deepEqual(problems, []);
  });

  test("a form filled in by typing collects the arguments", async () => {
    const schema = {
      type: "object",
      properties: {
        query: { type: "string", title: "Query", description: "What to look for" },
        limit: { type: "integer", minimum: 1 },
        ratio: { type: "number" },
        exact: { type: "boolean" },
        mode: { enum: ["fast", "slow"] },
        address: { $ref: "#/$defs/Address" },
        tags: { type: "array", items: { type: "string" } },
        extra: { description: "Anything, as JSON" },
        note: { type: ["string", "null"] },
      },
      required: ["query", "limit"],
      $defs: {
        Address: { type: "object", properties: { city: { type: "string" }, zip: { type: "string" } }, required: ["city"] },
      },
    };
    await page.evaluate((s) => window.mount(s, "fill"), JSON.stringify(schema));
    const sel = (...path) => byId(idFor("fill", path));
    await expectOut({
      value: {},
      errors: [
        { path: "query", message: "required" },
        { path: "limit", message: "required" },
      ],
    });

    // The label names the control, and its description is linked.
    await page.click(`label[for="${idFor("fill", ["query"])}"]`);
    assert.equal(await page.evaluate(() => document.activeElement.name), "query");
    const help = await page.evaluate(
      (id) => document.getElementById(document.getElementById(id).getAttribute("aria-describedby").split(" ")[0]).textContent,
      idFor("fill", ["query"]),
    );
    assert.equal(help, "What to look for");

    await page.locator(sel("query")).pressSequentially("cats");
    await page.locator(sel("limit")).pressSequentially("1.5");
    await expectOut({ value: { query: "cats" }, errors: [{ path: "limit", message: "must be a whole number" }] });
    assert.equal(await page.getAttribute(sel("limit"), "aria-invalid"), "true");
    assert.equal(await page.textContent(`${sel("limit")} ~ .sf-error`), "must be a whole number");

    await page.fill(sel("limit"), "10");
    await page.locator(sel("ratio")).pressSequentially("0.25");
    await page.check(sel("exact"));
    await page.selectOption(sel("mode"), { label: "slow" });
    await page.locator(sel("address", "city")).pressSequentially("Oslo");
    await page.click(byId(`${idFor("fill", ["tags"])}:add`));
    await page.click(byId(`${idFor("fill", ["tags"])}:add`));
    await page.fill(sel("tags", 0), "a");
    await page.fill(sel("tags", 1), "b");
    await page.fill(sel("extra"), '{"k": [1, true]}');
    const full = {
      query: "cats",
      limit: 10,
      ratio: 0.25,
      exact: true,
      mode: "slow",
      address: { city: "Oslo" },
      tags: ["a", "b"],
      extra: { k: [1, true] },
    };
    await expectOut({ value: full, errors: [] });

    // Remove the first tag: the second moves up, with its value.
    await page.getByRole("button", { name: "Remove tags item 1" }).click();
    await page.waitForSelector(sel("tags", 1), { state: "detached" });
    assert.equal(await page.inputValue(sel("tags", 0)), "b");
    await expectOut({ value: { ...full, tags: ["b"] }, errors: [] });

    // Unchecking sends false (it was touched); emptying the city of the touched address is an error.
    await page.uncheck(sel("exact"));
    await page.fill(sel("address", "city"), "");
    await page.fill(sel("extra"), "{oops");
    const got = await out();
    assert.equal(got.value.exact, false);
    assert.deepEqual(got.errors.map((e) => e.path), ["extra"]);
    assert.match(got.errors[0].message, /^invalid JSON/u);
    assert.equal("address" in got.value, false); // blank again: left out
    await page.fill(sel("address", "zip"), "0150");
    const { extra, ...rest } = full; // unparsable: not in the value
    const value = { ...rest, tags: ["b"], exact: false, address: { zip: "0150" } };
    await expectOut({ value, errors: [{ path: "address.city", message: "required" }, got.errors[0]] });
    assert.deepEqual(await page.evaluate(auditPage), []);
    assert.deepEqual(problems, []);
  });

  test("a tool without arguments, and a JSON fallback for a recursive schema", async () => {
    await page.evaluate(() => window.mount('{"type": "object"}', "none"));
    assert.equal(await page.textContent("#root .sf-none"), "This tool takes no arguments.");
    await expectOut({ value: {}, errors: [] });
    const node = { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/N" } } } };
    const tree = { type: "object", properties: { node: { $ref: "#/$defs/N" } }, $defs: { N: node } };
    await page.evaluate((s) => window.mount(s, "rec"), JSON.stringify(tree));
    await page.click(byId(`${idFor("rec", ["node", "kids"])}:add`));
    const item = idFor("rec", ["node", "kids", 0]);
    await page.waitForSelector(byId(item));
    assert.equal(await page.getAttribute(byId(item), "data-kind"), "json");
    await page.fill(byId(item), '{"kids": []}');
    await expectOut({ value: { node: { kids: [{ kids: [] }] } }, errors: [] });
    assert.deepEqual(problems, []);
  });
});

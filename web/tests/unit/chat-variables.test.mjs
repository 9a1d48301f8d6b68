// The chat page's variables panel (web/js/chat/variables.js): every value shows as text that
// reads back as the same value, and rows become the object the API stores.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { rowsFrom, valueFrom, valueText, variablesFrom } from "../../js/chat/variables.js";

const require = createRequire(
  process.env.SWITCHBOARD_PEERS ? process.env.SWITCHBOARD_PEERS + "/node/" : new URL("../../../.peers/node/", import.meta.url),
);
const fc = require("fast-check");
const RUNS = { numRuns: Number(process.env.FC_NUM_RUNS) || 300 };
const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

test("any JSON value shown as text reads back as itself", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      assert.ok(sameJson(valueFrom(valueText(v)), v));
    }),
    RUNS,
  );
});

test("any variables object survives the rows the panel edits", () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ minLength: 1 }).filter((k) => k.trim() === k && k !== ""), fc.jsonValue()), (vars) => {
      const { variables, errors } = variablesFrom(rowsFrom(vars));
      assert.deepEqual(errors, []);
      assert.ok(sameJson(variables, vars));
    }),
    RUNS,
  );
});

test("text is JSON when it reads as JSON, else a string; quoted strings stay strings", () => {
  assert.equal(valueFrom("42"), 42);
  assert.equal(valueFrom("Ada"), "Ada");
  assert.equal(valueFrom('"42"'), "42");
  assert.deepEqual(valueFrom('{"a":1}'), { a: 1 });
  assert.equal(valueText("42"), '"42"');
  assert.equal(valueText("Ada"), "Ada");
});

test("rows without a name, or with a name twice, are refused; empty rows are skipped", () => {
  const rows = [{ name: "a", value: "1" }, { name: "", value: "" }, { name: "", value: "x" }, { name: "a", value: "2" }];
  assert.deepEqual(variablesFrom(rows).errors, [
    { index: 2, key: "ui.chat.vars_err_name" },
    { index: 3, key: "ui.chat.vars_err_duplicate" },
  ]);
  const proto = variablesFrom([{ name: "__proto__", value: "1" }]).variables;
  assert.ok(Object.hasOwn(proto, "__proto__"), "a variable like any other");
});

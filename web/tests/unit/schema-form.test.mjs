// The pure half of the tool form (web/js/schema-fields.js, re-exported by schema-form.js):
// property tests over random tool schemas, then examples of each rule.
//
//   SWITCHBOARD_PEERS=$PWD/.peers node --test web/tests/unit/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { collect, fieldFor, idFor, initialValue, isBlank, nameOf, stateFrom } from "../../js/schema-form.js";

const require = createRequire(
  process.env.SWITCHBOARD_PEERS ? process.env.SWITCHBOARD_PEERS + "/node/" : new URL("../../../.peers/node/", import.meta.url),
);
const fc = require("fast-check");

const RUNS = { numRuns: Number(process.env.FC_NUM_RUNS) || 300 };

// ---- random schemas ----------------------------------------------------------------------
// A spec is a small description of a schema; `build` turns it into JSON Schema (moving some
// parts into $defs/definitions behind a $ref) and `expected` says what field it must give.

const keyArb = fc.oneof(
  { weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "a.b", "a-b", "", "x y", "é", "help", "0") },
);
const finiteArb = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)); // no -0 in JSON
const titleArb = fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined });
const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const JSON_SCHEMAS = [
  {},
  { description: "anything" },
  { anyOf: [{ type: "string" }, { type: "number" }] },
  { oneOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
  { type: "object", additionalProperties: { type: "string" } },
  { type: "object" },
  { type: ["string", "integer"] },
  { type: "array", prefixItems: [{ type: "string" }] },
  { $ref: "https://example.com/remote.json" },
  { $ref: "#/$defs/missing" },
];

const { root: rootSpec } = fc.letrec((tie) => ({
  node: fc.oneof({ maxDepth: 3, depthSize: "small" }, tie("leaf"), tie("object"), tie("array"), tie("wrap")),
  leaf: fc.oneof(
    fc.constantFrom({ t: "string" }, { t: "long string" }, { t: "number" }, { t: "integer" }, { t: "boolean" }),
    fc.record({
      t: fc.constant("enum"),
      values: fc.uniqueArray(fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -5, max: 5 }), finiteArb), {
        minLength: 1,
        maxLength: 5,
        comparator: sameJson,
      }),
      typed: fc.boolean(),
    }),
    fc.record({
      t: fc.constant("const"),
      value: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null)),
    }),
    fc.record({ t: fc.constant("json"), schema: fc.constantFrom(...JSON_SCHEMAS) }),
  ),
  object: fc.record({
    t: fc.constant("object"),
    props: fc.uniqueArray(fc.tuple(keyArb, tie("node"), fc.boolean(), titleArb), { maxLength: 4, selector: (p) => p[0] }),
  }),
  array: fc.record({ t: fc.constant("array"), item: tie("node"), title: titleArb }),
  wrap: fc.record({
    t: fc.constant("wrap"),
    how: fc.constantFrom("$defs", "definitions", "escaped", "allOf", "typeNull", "anyOfNull", "oneOfNull", "nullFirst"),
    inner: tie("node"),
  }),
  root: fc.record({
    t: fc.constant("object"),
    props: fc.uniqueArray(fc.tuple(keyArb, tie("node"), fc.boolean(), titleArb), {
      minLength: 1,
      maxLength: 5,
      selector: (p) => p[0],
    }),
  }),
}));

/** JSON Schema for `spec`; definitions moved out go into `defs` ({$defs, definitions}). */
function build(spec, defs) {
  switch (spec.t) {
    case "string":
      return { type: "string" };
    case "long string":
      return { type: "string", maxLength: 1000 };
    case "number":
    case "integer":
    case "boolean":
      return { type: spec.t };
    case "enum":
      if (spec.typed && spec.values.every((v) => typeof v === "string")) return { type: "string", enum: spec.values };
      return { enum: spec.values };
    case "const":
      return { const: spec.value };
    case "json":
      return spec.schema;
    case "object":
      return {
        type: "object",
        properties: Object.fromEntries(
          spec.props.map(([k, s, , title]) => [k, title === undefined ? build(s, defs) : { ...build(s, defs), title }]),
        ),
        required: spec.props.filter((p) => p[2]).map((p) => p[0]),
      };
    case "array":
      return { type: "array", items: build(spec.item, defs), ...(spec.title === undefined ? {} : { title: spec.title }) };
    default: {
      const inner = build(spec.inner, defs);
      const n = defs.count++;
      switch (spec.how) {
        case "$defs":
        case "definitions":
          defs[spec.how][`d${n}`] = inner;
          return { $ref: `#/${spec.how}/d${n}` };
        case "escaped":
          defs.$defs[`d${n}/a~b`] = inner;
          return { $ref: `#/$defs/d${n}~1a~0b` };
        case "allOf":
          return { allOf: [inner] };
        case "typeNull":
          if (typeof inner.type === "string" && !("enum" in inner) && !("const" in inner)) {
            return { ...inner, type: [inner.type, "null"] };
          }
          return { anyOf: [inner, { type: "null" }] };
        case "nullFirst":
          return { oneOf: [{ type: "null" }, inner] };
        default:
          return { [spec.how === "anyOfNull" ? "anyOf" : "oneOf"]: [inner, { type: "null" }] };
      }
    }
  }
}

function schemaOf(spec) {
  const defs = { $defs: {}, definitions: {}, count: 0 };
  const schema = build(spec, defs);
  if (defs.count) Object.assign(schema, { $defs: defs.$defs, definitions: defs.definitions });
  return schema;
}

const KIND = {
  string: "text",
  "long string": "text",
  number: "number",
  integer: "integer",
  boolean: "checkbox",
  enum: "select",
  const: "select",
};

/** What `fieldFor` must make of `spec`: {kind, nullable, options?, children?, item?}. */
function expected(spec) {
  if (spec.t === "wrap") {
    const inner = expected(spec.inner);
    const nulls = ["typeNull", "anyOfNull", "oneOfNull", "nullFirst"].includes(spec.how);
    return { ...inner, nullable: inner.nullable || nulls };
  }
  if (spec.t === "object") {
    return {
      kind: "object",
      nullable: false,
      // In the order JSON objects keep their keys (integer-like keys first), as fieldFor sees them.
      children: Object.keys(Object.fromEntries(spec.props.map((p) => [p[0], p]))).map((k) => {
        const [key, s, req, title] = spec.props.find((p) => p[0] === k);
        const exp = expected(s);
        return { ...exp, key, req, label: title ?? exp.title ?? (key || "item") };
      }),
    };
  }
  if (spec.t === "array") return { kind: "array", nullable: false, item: expected(spec.item), title: spec.title };
  if (spec.t === "json") return { kind: "json", nullable: false };
  const options = spec.t === "enum" ? spec.values : spec.t === "const" ? [spec.value] : undefined;
  return { kind: KIND[spec.t], nullable: false, options, multiline: spec.t === "long string" };
}

function assertMatches(field, exp, where) {
  assert.equal(field.kind, exp.kind, `${where}: kind`);
  assert.equal(field.nullable, exp.nullable, `${where}: nullable`);
  if (exp.options) assert.deepEqual(field.options.map((o) => o.value), exp.options, `${where}: options`);
  if (exp.kind === "text") assert.equal(field.multiline, exp.multiline, `${where}: multiline`);
  if (exp.kind === "object") {
    assert.deepEqual(field.children.map((c) => c.key), exp.children.map((c) => c.key), `${where}: keys`);
    field.children.forEach((c, i) => {
      const e = exp.children[i];
      const at = `${where}.${c.key}`;
      assert.equal(c.label, e.label, `${at}: label`);
      assert.deepEqual(c.path, [...field.path, e.key], `${at}: path`);
      assert.equal(c.required, e.req && !e.nullable, `${at}: required`);
      assert.equal(c.nullWhenEmpty, e.req && e.nullable, `${at}: nullWhenEmpty`);
      assertMatches(c, e, at);
    });
  }
  if (exp.kind === "array") {
    assert.equal(field.item.label, exp.item.title ?? "", `${where}[]: label`);
    assertMatches(field.item, exp.item, `${where}[]`);
  }
}

// ---- values that conform to a field ------------------------------------------------------

/** Whether an optional `field` can hold something that is not blank (so is sent). */
const canFill = (f) => (f.kind === "object" ? f.children.some(canFill) : !(f.kind === "select" && f.fixed && f.required));

/** Values of `field` as a property of its parent: undefined (left out) or null when allowed. */
function childArb(f) {
  if (f.required) return valueArb(f);
  const empty = fc.constant(f.nullWhenEmpty ? null : undefined);
  if (!canFill(f)) return empty;
  // An optional field that is blank (an object of blanks, an empty list) is left out.
  return fc.oneof(empty, valueArb(f).filter((v) => !isBlank(f, stateFrom(f, v))));
}

function valueArb(f) {
  switch (f.kind) {
    case "text":
      return fc.string({ minLength: 1, maxLength: 8 }); // a text field never sends ""
    case "number":
      return finiteArb;
    case "integer":
      return fc.oneof(fc.integer(), fc.maxSafeInteger());
    case "checkbox":
      return fc.boolean();
    case "select":
      return fc.constantFrom(...f.options.map((o) => o.value));
    case "object":
      return fc
        .tuple(...f.children.map(childArb))
        .map((vs) => Object.fromEntries(f.children.map((c, i) => [c.key, vs[i]]).filter(([, v]) => v !== undefined)));
    case "array":
      return fc.array(childArb(f.item), { maxLength: 3 });
    default:
      return fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v))); // JSON has no -0
  }
}

const schemaArb = rootSpec.map((spec) => ({ spec, schema: schemaOf(spec) }));
const withValue = schemaArb.chain(({ spec, schema }) => valueArb(fieldFor(schema)).map((value) => ({ spec, schema, value })));

/** A state shaped like `field`'s, with anything at all in its leaves (or instead of it). */
function garbageState(f) {
  const junk = fc.oneof(fc.anything({ withNullPrototype: true, withSparseArray: true, withBoxedValues: true }), fc.string());
  if (f.kind === "object") {
    const shaped = fc.tuple(...f.children.map(garbageState));
    return fc.oneof(junk, shaped.map((vs) => Object.fromEntries(f.children.map((c, i) => [c.key, vs[i]]))));
  }
  if (f.kind === "array") return fc.oneof(junk, fc.array(garbageState(f.item), { maxLength: 3 }));
  const texts = fc.constantFrom("", " ", "0", "1.5", "-3", "abc", "{", "null", "[1]", "99", "true");
  return fc.oneof(junk, texts, fc.boolean(), fc.constant(null));
}

// ---- properties --------------------------------------------------------------------------

test("every property gets the field kind its schema's type says", () => {
  fc.assert(
    fc.property(schemaArb, ({ spec, schema }) => {
      const field = fieldFor(schema);
      assert.equal(field.required, true);
      assertMatches(field, expected(spec), "root");
    }),
    RUNS,
  );
});

test("a conforming value put in the form collects back unchanged", () => {
  fc.assert(
    fc.property(withValue, ({ schema, value }) => {
      const field = fieldFor(schema);
      assert.deepEqual(collect(field, stateFrom(field, value)), { value, errors: [] });
    }),
    RUNS,
  );
});

test("collecting never throws, whatever the state, and reports errors by dotted path", () => {
  const arb = schemaArb.chain(({ schema }) => {
    const field = fieldFor(schema);
    return garbageState(field).map((state) => ({ field, state }));
  });
  fc.assert(
    fc.property(arb, ({ field, state }) => {
      const { value, errors } = collect(field, state);
      assert.ok(Array.isArray(errors));
      for (const e of errors) {
        assert.equal(typeof e.path, "string");
        assert.equal(typeof e.message, "string");
      }
      if (!errors.length) assert.equal(typeof value, "object"); // the root is an object
    }),
    RUNS,
  );
});

test("an untouched form collects without throwing; untouched optional objects are left out", () => {
  fc.assert(
    fc.property(schemaArb, ({ schema }) => {
      const field = fieldFor(schema);
      const { value, errors } = collect(field, initialValue(field));
      for (const c of field.children) {
        if (c.kind === "object" && !c.required && !c.nullWhenEmpty) assert.equal(Object.hasOwn(value, c.key), false);
        if (c.required && ["text", "number", "integer", "json"].includes(c.kind)) {
          assert.ok(errors.some((e) => e.path === nameOf(c.path) && e.message === "required"), `required ${c.key}`);
        }
      }
    }),
    RUNS,
  );
});

test("ids are unique per path and use only id-safe characters", () => {
  const pathArb = fc.array(fc.oneof(keyArb, fc.nat(20)), { maxLength: 4 });
  fc.assert(
    fc.property(pathArb, pathArb, (a, b) => {
      assert.match(idFor("p", a), /^p(-[A-Za-z0-9_]*)*$/u);
      if (JSON.stringify(a.map(String)) !== JSON.stringify(b.map(String))) assert.notEqual(idFor("p", a), idFor("p", b));
    }),
    { numRuns: 1000 },
  );
});

// ---- examples ----------------------------------------------------------------------------

const obj = (properties, required = [], extra = {}) => ({ type: "object", properties, required, ...extra });
const child = (field, ...keys) => keys.reduce((f, k) => (k === "*" ? f.item : f.children.find((c) => c.key === k)), field);

test("$ref to $defs and definitions is followed, sibling keywords winning", () => {
  const schema = obj(
    { home: { $ref: "#/$defs/Address", title: "Home" }, work: { $ref: "#/definitions/Address" } },
    ["home"],
    {
      $defs: { Address: obj({ city: { type: "string" }, zip: { type: "integer" } }, ["city"], { title: "Address" }) },
      definitions: { Address: obj({ street: { type: "string" } }) },
    },
  );
  const f = fieldFor(schema);
  assert.equal(child(f, "home").kind, "object");
  assert.equal(child(f, "home").label, "Home");
  assert.equal(child(f, "home", "zip").kind, "integer");
  assert.deepEqual(child(f, "home", "city").path, ["home", "city"]);
  assert.equal(child(f, "home", "city").name, "home.city");
  assert.deepEqual(child(f, "work").children.map((c) => c.key), ["street"]);
  const { value, errors } = collect(f, { home: { city: "", zip: "7" }, work: { street: "" } });
  assert.deepEqual(errors, [{ path: "home.city", message: "required" }]);
  assert.deepEqual(collect(f, stateFrom(f, { home: { city: "Oslo" } })), { value: { home: { city: "Oslo" } }, errors: [] });
  assert.deepEqual(value.home, { zip: 7 });
});

test("a recursive $ref becomes a JSON field where it comes back", () => {
  const schema = obj({ root: { $ref: "#/$defs/Node" } }, [], {
    $defs: { Node: obj({ name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } }) },
  });
  const f = fieldFor(schema);
  const items = child(f, "root", "children", "*");
  assert.equal(child(f, "root", "name").kind, "text");
  assert.equal(items.kind, "json");
  assert.match(items.hint, /recursive \$ref #\/\$defs\/Node/u);
  const state = { root: { name: "a", children: ['{"name": "b"}', "{oops"] } };
  assert.deepEqual(collect(f, state).errors.map((e) => e.path), ["root.children.1"]);
  assert.match(collect(f, state).errors[0].message, /^invalid JSON/u);
  state.root.children.pop();
  assert.deepEqual(collect(f, state).value, { root: { name: "a", children: [{ name: "b" }] } });

  const self = fieldFor(obj({ again: { $ref: "#" }, n: { type: "number" } }));
  assert.equal(child(self, "again").kind, "object");
  assert.equal(child(self, "again", "again").kind, "json");

  const loop = fieldFor(obj({ x: { $ref: "#/$defs/A" } }, [], { $defs: { A: { $ref: "#/$defs/B" }, B: { $ref: "#/$defs/A" } } }));
  assert.equal(child(loop, "x").kind, "json");
});

test("more than 6 nested $refs fall back to JSON", () => {
  const $defs = {};
  for (let i = 0; i < 9; i++) $defs[`L${i}`] = obj({ next: { $ref: `#/$defs/L${i + 1}` } });
  $defs.L9 = { type: "string" };
  let f = fieldFor(obj({ top: { $ref: "#/$defs/L0" } }, [], { $defs }));
  const kinds = [];
  for (f = child(f, "top"); f.kind === "object"; f = child(f, "next")) kinds.push(f.kind);
  assert.equal(kinds.length, 6);
  assert.equal(f.kind, "json");
  assert.match(f.hint, /too deeply nested/u);
});

test("unmappable schemas become JSON fields", () => {
  const f = fieldFor(
    obj({
      any: {},
      either: { anyOf: [{ type: "string" }, { type: "integer" }] },
      map: { type: "object", additionalProperties: { type: "number" } },
      remote: { $ref: "other.json#/x" },
      several: { type: ["string", "number"] },
      tuple: { type: "array", prefixItems: [{ type: "string" }] },
    }),
  );
  assert.deepEqual(f.children.map((c) => c.kind), ["json", "json", "json", "json", "json", "json"]);
  assert.deepEqual(collect(f, { any: " [1, 2] ", map: '{"a": 1}', either: "" }), {
    value: { any: [1, 2], map: { a: 1 } },
    errors: [],
  });
});

test("nullable: type with null, and anyOf/oneOf with null, are the other schema and optional", () => {
  const f = fieldFor(
    obj(
      {
        a: { type: ["string", "null"] },
        b: { anyOf: [{ type: "integer" }, { type: "null" }], description: "how many", default: null },
        c: { oneOf: [{ type: "null" }, { $ref: "#/$defs/Flag" }], title: "C" },
        d: { type: ["boolean", "null"] },
      },
      ["a", "b"],
      { $defs: { Flag: { type: "boolean", title: "Flag" } } },
    ),
  );
  assert.deepEqual(f.children.map((c) => [c.kind, c.required, c.nullable, c.nullWhenEmpty]), [
    ["text", false, true, true],
    ["integer", false, true, true],
    ["checkbox", false, true, false],
    ["checkbox", false, true, false],
  ]);
  assert.equal(child(f, "b").description, "how many");
  assert.equal(child(f, "c").label, "C");
  // Required by the schema but nullable: empty sends null. Optional: left out.
  assert.deepEqual(collect(f, initialValue(f)), { value: { a: null, b: null }, errors: [] });
  assert.deepEqual(collect(f, { a: "x", b: "3", c: false, d: true }).value, { a: "x", b: 3, c: false, d: true });
});

test("required fields that are empty are errors; optional ones are left out", () => {
  const f = fieldFor(
    obj(
      {
        name: { type: "string" },
        note: { type: "string" },
        count: { type: "integer" },
        mode: { enum: ["a", "b"] },
        tags: { type: "array", items: { type: "string" } },
        size: { type: "number" },
      },
      ["name", "count", "mode", "tags"],
    ),
  );
  const { value, errors } = collect(f, initialValue(f));
  assert.deepEqual(errors, [
    { path: "name", message: "required" },
    { path: "count", message: "required" },
    { path: "mode", message: "required" },
  ]);
  assert.deepEqual(value.tags, []); // a required list may be empty
  assert.equal("note" in value, false);
  assert.equal("size" in value, false);
  const items = collect(f, { name: "n", count: "1", mode: "1", tags: ["x", ""] });
  assert.deepEqual(items.errors, [{ path: "tags.1", message: "required" }]);
});

test("numbers are parsed; bad ones are field errors", () => {
  const f = fieldFor(obj({ n: { type: "number", minimum: -10, maximum: 1e6 }, i: { type: "integer" } }));
  const one = (n, i) => collect(f, { n, i });
  assert.deepEqual(one(" 42 ", "-7"), { value: { n: 42, i: -7 }, errors: [] });
  assert.deepEqual(one("1e3", "1e2").value, { n: 1000, i: 100 });
  assert.deepEqual(one("0.25", "").value, { n: 0.25 });
  assert.deepEqual(one("abc", "1.5").errors, [
    { path: "n", message: "not a number" },
    { path: "i", message: "must be a whole number" },
  ]);
  assert.deepEqual(one("-11", "Infinity").errors.map((e) => e.message), ["must be at least -10", "not a number"]);
  assert.equal(child(f, "i").step, 1);
  assert.equal(child(f, "n").step, "any");
});

test("booleans: required ones always sent, optional ones once set or defaulted", () => {
  const f = fieldFor(
    obj({ req: { type: "boolean" }, opt: { type: "boolean" }, def: { type: "boolean", default: false } }, ["req"]),
  );
  assert.deepEqual(initialValue(f), { req: false, opt: null, def: false });
  assert.deepEqual(collect(f, initialValue(f)).value, { req: false, def: false });
  assert.deepEqual(collect(f, { req: true, opt: false, def: true }).value, { req: true, opt: false, def: true });
});

test("defaults prefill; const is a fixed select", () => {
  const f = fieldFor(
    obj(
      {
        q: { type: "string", default: "cats" },
        k: { type: "integer", default: 5 },
        unit: { enum: ["cm", "in", 3], default: "in" },
        v: { const: "v1" },
        w: { const: 2 },
        extra: { default: { a: [1] } },
        list: { type: "array", items: { type: "integer" }, default: [1, 2] },
      },
      ["v"],
    ),
  );
  const s = initialValue(f);
  assert.deepEqual(s, { q: "cats", k: "5", unit: "1", v: "0", w: "", extra: '{\n  "a": [\n    1\n  ]\n}', list: ["1", "2"] });
  assert.deepEqual(collect(f, s).value, { q: "cats", k: 5, unit: "in", v: "v1", extra: { a: [1] }, list: [1, 2] });
  assert.deepEqual(child(f, "unit").options.map((o) => o.label), ["cm", "in", "3"]);
  assert.equal(child(f, "v").fixed, true);
});

test("an optional object is left out until something in it changes, then enforced", () => {
  const opts = obj({ id: { type: "string" }, unit: { enum: ["a", "b"], default: "a" }, on: { type: "boolean" } }, ["id"]);
  const f = fieldFor(obj({ opts }));
  assert.deepEqual(collect(f, initialValue(f)), { value: {}, errors: [] });
  assert.deepEqual(collect(f, { opts: { id: "", unit: "1", on: null } }).errors, [{ path: "opts.id", message: "required" }]);
  assert.deepEqual(collect(f, { opts: { id: "x", unit: "0", on: null } }).value, { opts: { id: "x", unit: "a" } });
});

test("labels, descriptions, multiline text, a tool without arguments", () => {
  const f = fieldFor(
    obj({
      body: { type: "string", maxLength: 5000, title: "Body", description: "The text" },
      at: { type: "string", format: "date-time", maxLength: 900 },
    }),
  );
  assert.equal(child(f, "body").label, "Body");
  assert.equal(child(f, "body").description, "The text");
  assert.equal(child(f, "body").multiline, true);
  assert.equal(child(f, "at").multiline, false);
  for (const empty of [{ type: "object" }, { type: "object", properties: {} }]) {
    const none = fieldFor(empty);
    assert.equal(none.kind, "object");
    assert.deepEqual(collect(none, initialValue(none)), { value: {}, errors: [] });
  }
  const allOf = obj({ a: { allOf: [{ $ref: "#/$defs/X" }], description: "d" } }, [], { $defs: { X: { type: "number" } } });
  assert.equal(fieldFor(allOf).children[0].kind, "number");
});

test("arrays respect minItems and maxItems; items use the item schema", () => {
  const f = fieldFor(obj({ xs: { type: "array", items: { type: "number" }, minItems: 2, maxItems: 3 } }, ["xs"]));
  assert.deepEqual(initialValue(f), { xs: ["", ""] });
  assert.deepEqual(collect(f, { xs: ["1"] }).errors, [{ path: "xs", message: "at least 2 items" }]);
  assert.deepEqual(collect(f, { xs: ["1", "2", "3", "4"] }).errors, [{ path: "xs", message: "at most 3 items" }]);
  assert.deepEqual(collect(f, { xs: ["1", "2.5"] }).value, { xs: [1, 2.5] });
});

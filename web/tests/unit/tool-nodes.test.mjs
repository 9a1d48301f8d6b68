// The tool-node editor's pure half (web/js/nodes/): seed 002's property 1 over random tools
// and random edits made through the editor's state functions, then the mapping chooser's
// rules one by one.
//
//   SWITCHBOARD_PEERS=$PWD/.peers node --test web/tests/unit/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import {
  BUILTIN_VARIABLES, choiceFor, choiceFrom, literalField, literalJson, literalOf, mappingFrom, offeredSchema,
  templateRefs, variableOptions,
} from "../../js/nodes/mapping.js";
import {
  editorFrom, enabledTools, newNode, nodeFrom, selectTool, setChoice, setFields, setMode, setServer, setToolEnabled,
  setVariables,
} from "../../js/nodes/node-state.js";
import { declsFrom, defaultFrom, rowFrom } from "../../js/nodes/variables.js";
import { stateFrom } from "../../js/schema-fields.js";

const require = createRequire(
  process.env.SWITCHBOARD_PEERS ? process.env.SWITCHBOARD_PEERS + "/node/" : new URL("../../../.peers/node/", import.meta.url),
);
const fc = require("fast-check");

const RUNS = { numRuns: Number(process.env.FC_NUM_RUNS) || 200 };
const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// ---- random tools and edits -----------------------------------------------------------------

const nameArb = fc.stringMatching(/^[a-z_][a-z0-9_-]{0,7}$/);
const paramArb = fc.oneof(
  { weight: 6, arbitrary: nameArb },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "a.b", "x y", "é") },
);
const noMinusZero = (n) => (Object.is(n, -0) ? 0 : n);

/** A parameter's kind: its schema and values of it, as JSON. */
const KINDS = {
  string: { schema: { type: "string" }, value: fc.string({ minLength: 1, maxLength: 12 }) },
  template_like: { schema: { type: "string" }, value: fc.constantFrom("{{x}}", "a {{ b", "}} {{", "{{user.name}}") },
  integer: { schema: { type: "integer" }, value: fc.integer() },
  number: { schema: { type: "number" }, value: fc.double({ noNaN: true, noDefaultInfinity: true }).map(noMinusZero) },
  boolean: { schema: { type: "boolean" }, value: fc.boolean() },
  enum: { schema: { enum: ["a", 2, true, null] }, value: fc.constantFrom("a", 2, true, null) },
  object: { schema: { type: "object", additionalProperties: true }, value: fc.dictionary(nameArb, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
  array: { schema: { type: "array", items: { type: "string" } }, value: fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 3 }) },
  any: { schema: {}, value: fc.jsonValue({ maxDepth: 2 }) },
};

const toolArb = fc.record({
  name: nameArb,
  params: fc.uniqueArray(fc.tuple(paramArb, fc.constantFrom(...Object.keys(KINDS)), fc.boolean()), {
    selector: ([p]) => p, maxLength: 5,
  }),
}).map(({ name, params }) => ({
  name,
  inputSchema: {
    type: "object",
    properties: Object.fromEntries(params.map(([p, kind]) => [p, KINDS[kind].schema])),
    required: params.filter(([, , req]) => req).map(([p]) => p),
  },
  kinds: Object.fromEntries(params.map(([p, kind]) => [p, kind])),
}));
const infosArb = fc.uniqueArray(toolArb, { selector: (t) => t.name, minLength: 1, maxLength: 4 });

const declArb = fc.record({
  name: nameArb.filter((n) => n !== "now"),
  type: fc.constantFrom("string", "number", "integer", "boolean", "object", "array", "any"),
  withDefault: fc.boolean(),
});
const declsArb = fc.uniqueArray(declArb, { selector: (d) => d.name, maxLength: 3 }).map((ds) =>
  ds.map(({ name, type, withDefault }) => {
    const decl = { name, type };
    if (withDefault) decl.default = { string: "x", number: 1.5, integer: 2, boolean: true, object: { a: 1 }, array: [1], any: null }[type];
    return decl;
  }),
);

/** One edit of a ticked tool's parameter: a mode, and for it a value of the right kind. */
const editArb = (infos, names) =>
  fc.record({
    tool: fc.constantFrom(...infos.map((t) => t.name)),
    on: fc.boolean(),
    enabled: fc.boolean(),
    pick: fc.nat(),
    mode: fc.constantFrom("model", "literal", "variable", "template"),
    variable: fc.constantFrom(...names),
    text: fc.tuple(fc.stringMatching(/^[a-z /:-]{0,6}$/), fc.constantFrom(...names), fc.stringMatching(/^[a-z /:-]{0,6}$/)),
    value: fc.jsonValue(),
  }).chain((e) => {
    const tool = infos.find((t) => t.name === e.tool);
    const params = Object.keys(tool.kinds);
    if (!params.length) return fc.constant({ ...e, param: null });
    const param = params[e.pick % params.length];
    return KINDS[tool.kinds[param]].value.map((value) => ({ ...e, param, value }));
  });

/** Applies `edit` through the editor's functions, as the page does. */
function apply(state, edit, infos) {
  let s = selectTool(state, edit.tool, edit.on || state.tools.some((t) => t.name === edit.tool));
  if (!edit.on) return selectTool(s, edit.tool, false);
  s = setToolEnabled(s, edit.tool, edit.enabled);
  if (edit.param === null) return s;
  s = setMode(s, edit.tool, edit.param, edit.mode, infos);
  const schema = infos.find((t) => t.name === edit.tool).inputSchema;
  switch (edit.mode) {
    case "literal":
      return setChoice(s, edit.tool, edit.param, {
        mode: "literal", state: stateFrom(literalField(schema, edit.param), { [edit.param]: edit.value }),
      });
    case "variable":
      return setChoice(s, edit.tool, edit.param, { mode: "variable", variable: edit.variable });
    case "template":
      return setChoice(s, edit.tool, edit.param, { mode: "template", text: `${edit.text[0]}{{${edit.text[1]}}}${edit.text[2]}` });
    default:
      return s;
  }
}

const scenarioArb = fc.tuple(infosArb, declsArb, declsArb).chain(([infos, own, outer]) => {
  const names = variableOptions(own, outer).map((o) => o.name);
  return fc.record({
    infos: fc.constant(infos),
    own: fc.constant(own),
    outer: fc.constant(outer),
    name: fc.string({ minLength: 1, maxLength: 10 }).filter((s) => s.trim() !== ""),
    first: fc.constantFrom(...infos.map((t) => t.name)),
    edits: fc.array(editArb(infos, names), { maxLength: 12 }),
    retryOnError: fc.boolean(),
    maxRetries: fc.integer({ min: 0, max: 10 }),
    timeoutMs: fc.option(fc.integer({ min: 1, max: 600_000 }), { nil: null }),
    assistantId: fc.option(nameArb, { nil: null }),
  });
});

function build(sc) {
  let s = newNode({ serverId: "demo", assistantId: sc.assistantId });
  s = setFields(s, {
    name: sc.name, retryOnError: sc.retryOnError, maxRetries: String(sc.maxRetries),
    timeoutMs: sc.timeoutMs === null ? "" : String(sc.timeoutMs),
  });
  s = setVariables(s, sc.own.map(rowFrom));
  s = selectTool(s, sc.first, true);
  for (const edit of sc.edits) s = apply(s, edit, sc.infos);
  if (!s.tools.length) s = selectTool(s, sc.first, true);
  return s;
}

// ---- seed 002, property 1 -------------------------------------------------------------------

test("P1: a node made through the editor has every required field and survives JSON and reloading", () => {
  fc.assert(
    fc.property(scenarioArb, (sc) => {
      const state = build(sc);
      const { node, errors } = nodeFrom(state, sc.infos);
      assert.deepEqual(errors, []);

      // Every field the contract requires, with its type.
      assert.equal(typeof node.name, "string");
      assert.ok(node.name.trim().length > 0);
      assert.equal(node.serverId, "demo");
      assert.ok(Array.isArray(node.selectedTools) && node.selectedTools.length > 0);
      for (const tool of node.selectedTools) {
        assert.equal(typeof tool.name, "string");
        assert.equal(typeof tool.enabled, "boolean");
        assert.ok(tool.parameterMappings && typeof tool.parameterMappings === "object" && !Array.isArray(tool.parameterMappings));
        const info = sc.infos.find((t) => t.name === tool.name);
        for (const param of Object.keys(tool.parameterMappings)) assert.ok(Object.hasOwn(info.inputSchema.properties, param), param);
      }
      assert.equal(node.retryOnError, sc.retryOnError);
      assert.equal(node.maxRetries, sc.maxRetries);
      assert.ok(Object.hasOwn(node, "timeoutMs"));
      assert.equal(node.timeoutMs, sc.timeoutMs);
      assert.deepEqual(node.variables, sc.own);
      assert.equal(node.assistantId, sc.assistantId ?? undefined);

      // Persisted: JSON and back is the same node, and opening it in the editor again and
      // saving unchanged gives it back exactly.
      const stored = JSON.parse(JSON.stringify({ id: "n1", createdAt: "x", updatedAt: "y", ...node }));
      assert.ok(sameJson(JSON.parse(JSON.stringify(node)), node));
      const again = nodeFrom(editorFrom(stored, sc.infos), sc.infos);
      assert.deepEqual(again.errors, []);
      assert.ok(sameJson(again.node, node), `${JSON.stringify(again.node)}\n${JSON.stringify(node)}`);
    }),
    RUNS,
  );
});

test("P1: each mapping reads back as the choice made: literals as the value, variables and templates as written", () => {
  fc.assert(
    fc.property(scenarioArb, (sc) => {
      const state = build(sc);
      const { node } = nodeFrom(state, sc.infos);
      node.selectedTools.forEach((tool, i) => {
        const choices = state.tools[i].choices;
        assert.deepEqual(Object.keys(tool.parameterMappings).sort(), Object.keys(choices).sort());
        for (const [param, mapping] of Object.entries(tool.parameterMappings)) {
          const choice = choices[param];
          if (choice.mode === "variable") assert.equal(mapping, `{{${choice.variable}}}`);
          if (choice.mode === "template") assert.equal(mapping, choice.text);
          if (choice.mode === "literal") {
            assert.ok(literalOf(mapping) !== undefined, "a literal is never read as a template");
            const info = sc.infos.find((t) => t.name === tool.name);
            assert.equal(choiceFrom(mapping, info.inputSchema, param).mode, "literal");
          }
        }
      });
    }),
    RUNS,
  );
});

test("any literal is written so that it reads back as itself, never as a template", () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.constantFrom("{{a}}", { variable: "a" }, { value: 1 }, "x {{ y"), fc.boolean(), (v, tricky, useTricky) => {
      const value = useTricky ? tricky : v;
      const json = JSON.parse(JSON.stringify(literalJson(value)));
      assert.ok(sameJson(literalOf(json), value));
    }),
    RUNS,
  );
});

test("template references: text around {{names}} gives exactly those names", () => {
  const text = fc.stringMatching(/^[^{}]{0,6}$/);
  const path = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,4}(\.[A-Za-z0-9_-]{1,3}){0,2}$/);
  fc.assert(
    fc.property(fc.array(fc.tuple(text, path, fc.constantFrom("", " ", "  "))), text, (parts, tail) => {
      const source = parts.map(([t, p, sp]) => `${t}{{${sp}${p}${sp}}}`).join("") + tail;
      const { refs, error } = templateRefs(source);
      assert.equal(error, null);
      assert.deepEqual(refs, parts.map(([, p]) => p));
    }),
    RUNS,
  );
});

// ---- the mapping chooser, rule by rule ------------------------------------------------------

const echo = {
  type: "object",
  properties: { text: { type: "string" }, steps: { type: "integer" }, opts: { $ref: "#/$defs/Opts" } },
  required: ["text"],
  $defs: { Opts: { type: "object", properties: { loud: { type: "boolean" } } } },
};

test("stored mappings open as the choice they are", () => {
  assert.deepEqual(choiceFrom(undefined, echo, "text"), { mode: "model" });
  assert.deepEqual(choiceFrom("{{user.name}}", echo, "text"), { mode: "variable", variable: "user.name" });
  assert.deepEqual(choiceFrom("{{ owner }}", echo, "text"), { mode: "variable", variable: "owner" });
  assert.deepEqual(choiceFrom({ variable: "a.b" }, echo, "text"), { mode: "variable", variable: "a.b" });
  assert.deepEqual(choiceFrom("Bearer {{token}}", echo, "text"), { mode: "template", text: "Bearer {{token}}" });
  assert.deepEqual(choiceFrom("hello", echo, "text"), { mode: "literal", state: { text: "hello" } });
  assert.deepEqual(choiceFrom({ value: "{{not}}" }, echo, "text"), { mode: "literal", state: { text: "{{not}}" } });
  assert.deepEqual(choiceFrom(3, echo, "steps"), { mode: "literal", state: { steps: "3" } });
  // A $ref in the parameter's schema is followed: the literal gets a real form.
  assert.deepEqual(choiceFrom({ loud: true }, echo, "opts"), { mode: "literal", state: { opts: { loud: true } } });
});

test("choices become the mapping JSON the server reads", () => {
  const literal = (param, state) => mappingFrom({ mode: "literal", state }, echo, param);
  assert.deepEqual(literal("text", { text: "hi" }), { mapping: "hi", errors: [] });
  assert.deepEqual(literal("text", { text: "{{x}}" }), { mapping: { value: "{{x}}" }, errors: [] });
  assert.deepEqual(literal("steps", { steps: "0" }), { mapping: 0, errors: [] });
  assert.equal(literal("steps", { steps: "1.5" }).errors[0].key, "ui.nodes.err_literal");
  assert.equal(literal("text", { text: "" }).errors[0].key, "ui.nodes.err_literal");
  assert.deepEqual(mappingFrom({ mode: "variable", variable: "user.id" }, echo, "text"), { mapping: "{{user.id}}", errors: [] });
  assert.equal(mappingFrom({ mode: "variable", variable: "" }, echo, "text").errors[0].key, "ui.nodes.err_bad_name");
  assert.deepEqual(mappingFrom({ mode: "template", text: "repos/{{owner}}/{{ repo }}" }, echo, "text").mapping, "repos/{{owner}}/{{ repo }}");
  assert.equal(mappingFrom({ mode: "template", text: "no refs" }, echo, "text").errors[0].key, "ui.nodes.err_no_reference");
  assert.equal(mappingFrom({ mode: "template", text: "a {{b" }, echo, "text").errors[0].key, "ui.nodes.err_unclosed");
  assert.equal(mappingFrom({ mode: "template", text: "a {{ }}" }, echo, "text").errors[0].key, "ui.nodes.err_bad_name");
  assert.equal(mappingFrom({ mode: "template", text: "{{1x}}" }, echo, "text").errors[0].key, "ui.nodes.err_bad_name");
  assert.deepEqual(mappingFrom({ mode: "model" }, echo, "text"), { mapping: undefined, errors: [] });
});

test("switching modes carries a variable into a template and back", () => {
  assert.deepEqual(choiceFor("template", echo, "text", { mode: "variable", variable: "now" }), { mode: "template", text: "{{now}}" });
  assert.deepEqual(choiceFor("variable", echo, "text", { mode: "template", text: "{{ now }}" }), { mode: "variable", variable: "now" });
  assert.deepEqual(choiceFor("variable", echo, "text", { mode: "template", text: "a {{now}}" }), { mode: "variable", variable: "" });
  assert.deepEqual(choiceFor("literal", echo, "steps"), { mode: "literal", state: { steps: "" } });
  assert.deepEqual(choiceFor("model", echo, "steps", { mode: "template", text: "x" }), { mode: "model" });
});

test("the picker offers the built-ins first, then the node's and the assistant's variables, each once", () => {
  const options = variableOptions([{ name: "owner" }, { name: "now" }], [{ name: "owner" }, { name: "repo" }, { name: "" }]);
  assert.deepEqual(options.map((o) => o.name), [...BUILTIN_VARIABLES, "owner", "repo"]);
  assert.deepEqual(options.map((o) => o.source), ["builtin", "builtin", "builtin", "builtin", "node", "assistant"]);
});

test("the model's schema loses the mapped parameters, from properties and required", () => {
  const seen = offeredSchema(echo, { text: "{{user.name}}" });
  assert.deepEqual(Object.keys(seen.properties), ["steps", "opts"]);
  assert.deepEqual(seen.required, []);
  assert.ok(seen.$defs.Opts, "definitions stay for the rest");
  assert.deepEqual(echo.required, ["text"], "the tool's own schema is untouched");
});

test("unticking a tool drops it; model decides drops the mapping; another server starts over", () => {
  const infos = [{ name: "echo", inputSchema: echo }];
  let s = selectTool(newNode({ serverId: "demo" }), "echo", true);
  s = setMode(s, "echo", "text", "variable", infos);
  s = setChoice(s, "echo", "text", { mode: "variable", variable: "user.name" });
  assert.deepEqual(nodeFrom(setFields(s, { name: "n" }), infos).node.selectedTools[0].parameterMappings, { text: "{{user.name}}" });
  assert.deepEqual(setMode(s, "echo", "text", "model", infos).tools[0].choices, {});
  assert.deepEqual(enabledTools(setToolEnabled(s, "echo", false)), []);
  assert.deepEqual(selectTool(s, "echo", false).tools, []);
  assert.deepEqual(setServer(s, "other").tools, []);
  assert.equal(setServer(s, "demo"), s);
});

test("a node that cannot be saved says why, naming the field as the server does", () => {
  const infos = [{ name: "echo", inputSchema: echo }];
  let s = setFields(newNode({ serverId: "" }), { maxRetries: "11", timeoutMs: "0" });
  s = setVariables(s, [{ name: "now", type: "string", default: "", description: "" }, { name: "n", type: "integer", default: "1.5", description: "" }]);
  assert.deepEqual(nodeFrom(s, infos).errors.map((e) => [e.path, e.key]), [
    ["name", "ui.nodes.err_name"],
    ["serverId", "ui.nodes.err_server"],
    ["maxRetries", "ui.nodes.err_retries"],
    ["timeoutMs", "ui.nodes.err_timeout"],
    ["variables[0]", "ui.nodes.err_var_reserved"],
    ["variables[1]", "ui.nodes.err_default_integer"],
    ["selectedTools", "ui.nodes.err_no_tools"],
  ]);
  s = selectTool(setFields(newNode({ serverId: "demo" }), { name: "n" }), "echo", true);
  s = setChoice(s, "echo", "text", { mode: "template", text: "{{oops" });
  assert.deepEqual(nodeFrom(s, infos).errors.map((e) => e.path), ["selectedTools[0].parameterMappings.text"]);
});

test("variable defaults are read by their type and shown back the same", () => {
  assert.deepEqual(defaultFrom("string", "42"), { value: "42" });
  assert.deepEqual(defaultFrom("number", "4.5"), { value: 4.5 });
  assert.deepEqual(defaultFrom("boolean", "false"), { value: false });
  assert.deepEqual(defaultFrom("any", "plain"), { value: "plain" });
  assert.deepEqual(defaultFrom("object", "[1]"), { error: "ui.nodes.err_default_object" });
  assert.deepEqual(defaultFrom("string", ""), { value: undefined });
  fc.assert(
    fc.property(declsArb, (decls) => {
      const { decls: back, errors } = declsFrom(decls.map(rowFrom));
      assert.deepEqual(errors, []);
      assert.deepEqual(back, decls);
    }),
    RUNS,
  );
});

/**
 * How one parameter of a tool node gets its value, as the person chooses it, and the mapping
 * JSON the API stores for that choice (the shared contract's `Mapping`). Pure: no DOM, no
 * API; it runs in Node as it is (web/tests/unit/node-mapping.test.mjs).
 *
 * A choice is one of
 *   {mode: "model"}                     no mapping: the model (or the caller) decides
 *   {mode: "literal", state}            a fixed value, typed in the schema form of that one
 *                                       parameter (`state` is that form's state)
 *   {mode: "variable", variable}        the whole value is `{{variable}}` (keeps its JSON type)
 *   {mode: "template", text}            a string with `{{...}}` inside, interpolated as text
 *
 * Mapping JSON, read and written as the server does: a string containing `{{` is a template;
 * any other string a literal; `{"variable": "a.b"}` alone is `{{a.b}}`; `{"value": X}` alone
 * is the literal X; any other JSON a literal. So a literal string holding `{{`, or a literal
 * object of one of those two shapes, is written inside `{"value": ...}`.
 */

import { collect, fieldFor, initialValue, stateFrom } from "../schema-fields.js";

/** The variables every run has (names reserved; a supplied value never overrides them). */
export const BUILTIN_VARIABLES = ["user.id", "user.name", "conversation.id", "now"];

/** A variable path: `name` or `name.key.key` (dotted paths reach into objects). */
const PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/u;

export const MODES = ["model", "literal", "variable", "template"];

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const onlyKey = (v, key) => isObj(v) && Object.keys(v).length === 1 && Object.hasOwn(v, key);

/** Whether `text` is a variable path as templates write it. */
export const isVariablePath = (text) => typeof text === "string" && PATH.test(text);

/**
 * The variables a template refers to, in order: `{refs, error}`. `error` is a locale key
 * (`ui.nodes.err_unclosed`, `ui.nodes.err_bad_name`) with `name` the offending text; the
 * server's parser has the same rules and has the last word.
 */
export function templateRefs(text) {
  const refs = [];
  let rest = String(text);
  for (;;) {
    const open = rest.indexOf("{{");
    if (open < 0) return { refs, error: null };
    const close = rest.indexOf("}}", open + 2);
    if (close < 0) return { refs, error: { key: "ui.nodes.err_unclosed", name: rest.slice(open) } };
    const name = rest.slice(open + 2, close).trim();
    if (!isVariablePath(name)) return { refs, error: { key: "ui.nodes.err_bad_name", name } };
    refs.push(name);
    rest = rest.slice(close + 2);
  }
}

/** The schema of the form for a literal of `param`: the tool's, narrowed to that one (its $defs kept). */
export function literalSchema(inputSchema, param) {
  const schema = isObj(inputSchema) ? inputSchema : {};
  const properties = isObj(schema.properties) ? schema.properties : {};
  return {
    ...schema,
    type: "object",
    properties: { [param]: Object.hasOwn(properties, param) ? properties[param] : {} },
    required: [param],
    additionalProperties: false,
  };
}

/** The form field of a literal of `param` (the root object with that one child). */
export const literalField = (inputSchema, param) => fieldFor(literalSchema(inputSchema, param));

/** A fresh choice of `mode` for `param`, carrying over what it can from `previous`. */
export function choiceFor(mode, inputSchema, param, previous = { mode: "model" }) {
  switch (mode) {
    case "literal":
      return { mode, state: initialValue(literalField(inputSchema, param)) };
    case "variable":
      return { mode, variable: previous.mode === "template" ? singleRef(previous.text) ?? "" : "" };
    case "template":
      return { mode, text: previous.mode === "variable" && previous.variable ? `{{${previous.variable}}}` : "" };
    default:
      return { mode: "model" };
  }
}

/** The name in a template that is exactly `{{name}}`, else undefined. */
function singleRef(text) {
  const m = /^\{\{\s*([^{}]*?)\s*\}\}$/u.exec(String(text ?? ""));
  return m && isVariablePath(m[1]) ? m[1] : undefined;
}

/** The choice that shows a stored `mapping` (undefined: none) of `param`. */
export function choiceFrom(mapping, inputSchema, param) {
  if (mapping === undefined) return { mode: "model" };
  if (typeof mapping === "string" && mapping.includes("{{")) {
    const name = singleRef(mapping);
    return name ? { mode: "variable", variable: name } : { mode: "template", text: mapping };
  }
  if (onlyKey(mapping, "variable") && typeof mapping.variable === "string") {
    return { mode: "variable", variable: mapping.variable };
  }
  const value = onlyKey(mapping, "value") ? mapping.value : mapping;
  return { mode: "literal", state: stateFrom(literalField(inputSchema, param), { [param]: value }) };
}

/** The JSON that stores the literal `value` and reads back as exactly that literal. */
export function literalJson(value) {
  const needsWrap = (typeof value === "string" && value.includes("{{")) || onlyKey(value, "variable") || onlyKey(value, "value");
  return needsWrap ? { value } : value;
}

/** The literal a mapping JSON stands for, or undefined when it is a template. */
export function literalOf(mapping) {
  if (typeof mapping === "string" && mapping.includes("{{")) return undefined;
  if (onlyKey(mapping, "variable")) return undefined;
  return onlyKey(mapping, "value") ? mapping.value : mapping;
}

/**
 * The mapping JSON of a choice: `{mapping, errors}`; mapping undefined for "model decides".
 * Errors are `{key, name?, detail?}` (locale keys under ui.nodes).
 */
export function mappingFrom(choice, inputSchema, param) {
  switch (choice?.mode) {
    case "literal": {
      const { value, errors } = collect(literalField(inputSchema, param), choice.state);
      if (errors.length) return { mapping: undefined, errors: errors.map((e) => ({ key: "ui.nodes.err_literal", detail: `${e.path}: ${e.message}` })) };
      const literal = isObj(value) ? value[param] : undefined;
      if (literal === undefined) return { mapping: undefined, errors: [{ key: "ui.nodes.err_literal_empty" }] };
      return { mapping: literalJson(literal), errors: [] };
    }
    case "variable":
      if (!isVariablePath(choice.variable)) return { mapping: undefined, errors: [{ key: "ui.nodes.err_bad_name", name: choice.variable ?? "" }] };
      return { mapping: `{{${choice.variable}}}`, errors: [] };
    case "template": {
      const { refs, error } = templateRefs(choice.text ?? "");
      if (error) return { mapping: undefined, errors: [error] };
      if (!refs.length) return { mapping: undefined, errors: [{ key: "ui.nodes.err_no_reference" }] };
      return { mapping: choice.text, errors: [] };
    }
    default:
      return { mapping: undefined, errors: [] };
  }
}

/**
 * The variables a picker offers: the built-ins, then the node's own, then its assistant's,
 * each once: `[{name, source: "builtin"|"node"|"assistant"}]`.
 */
export function variableOptions(nodeVariables = [], assistantVariables = []) {
  const seen = new Set();
  const out = [];
  const add = (name, source) => {
    if (!isVariablePath(name) || seen.has(name)) return;
    seen.add(name);
    out.push({ name, source });
  };
  BUILTIN_VARIABLES.forEach((n) => add(n, "builtin"));
  nodeVariables.forEach((v) => add(v?.name, "node"));
  assistantVariables.forEach((v) => add(v?.name, "assistant"));
  return out;
}

/** The schema the model sees under a node: mapped parameters gone from properties and required. */
export function offeredSchema(inputSchema, mappings = {}) {
  const schema = isObj(inputSchema) ? inputSchema : { type: "object" };
  const mapped = new Set(Object.keys(mappings));
  const properties = isObj(schema.properties)
    ? Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !mapped.has(k)))
    : schema.properties;
  const out = { ...schema };
  if (properties !== undefined) out.properties = properties;
  if (Array.isArray(schema.required)) out.required = schema.required.filter((k) => !mapped.has(k));
  return out;
}

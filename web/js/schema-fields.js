/**
 * From a tool's JSON Schema (`inputSchema`, draft-07 or 2020-12) to a tree of form fields, and
 * from the form's state back to the tool's `arguments`: the pure half of the "try a tool"
 * form (schema-form.js renders it). No DOM here; it runs in Node as it is.
 *
 * Mapping (`fieldFor`): string → "text" (`multiline` when it has no `format` and maxLength >
 * 200); number → "number"; integer → "integer"; boolean → "checkbox"; `enum` or `const` →
 * "select" (shown by `enumNames`, or by the `title`s of a `oneOf`/`anyOf` of `const`s, MCP's
 * titled enums); object with `properties` → "object" (`children`, each with its `key`); array →
 * "array" (`item`, a template whose path ends in "*"). A local `$ref` ("#/$defs/X",
 * "#/definitions/X", any "#/..." pointer) is followed, its sibling keywords winning; a
 * one-element `allOf` is merged. `type: [T, "null"]` and `anyOf`/`oneOf` of one schema plus
 * `{type: "null"}` become T, `nullable` and never `required`. Everything else is "json": a
 * textarea parsed as JSON — a schema without a type, a union of several non-null schemas,
 * several types, a map (object without `properties`), tuples (`prefixItems`), a `$ref` that
 * is remote, unresolved, recursive (met again inside itself) or past 6 nested `$ref`s.
 *
 * State (`initialValue`, `stateFrom`): text, number, integer and json hold the typed text;
 * select holds the chosen option's index as a string ("" = none); checkbox holds true, false
 * or null (unset); object a plain object by key; array a list of item states.
 *
 * Arguments (`collect`), one rule per kind:
 * - An empty field (text "", blank number/json text, no option, unset checkbox, no items) is
 *   an error "required" when required; sends null when the schema requires the key but
 *   allows null; otherwise the key is left out. So a text field never sends "".
 * - Booleans: a required checkbox starts unchecked (false) and always sends its state. An
 *   optional one starts unset (null, shown indeterminate) unless it has a `default`, and is
 *   sent once the person clicks it (or when it had a default).
 * - `default` prefills the field, so a prefilled optional field is sent like a typed one.
 * - An optional object is left out while nothing in it differs from how it started (empty
 *   or still its default), and then its required fields are not enforced; once touched, it
 *   is collected like a required one.
 * - Numbers must parse and be finite, integers whole, within minimum/maximum; arrays respect
 *   minItems/maxItems; json text must parse. Errors are `{path, message}` with the dotted
 *   path; `collect` never throws, and its value means something only when there are none.
 */

const MAX_REF_DEPTH = 6;

/** @typedef {(string|number)[]} Path */
/**
 * @typedef {object} Field
 * @property {"text"|"number"|"integer"|"checkbox"|"select"|"object"|"array"|"json"} kind
 * @property {Path} path  segments from the root; `name` is them joined by "."
 * @property {string} name  the controls' `name` attribute, e.g. "address.city"
 * @property {string} key  the property name in its parent ("" at the root, "*" for items)
 * @property {string} label  `title`, else the property name
 * @property {string} [description]
 * @property {boolean} required  empty is an error; marked and `required` on the control
 * @property {boolean} nullable  the schema allows null
 * @property {boolean} nullWhenEmpty  required by the schema but nullable: empty sends null
 * @property {*} [default]
 * @property {{label: string, value: *}[]} [options]  select choices
 * @property {boolean} [fixed]  select from a `const`
 * @property {Field[]} [children]  object fields
 * @property {Field} [item]  array item template
 * @property {string} [hint]  json: why the field is JSON
 */

/** The `name` of a path: its segments joined by ".", as in "tags.0". */
export const nameOf = (path) => path.join(".");

/**
 * A unique element id for `path` under `prefix`: segments joined by "-", each with every
 * character outside [A-Za-z0-9] written as _hex_, so no two paths share an id; ids made
 * from it with a ":" suffix (":help", ":error", ":add") cannot clash with another field's.
 */
export function idFor(prefix, path) {
  const enc = (s) => String(s).replace(/[^A-Za-z0-9]/gu, (c) => `_${c.codePointAt(0).toString(16)}_`);
  return [prefix, ...path.map(enc)].join("-");
}

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const own = (o, k) => (isObj(o) && Object.hasOwn(o, k) ? o[k] : undefined);
const without = (o, ...keys) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
const isNull = (s) => isObj(s) && s.type === "null";
function same(a, b) {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false; // a BigInt or a cycle in a hand-made state: not equal to anything
  }
}

/** The schema a local JSON pointer ("#/$defs/X") names in `root`, or undefined. */
function pointer(root, ref) {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let at = root;
  for (const raw of ref.slice(2).split("/")) {
    let seg;
    try {
      seg = decodeURIComponent(raw).replace(/~1/gu, "/").replace(/~0/gu, "~");
    } catch {
      return undefined;
    }
    at = Array.isArray(at) ? at[Number(seg)] : own(at, seg);
    if (at === undefined) return undefined;
  }
  return at;
}

/** Follows $ref, one-element allOf and null unions until a schema with a shape is left. */
function resolve(schema, refs, root) {
  let nullable = false;
  for (;;) {
    if (!isObj(schema)) return { schema: {}, nullable, refs };
    if (typeof schema.$ref === "string") {
      const ref = schema.$ref;
      const target = pointer(root, ref);
      const stop = refs.includes(ref) ? "recursive" : refs.length >= MAX_REF_DEPTH ? "too deeply nested"
        : isObj(target) ? "" : "unresolved";
      if (stop) return { schema: without(schema, "$ref"), nullable, refs, hint: `${stop} $ref ${ref}` };
      [schema, refs] = [{ ...target, ...without(schema, "$ref") }, [...refs, ref]];
      continue;
    }
    const alts = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
    if (alts) {
      const real = alts.filter((a) => !isNull(a));
      if (real.length > 1 && real.every((a) => isObj(a) && Object.hasOwn(a, "const"))) {
        // A titled enum (MCP's SEP-1330): a select of the constants, shown by their titles.
        const choice = { enum: real.map((a) => a.const), enumNames: real.map((a) => a.title) };
        nullable ||= real.length < alts.length;
        return { schema: { ...without(schema, "anyOf", "oneOf"), ...choice }, nullable, refs };
      }
      if (real.length !== 1) return { schema, nullable, refs, hint: "a choice of several schemas" };
      nullable ||= real.length < alts.length;
      schema = { ...real[0], ...without(schema, "anyOf", "oneOf") };
      continue;
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) {
      schema = { ...schema.allOf[0], ...without(schema, "allOf") };
      continue;
    }
    if (Array.isArray(schema.type)) {
      const types = schema.type.filter((t) => t !== "null");
      nullable ||= types.length < schema.type.length;
      if (types.length !== 1) return { schema, nullable, refs, hint: "several types" };
      schema = { ...schema, type: types[0] };
    }
    return { schema, nullable, refs };
  }
}

/**
 * The field tree of `schema`. Options: `path` (default [], the root), `required` (default:
 * true at the root), `key`, `label` (default: the title, else the key, else "Arguments").
 * @returns {Field}
 */
export function fieldFor(schema, options = {}) {
  const { path = [], required = path.length === 0, key = "", label } = options;
  return build(schema, { root: schema, refs: [] }, { path, required, key, label });
}

function build(raw, ctx, { path, required, key, label }) {
  const r = resolve(raw, ctx.refs, ctx.root);
  const s = r.schema;
  const field = {
    kind: "json", path, name: nameOf(path), key,
    label: typeof s.title === "string" && s.title ? s.title : label ?? (key || (path.length ? "item" : "Arguments")),
    required: required && !r.nullable, nullable: r.nullable, nullWhenEmpty: required && r.nullable,
  };
  if (typeof s.description === "string" && s.description) field.description = s.description;
  if (s.default !== undefined) field.default = s.default;
  const json = (hint) => Object.assign(field, { kind: "json", hint: r.hint ?? hint });
  if (r.hint) return json();
  const type = s.type ?? (isObj(s.properties) ? "object" : s.items !== undefined ? "array" : undefined);
  const sub = (schema, at) => build(schema, { root: ctx.root, refs: r.refs }, at);
  if (Object.hasOwn(s, "const") || Array.isArray(s.enum)) {
    const values = Object.hasOwn(s, "const") ? [s.const] : s.enum;
    if (!values.length) return json("an empty enum");
    const names = !Object.hasOwn(s, "const") && Array.isArray(s.enumNames) ? s.enumNames : [];
    const show = (v, i) =>
      typeof names[i] === "string" && names[i] ? names[i] : typeof v === "string" && v !== "" ? v : JSON.stringify(v);
    return Object.assign(field, {
      kind: "select", fixed: Object.hasOwn(s, "const"), options: values.map((value, i) => ({ label: show(value, i), value })),
    });
  }
  switch (type) {
    case "string":
      return Object.assign(field, {
        kind: "text", maxLength: s.maxLength, multiline: s.format === undefined && s.maxLength > 200,
      });
    case "number":
    case "integer":
      return Object.assign(field, {
        kind: type, minimum: s.minimum, maximum: s.maximum, step: s.multipleOf ?? (type === "integer" ? 1 : "any"),
      });
    case "boolean":
      return Object.assign(field, { kind: "checkbox" });
    case "object": {
      const closed = s.additionalProperties === false || (path.length === 0 && s.additionalProperties === undefined);
      if (!isObj(s.properties) && !(closed && s.patternProperties === undefined)) return json("an object of any keys");
      const req = Array.isArray(s.required) ? s.required : [];
      const children = Object.entries(s.properties ?? {}).map(([k, v]) =>
        sub(v, { path: [...path, k], required: req.includes(k), key: k }),
      );
      return Object.assign(field, { kind: "object", children });
    }
    case "array": {
      if (s.prefixItems !== undefined || s.items === false) return json("a tuple");
      const item = sub(s.items ?? {}, { path: [...path, "*"], required: true, key: "*", label: "" });
      return Object.assign(field, { kind: "array", item, minItems: s.minItems, maxItems: s.maxItems });
    }
    default:
      return json("any JSON value");
  }
}

/** The state of a field that nobody has touched: its default, else empty. */
export function initialValue(field) {
  if (field.default !== undefined) return stateFrom(field, field.default);
  switch (field.kind) {
    case "checkbox":
      return field.required ? false : null;
    case "select":
      return field.fixed && field.required ? "0" : "";
    case "object":
      return Object.fromEntries(field.children.map((c) => [c.key, initialValue(c)]));
    case "array":
      return field.required ? Array.from({ length: field.minItems ?? 0 }, () => initialValue(field.item)) : [];
    default:
      return stateFrom(field, undefined);
  }
}

/** The state that shows `value` (an argument value; undefined = absent) in `field`. */
export function stateFrom(field, value) {
  switch (field.kind) {
    case "text":
      return typeof value === "string" ? value : "";
    case "number":
    case "integer":
      return typeof value === "number" && Number.isFinite(value) ? String(value) : "";
    case "checkbox":
      return typeof value === "boolean" ? value : null;
    case "select": {
      if (value === undefined) return "";
      const i = field.options.findIndex((o) => same(o.value, value));
      return i < 0 ? "" : String(i);
    }
    case "object":
      return Object.fromEntries(field.children.map((c) => [c.key, stateFrom(c, own(value, c.key))]));
    case "array":
      return Array.isArray(value) ? value.map((v) => stateFrom(field.item, v)) : [];
    default:
      return value === undefined ? "" : JSON.stringify(value, null, 2);
  }
}

/** Whether an optional object (or any field) holds nothing beyond how it started. */
export function isBlank(field, state) {
  if (field.kind === "object") return field.children.every((c) => isBlank(c, own(state, c.key)));
  return isEmpty(field, state) || same(state, initialValue(field));
}

function isEmpty(field, state) {
  switch (field.kind) {
    case "checkbox":
      return typeof state !== "boolean";
    case "array":
      return !Array.isArray(state) || state.length === 0;
    case "object":
      return false;
    case "text":
      return typeof state !== "string" || state === "";
    default:
      return typeof state !== "string" || state.trim() === "";
  }
}

/**
 * The argument value of `field` in `state`: `{value, errors}`, value undefined when the
 * field is left out. Never throws, whatever `state` is.
 * @returns {{value: *, errors: {path: string, message: string}[]}}
 */
export function collect(field, state, path = field.path) {
  const errors = [];
  const value = walk(field, state, path, errors);
  return { value, errors };
}

function walk(field, state, path, errors) {
  const fail = (message) => void errors.push({ path: nameOf(path), message });
  const empty = () => {
    if (field.kind === "checkbox" && field.required) return false;
    if (field.required) return fail("required");
    return field.nullWhenEmpty ? null : undefined;
  };
  if (field.kind === "object") {
    if (!field.required && isBlank(field, state)) return empty();
    const entries = field.children.map((c) => [c.key, walk(c, own(state, c.key), [...path, c.key], errors)]);
    return Object.fromEntries(entries.filter(([, v]) => v !== undefined));
  }
  if (field.kind === "array") {
    const items = Array.isArray(state) ? state : [];
    if (!items.length && !field.required) return empty(); // a required list may be empty
    const values = items.map((s, i) => walk(field.item, s, [...path, i], errors));
    if (values.length < (field.minItems ?? 0)) fail(`at least ${field.minItems} items`);
    if (values.length > (field.maxItems ?? Infinity)) fail(`at most ${field.maxItems} items`);
    return values;
  }
  if (isEmpty(field, state)) return empty();
  switch (field.kind) {
    case "text":
    case "checkbox":
      return state;
    case "number":
    case "integer": {
      const n = Number(state.trim());
      if (!Number.isFinite(n)) return fail("not a number");
      if (field.kind === "integer" && !Number.isInteger(n)) return fail("must be a whole number");
      if (typeof field.minimum === "number" && n < field.minimum) return fail(`must be at least ${field.minimum}`);
      if (typeof field.maximum === "number" && n > field.maximum) return fail(`must be at most ${field.maximum}`);
      return n === 0 ? 0 : n;
    }
    case "select": {
      const option = /^\d+$/u.test(state) ? field.options[Number(state)] : undefined;
      return option ? option.value : empty();
    }
    default:
      try {
        return JSON.parse(state);
      } catch (e) {
        return fail(`invalid JSON: ${e.message}`);
      }
  }
}

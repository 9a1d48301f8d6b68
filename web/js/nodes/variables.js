/**
 * Declared variables (`[{name, type, default?, description?}]`, the contract's VariableDecl)
 * as rows a person edits, and back. A default is typed as text and read by the variable's
 * type: a string as written, a number or integer as a number, a boolean as true/false, an
 * object, array or "any" as JSON ("any" takes text that is not JSON as a string). Empty text
 * is no default. Pure; the errors are locale keys the editor shows.
 */

import { BUILTIN_VARIABLES } from "./mapping.js";

export const VARIABLE_TYPES = ["string", "number", "integer", "boolean", "object", "array", "any"];

/** A declared name: one segment (dotted paths are for reaching into a value, not for names). */
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/u;

/** Built-in names (of one segment: `now`), which nothing may declare. A declared `user` is
 * allowed, as the server allows it: `{{user.email}}` reaches into it, `{{user.id}}` stays the built-in. */
const RESERVED = new Set(BUILTIN_VARIABLES);

export const emptyRow = () => ({ name: "", type: "string", default: "", description: "" });

/** The row that shows `decl`. */
export function rowFrom(decl) {
  const type = VARIABLE_TYPES.includes(decl?.type) ? decl.type : "any";
  const value = decl?.default;
  let text = "";
  if (value !== undefined && value !== null) text = type === "string" && typeof value === "string" ? value : JSON.stringify(value);
  else if (value === null) text = "null";
  return { name: decl?.name ?? "", type, default: text, description: decl?.description ?? "" };
}

/** The default a row's text stands for: `{value}` (undefined: none) or `{error}`. */
export function defaultFrom(type, text) {
  if (text === "" || text === undefined) return { value: undefined };
  const json = () => {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { error: "ui.nodes.err_default_json" };
    }
  };
  switch (type) {
    case "string":
      return { value: text };
    case "number":
    case "integer": {
      const n = Number(text.trim());
      if (text.trim() === "" || !Number.isFinite(n)) return { error: "ui.nodes.err_default_number" };
      if (type === "integer" && !Number.isInteger(n)) return { error: "ui.nodes.err_default_integer" };
      return { value: n === 0 ? 0 : n };
    }
    case "boolean":
      if (text.trim() === "true") return { value: true };
      if (text.trim() === "false") return { value: false };
      return { error: "ui.nodes.err_default_boolean" };
    case "object": {
      const r = json();
      if (r.error) return r;
      return r.value !== null && typeof r.value === "object" && !Array.isArray(r.value) ? r : { error: "ui.nodes.err_default_object" };
    }
    case "array": {
      const r = json();
      if (r.error) return r;
      return Array.isArray(r.value) ? r : { error: "ui.nodes.err_default_array" };
    }
    default: {
      const r = json();
      return r.error ? { value: text } : r;
    }
  }
}

/**
 * The declarations of `rows`: `{decls, errors}`, errors `{index, key, name}`. A row with no
 * name and nothing else is skipped (a row just added); a duplicate or reserved name fails.
 */
export function declsFrom(rows) {
  const decls = [];
  const errors = [];
  const seen = new Set();
  rows.forEach((row, index) => {
    const name = (row.name ?? "").trim();
    if (!name && !row.default && !row.description) return;
    const fail = (key) => errors.push({ index, key, name });
    if (!NAME.test(name)) return fail("ui.nodes.err_var_name");
    if (RESERVED.has(name)) return fail("ui.nodes.err_var_reserved");
    if (seen.has(name)) return fail("ui.nodes.err_var_duplicate");
    seen.add(name);
    const type = VARIABLE_TYPES.includes(row.type) ? row.type : "any";
    const { value, error } = defaultFrom(type, row.default ?? "");
    if (error) return fail(error);
    const decl = { name, type };
    if (value !== undefined) decl.default = value;
    if (row.description?.trim()) decl.description = row.description.trim();
    decls.push(decl);
  });
  return { decls, errors };
}

// What a tool call offered through a tool node runs with, as its block shows it: the
// arguments with the node's mappings filled in (`resolvedArguments`), each mapped one named
// with where its value comes from (`mappedParameters`). The pure half of tool-call-block.js.

/**
 * The rows of `call`'s resolved arguments, in order: `{name, value, from}`, `value` the JSON
 * text, `from` null for an argument the model gave, else `{variables}` (none: a value fixed
 * in the node). Null for a call with no resolved arguments (no node).
 */
export function argumentRows(call) {
  const resolved = call?.resolvedArguments;
  if (!resolved || typeof resolved !== "object") return null;
  const mapped = call.mappedParameters || {};
  return Object.entries(resolved).map(([name, value]) => ({
    name,
    value: JSON.stringify(value),
    from: Object.prototype.hasOwnProperty.call(mapped, name)
      ? { variables: Array.isArray(mapped[name]?.variables) ? mapped[name].variables : [] }
      : null,
  }));
}

/** Whether the call has run (its resolved arguments are then what was sent). */
export function hasRun(call) {
  return call?.status === "done" || call?.status === "error";
}

/** The key and values of the words for where a mapped value comes from (`ui.call.*`). */
export function fromWords(from) {
  const variables = from?.variables || [];
  if (variables.length === 0) return ["ui.call.fixed", {}];
  if (variables.length === 1) return ["ui.call.from_variable", { name: variables[0] }];
  return ["ui.call.from_variables", { names: variables.join(", ") }];
}

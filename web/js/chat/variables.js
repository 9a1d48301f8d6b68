/**
 * A conversation's variables as rows of text, and back (the chat page's variables panel).
 * A value is typed as JSON when it reads as JSON and as a plain string otherwise, so `42` is
 * a number, `true` a boolean, `{"a":1}` an object and `Ada` a string; a string that would
 * read as something else (`"42"`) is shown in quotes. So every value shows as text that reads
 * back as the same value. Pure.
 */

/** The text that shows `value`. */
export function valueText(value) {
  if (typeof value !== "string") return JSON.stringify(value);
  try {
    JSON.parse(value);
    return JSON.stringify(value); // would read back as something else: quote it
  } catch {
    return value;
  }
}

/** The value `text` stands for. */
export function valueFrom(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Rows for a variables object, in its key order. */
export const rowsFrom = (variables) =>
  Object.entries(variables && typeof variables === "object" ? variables : {}).map(([name, value]) => ({ name, value: valueText(value) }));

/**
 * The variables object of `rows`: `{variables, errors}`; errors `{index, key}` for an empty
 * or repeated name. Rows with no name and no value are skipped.
 */
export function variablesFrom(rows) {
  const entries = [];
  const seen = new Set();
  const errors = [];
  rows.forEach((row, index) => {
    const name = row.name.trim();
    if (!name && !row.value) return;
    if (!name) return errors.push({ index, key: "ui.chat.vars_err_name" });
    if (seen.has(name)) return errors.push({ index, key: "ui.chat.vars_err_duplicate" });
    seen.add(name);
    entries.push([name, valueFrom(row.value)]);
  });
  // fromEntries defines own keys, so a name like "__proto__" is a variable like any other.
  return { variables: Object.fromEntries(entries), errors };
}

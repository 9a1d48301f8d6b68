/**
 * The form for trying an MCP tool: renders the field tree of its `inputSchema` (see
 * schema-fields.js, re-exported here, for the mapping and the argument rules) as controlled
 * inputs.
 *
 *   const field = fieldFor(tool.inputSchema);
 *   const [state, setState] = useState(() => initialValue(field));
 *   html`<${SchemaForm} schema=${tool.inputSchema} value=${state} onChange=${setState}
 *          idPrefix="try" errors=${shown} />`;
 *   const { value: args, errors } = collect(field, state);
 *
 * Each control has id `idFor(idPrefix, path)`, `name` = the dotted path, `data-kind` = the
 * field's kind and a `<label for>`; objects and arrays are a `<fieldset data-kind>` with a
 * `<legend>`. The description is a `:help` paragraph and an error (from `errors`, the list
 * `collect` gives) a `:error` one, both named by the control's `aria-describedby`. The
 * root object's fields are rendered without a group of their own. Styling hooks: the
 * classes `schema-form`, `sf-field`, `sf-check`, `sf-help`, `sf-error`, `sf-required`,
 * `sf-items`, `sf-none`; no inline styles (the page's CSP forbids them).
 */

import { h } from "../vendor/preact.js";
import { useMemo } from "../vendor/hooks.js";
import htm from "../vendor/htm.js";
import { t } from "./i18n.js";
import { fieldFor, idFor, initialValue, nameOf } from "./schema-fields.js";

export * from "./schema-fields.js";

const html = htm.bind(h);
const own = (o, k) => (o !== null && typeof o === "object" && Object.hasOwn(o, k) ? o[k] : undefined);

/**
 * @param {object} props
 * @param {object} props.schema  the tool's inputSchema
 * @param {*} [props.value]  the form state; undefined shows `initialValue`
 * @param {(state: *) => void} props.onChange  called with the whole new state
 * @param {string} [props.idPrefix]  prefix of every id, unique on the page
 * @param {{path: string, message: string}[]} [props.errors]  shown next to their fields
 */
export function SchemaForm({ schema, value, onChange, idPrefix = "sf", errors = [] }) {
  const field = useMemo(() => fieldFor(schema ?? {}), [schema]);
  const state = value === undefined ? initialValue(field) : value;
  const ctx = { idPrefix, errors: new Map(errors.map((e) => [e.path, e.message])) };
  let body;
  if (field.kind !== "object") body = renderField(field, field.path, state, onChange, ctx);
  else if (!field.children.length) body = html`<p class="sf-none">${t("ui.form.no_arguments")}</p>`;
  else body = children(field, field.path, state, onChange, ctx);
  return html`<div class="schema-form">${body}</div>`;
}

function children(field, path, state, set, ctx) {
  const obj = state !== null && typeof state === "object" && !Array.isArray(state) ? state : {};
  return field.children.map((c) =>
    renderField(c, [...path, c.key], own(obj, c.key), (v) => set({ ...obj, [c.key]: v }), ctx),
  );
}

/** The label text, with a visible mark (hidden from screen readers, which hear `required`). */
function labelText(field, label) {
  const mark = field.required && field.kind !== "checkbox";
  return html`${label}${mark && html`<span class="sf-required" aria-hidden="true"> *</span>`}`;
}

function renderField(field, path, state, set, ctx, label = field.label) {
  const id = idFor(ctx.idPrefix, path);
  const name = nameOf(path);
  const error = ctx.errors.get(name);
  const describedBy = [field.description && `${id}:help`, error && `${id}:error`].filter(Boolean).join(" ") || undefined;
  const help = field.description && html`<p id=${`${id}:help`} class="sf-help">${field.description}</p>`;
  const err = error && html`<p id=${`${id}:error`} class="sf-error">${error}</p>`;
  const common = {
    id, name, "data-kind": field.kind, "aria-describedby": describedBy, "aria-invalid": error ? "true" : undefined,
  };
  const text = typeof state === "string" ? state : "";
  const onText = (e) => set(e.currentTarget.value);

  if (field.kind === "object") {
    return html`<fieldset key=${name} ...${common} class="sf-field">
      <legend>${labelText(field, label)}</legend>${help}${err}${children(field, path, state, set, ctx)}
    </fieldset>`;
  }
  if (field.kind === "array") return renderArray(field, path, state, set, ctx, { label, common, help, err });
  if (field.kind === "checkbox") {
    return html`<div key=${name} class="sf-field sf-check">
      <input type="checkbox" ...${common} checked=${state === true} indeterminate=${state !== true && state !== false}
        onChange=${(e) => set(e.currentTarget.checked)} />
      <label for=${id}>${label}</label>${help}${err}
    </div>`;
  }
  let control;
  if (field.kind === "select") {
    control = html`<select ...${common} required=${field.required} value=${text} onChange=${onText}>
      <option value="">${field.required ? t("ui.form.choose") : "—"}</option>
      ${field.options.map((o, i) => html`<option key=${i} value=${String(i)}>${o.label}</option>`)}
    </select>`;
  } else if (field.kind === "number" || field.kind === "integer") {
    control = html`<input type="number" ...${common} required=${field.required} value=${text} onInput=${onText}
      step=${String(field.step)} min=${field.minimum} max=${field.maximum} />`;
  } else if (field.kind === "text" && !field.multiline) {
    control = html`<input type="text" ...${common} required=${field.required} value=${text} onInput=${onText}
      maxlength=${field.maxLength} />`;
  } else {
    const json = field.kind === "json";
    control = html`<textarea ...${common} required=${field.required} value=${text} onInput=${onText}
      maxlength=${field.maxLength} rows=${json ? 4 : 6} spellcheck=${json ? "false" : undefined}
      placeholder=${json ? "JSON" : undefined} />`;
  }
  return html`<div key=${name} class="sf-field">
    <label for=${id}>${labelText(field, label)}${field.kind === "json" && html` (JSON)`}</label>
    ${control}${help}${err}
  </div>`;
}

function renderArray(field, path, state, set, ctx, { label, common, help, err }) {
  const items = Array.isArray(state) ? state : [];
  const { id, name } = common;
  const canAdd = items.length < (field.maxItems ?? Infinity);
  const canRemove = items.length > (field.minItems ?? 0) || !field.required;
  const itemLabel = (i) => (field.item.label ? `${field.item.label} ${i + 1}` : t("ui.form.item_n", { label, n: i + 1 }));
  return html`<fieldset key=${name} ...${common} class="sf-field">
    <legend>${labelText(field, label)}</legend>${help}${err}
    <ol id=${`${id}:list`} class="sf-items">
      ${items.map(
        (s, i) => html`<li key=${i}>
          ${renderField(field.item, [...path, i], s, (v) => set(items.map((x, j) => (j === i ? v : x))), ctx, itemLabel(i))}
          <button type="button" disabled=${!canRemove} aria-label=${t("ui.form.remove_x", { label: itemLabel(i) })}
            onClick=${() => set(items.filter((_, j) => j !== i))}>${t("ui.form.remove")}</button>
        </li>`,
      )}
    </ol>
    <button type="button" id=${`${id}:add`} disabled=${!canAdd} aria-label=${t("ui.form.add_item_to", { label })}
      onClick=${() => set([...items, initialValue(field.item)])}>${t("ui.form.add_item")}</button>
  </fieldset>`;
}

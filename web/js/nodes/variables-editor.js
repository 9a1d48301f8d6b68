// Declared variables (name, type, default), for an assistant or a node: each row a name, a
// type and a default typed as text (variables.js reads it by the type).

import { html } from "../html.js";
import { t } from "../i18n.js";
import { VARIABLE_TYPES, emptyRow } from "./variables.js";

/** `errors`: `[{index, key, name}]` from declsFrom, shown under their rows. */
export function VariablesEditor({ id, legend, rows, onChange, errors = [] }) {
  const set = (i, patch) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return html`<fieldset class="rows variables" id=${id}>
    <legend>${legend}</legend>
    ${rows.length === 0 ? html`<p class="muted small">${t("ui.nodes.no_variables")}</p>` : null}
    ${rows.map((row, i) => {
      const error = errors.find((e) => e.index === i);
      return html`<div key=${i}>
        <div class="row">
          <label for=${`${id}-name-${i}`} class="visually-hidden">${t("ui.nodes.var_name_n", { n: i + 1 })}</label>
          <input id=${`${id}-name-${i}`} placeholder=${t("ui.nodes.var_name")} value=${row.name}
            onInput=${(e) => set(i, { name: e.currentTarget.value })} />
          <label for=${`${id}-type-${i}`} class="visually-hidden">${t("ui.nodes.var_type_n", { n: i + 1 })}</label>
          <select id=${`${id}-type-${i}`} value=${row.type} onChange=${(e) => set(i, { type: e.currentTarget.value })}>
            ${VARIABLE_TYPES.map((type) => html`<option value=${type} selected=${type === row.type}>${type}</option>`)}
          </select>
          <label for=${`${id}-default-${i}`} class="visually-hidden">${t("ui.nodes.var_default_n", { n: i + 1 })}</label>
          <input id=${`${id}-default-${i}`} placeholder=${t("ui.nodes.var_default")} value=${row.default}
            onInput=${(e) => set(i, { default: e.currentTarget.value })} />
          <button type="button" class="quiet" aria-label=${t("ui.nodes.var_remove_n", { n: i + 1 })}
            onClick=${() => onChange(rows.filter((_, j) => j !== i))}>${t("ui.rows.remove")}</button>
        </div>
        ${error ? html`<p class="error small" role="alert">${t(error.key, { name: error.name })}</p>` : null}
      </div>`;
    })}
    <button type="button" id=${`${id}-add`} onClick=${() => onChange([...rows, emptyRow()])}>${t("ui.nodes.var_add")}</button>
  </fieldset>`;
}

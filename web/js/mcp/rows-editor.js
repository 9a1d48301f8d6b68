// Name/value rows (environment variables, headers), with an optional "secret" switch.

import { html } from "../html.js";
import { t } from "../i18n.js";

// `secretValues`: every value is a secret (header values are stored encrypted and shown
// masked), so typed ones are hidden too.
export function RowsEditor({ id, legend, rows, onChange, secretSwitch, secretValues, nameLabel = t("ui.rows.name") }) {
  const set = (i, patch) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return html`<fieldset class="rows" id=${id}>
    <legend>${legend}</legend>
    ${rows.map((row, i) => html`<div class="row" key=${i}>
      <label for=${`${id}-name-${i}`} class="visually-hidden">${nameLabel} ${i + 1}</label>
      <input id=${`${id}-name-${i}`} placeholder=${nameLabel} value=${row.name}
        onInput=${(e) => set(i, { name: e.currentTarget.value })} />
      <label for=${`${id}-value-${i}`} class="visually-hidden">${t("ui.rows.value_n", { n: i + 1 })}</label>
      <input id=${`${id}-value-${i}`} placeholder=${t("ui.rows.value")} value=${row.value}
        type=${row.secret || secretValues ? "password" : "text"} autocomplete="off"
        onInput=${(e) => set(i, { value: e.currentTarget.value })} />
      ${secretSwitch
        ? html`<label class="inline"><input type="checkbox" checked=${!!row.secret}
            onChange=${(e) => set(i, { secret: e.currentTarget.checked })} /> ${t("ui.rows.secret")}</label>`
        : null}
      <button type="button" class="quiet" aria-label=${t("ui.rows.remove_n", { n: i + 1 })}
        onClick=${() => onChange(rows.filter((_, j) => j !== i))}>${t("ui.rows.remove")}</button>
    </div>`)}
    <button type="button" onClick=${() => onChange([...rows, { name: "", value: "", secret: false }])}>${t("ui.rows.add")}</button>
  </fieldset>`;
}

// Labelled form controls used by the settings pages. Each control gets an id and a <label>,
// so it is reachable by keyboard and named for assistive technology (and for the tests).

import { html } from "../html.js";

export function TextField({ id, label, value, onInput, type = "text", placeholder, required, hint, autocomplete, step, min, max }) {
  return html`<div class="field">
    <label for=${id}>${label}${required ? html`<span aria-hidden="true"> *</span>` : null}</label>
    <input id=${id} name=${id} type=${type} value=${value ?? ""} placeholder=${placeholder} step=${step} min=${min} max=${max}
      required=${required} autocomplete=${autocomplete || "off"}
      aria-describedby=${hint ? `${id}-hint` : undefined}
      onInput=${(e) => onInput(e.currentTarget.value)} />
    ${hint ? html`<small id=${`${id}-hint`}>${hint}</small>` : null}
  </div>`;
}

export function TextArea({ id, label, value, onInput, rows = 3, hint, placeholder }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <textarea id=${id} name=${id} rows=${rows} placeholder=${placeholder}
      aria-describedby=${hint ? `${id}-hint` : undefined}
      onInput=${(e) => onInput(e.currentTarget.value)}>${value ?? ""}</textarea>
    ${hint ? html`<small id=${`${id}-hint`}>${hint}</small>` : null}
  </div>`;
}

export function Select({ id, label, value, onChange, options, hint }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} name=${id} value=${value} aria-describedby=${hint ? `${id}-hint` : undefined}
      onChange=${(e) => onChange(e.currentTarget.value)}>
      ${options.map(([v, text]) => html`<option value=${v} selected=${v === value}>${text}</option>`)}
    </select>
    ${hint ? html`<small id=${`${id}-hint`}>${hint}</small>` : null}
  </div>`;
}

export function Checkbox({ id, label, checked, onChange }) {
  return html`<div class="field check">
    <input id=${id} name=${id} type="checkbox" checked=${!!checked}
      onChange=${(e) => onChange(e.currentTarget.checked)} />
    <label for=${id}>${label}</label>
  </div>`;
}

// An error as the API reports it: its code and its message, announced to screen readers,
// and under them what the person can do about it (the error's hint, seed 002).

import { html } from "../html.js";

export function ErrorNote({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert">
    ${error.code ? html`<code>${error.code}</code> ` : null}${error.message || String(error)}
    ${error.hint ? html`<span class="hint">${error.hint}</span>` : null}
  </p>`;
}

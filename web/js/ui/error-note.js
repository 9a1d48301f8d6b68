// An error as the API reports it: its code and its message, announced to screen readers.

import { html } from "../html.js";

export function ErrorNote({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert">
    ${error.code ? html`<code>${error.code}</code> ` : null}${error.message || String(error)}
  </p>`;
}

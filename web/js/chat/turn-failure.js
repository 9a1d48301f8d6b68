// A turn that failed, in the conversation where its answer would be: what went wrong (the
// stored failure, in the reader's language, with what to do about it) and, for the last
// turn, Retry. Also what a run's `run.failed` said before the failure is read back.

import { html } from "../html.js";
import { t } from "../i18n.js";

export function TurnFailure({ failure, onRetry, busy }) {
  return html`<div class="turn-failure" role="alert">
    <strong class="turn-failure-title">${t("ui.message.failed")}</strong>
    <p class="error">
      ${failure.code ? html`<code>${failure.code}</code> ` : null}${failure.message}
      ${failure.hint ? html`<span class="hint">${failure.hint}</span>` : null}
    </p>
    ${onRetry
      ? html`<button type="button" class="primary" disabled=${busy} onClick=${onRetry}>${t("ui.message.retry")}</button>`
      : null}
  </div>`;
}

/** What shows while the model has said nothing yet in a turn. */
export function Thinking() {
  return html`<div class="thinking" data-role="thinking">
    <span class="thinking-dots" aria-hidden="true"><span></span><span></span><span></span></span>
    ${t("ui.message.thinking")}
  </div>`;
}

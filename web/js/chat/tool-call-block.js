// One tool call inline in an assistant message (seed 001's ToolCallBlock): its server and
// tool, its status, its arguments and result; Approve and Reject while it waits, and a
// server's question (question-block.js) or sampling request (sampling-block.js) while it runs,
// and the task it runs as (task-line.js: status, progress, time, Cancel) when it is one.
// A call through a tool node shows the arguments that run, its mapped ones tagged with
// where their value comes from, and what the model asked for under them.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { post, seg } from "../api.js";
import { t } from "../i18n.js";
import { statusKey } from "./call-status.js";
import { awaitsDecision } from "./state.js";
import { QuestionBlock } from "./question-block.js";
import { SamplingBlock } from "./sampling-block.js";
import { TaskLine } from "./task-line.js";
import { ToolResult } from "./tool-result.js";
import { argumentRows, fromWords, hasRun } from "./resolved-arguments.js";
import { ErrorNote } from "../ui/error-note.js";

const statusText = () => ({
  pending: t("ui.call.status_pending"),
  invoking: t("ui.call.status_invoking"),
  done: t("ui.call.status_done"),
  error: t("ui.call.status_error"),
  cancelled: t("ui.call.status_cancelled"),
  rejected: t("ui.call.status_rejected"),
});

export function ToolCallBlock({ call, messageId }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const waiting = awaitsDecision(call);
  const decide = async (approved) => {
    setBusy(true);
    setError(null);
    try {
      await post(`/api/messages/${seg(messageId)}/tool-confirm`, { toolCallId: call.id, approved });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const label = `${call.serverName} / ${call.toolName}`;
  return html`
    <section class=${`tool-call status-${call.status}`} data-call-id=${call.id}
      data-tool=${call.toolName} data-status=${call.status} aria-label=${t("ui.call.label", { label })}>
      <header>
        <span class="tool-name"><span class="server">${call.serverName}</span> / <strong>${call.toolName}</strong></span>
        <span class="badge" data-role="status">${statusText()[statusKey(call)] || call.status}</span>
      </header>
      <${Arguments} call=${call} open=${waiting} />
      ${call.task ? html`<${TaskLine} call=${call} messageId=${messageId} />` : null}
      ${waiting
        ? html`<div class="actions">
            <button type="button" class="primary" disabled=${busy} onClick=${() => decide(true)}>${t("ui.call.approve")}</button>
            <button type="button" disabled=${busy} onClick=${() => decide(false)}>${t("ui.call.reject")}</button>
          </div>`
        : null}
      ${call.question?.mode === "sampling"
        ? html`<${SamplingBlock} key=${`${call.question.id}:${call.question.sampling?.stage}`} call=${call} messageId=${messageId} />`
        : call.question
          ? html`<${QuestionBlock} key=${call.question.id} call=${call} messageId=${messageId} />`
          : null}
      ${call.response !== undefined
        ? html`<div class="result" data-role="result">
            <div class="result-label">${call.status === "cancelled" ? t("ui.call.not_run") : call.isError ? t("ui.call.error") : t("ui.call.result")}</div>
            <${ToolResult} result=${call.response} />
          </div>`
        : null}
      <${ErrorNote} error=${error} />
    </section>
  `;
}

/** The call's arguments: those that run under a tool node, else the model's. */
function Arguments({ call, open }) {
  const asked = html`<pre class="arguments">${JSON.stringify(call.arguments ?? {}, null, 2)}</pre>`;
  const rows = argumentRows(call);
  if (!rows) {
    return html`<details open=${open}>
      <summary>${t("ui.call.arguments")}</summary>
      ${asked}
    </details>`;
  }
  return html`<details open=${open}>
    <summary>${hasRun(call) ? t("ui.call.resolved_ran") : t("ui.call.resolved")}</summary>
    <dl class="resolved-arguments" data-role="resolved-arguments">
      ${rows.map((row) => html`<div class="argument" key=${row.name} data-param=${row.name}
          data-mapped=${row.from ? "true" : undefined}>
        <dt>${row.name}</dt>
        <dd><code>${row.value}</code>${row.from ? html` <span class="tag mapped">${t(...fromWords(row.from))}</span>` : null}</dd>
      </div>`)}
    </dl>
    <details class="model-asked">
      <summary>${t("ui.call.model_asked")}</summary>
      ${asked}
    </details>
  </details>`;
}

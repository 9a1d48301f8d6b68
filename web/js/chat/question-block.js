// A server's question inside its tool call's block, like an approval: the server's words
// (plain text), then a form generated from its schema (form mode) or a link to the server's
// page (url mode), and Accept (Done) / Decline / Cancel. Once answered, one line says how.
// The answer comes back in the reply and as an `assistant.toolCall.updated` event; a 409
// means it was answered already (another tab), and the event brings what was stored.
//
// Rendered with `key` = the question's id, so a newer question starts afresh.

import { html } from "../html.js";
import { useMemo, useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";
import { SchemaForm, idFor } from "../schema-form.js";
import { ErrorNote } from "../ui/error-note.js";
import { useAnswering } from "./answering.js";
import { answerBody, answeredText, initialAnswer, openQuestion, questionField, questionLink } from "./question.js";

export function QuestionBlock({ call, messageId }) {
  const question = call.question;
  const field = useMemo(() => questionField(question), [question.id]);
  const [state, setState] = useState(() => initialAnswer(field));
  const [problems, setProblems] = useState([]);
  const id = idFor("question", [question.id]);
  const { busy, error, setError, local, open, line, send: post } = useAnswering({
    call, question, messageId, id, waiting: openQuestion(call) !== null,
  });

  const answer = question.answer ?? local?.answer ?? null;

  if (answer) {
    return html`<p class="question-answered" data-role="answered" tabindex="-1" ref=${line}>${answeredText(answer)}</p>`;
  }
  if (local?.gone) {
    return html`<p class="question-answered" data-role="answered" tabindex="-1" ref=${line}>${t("ui.question.not_waiting")}</p>`;
  }
  if (!open) return null;

  const send = (action) => {
    setError(null);
    const { body, errors } = answerBody(question, action, field, state);
    setProblems(errors ?? []);
    if (!errors) post(action, body);
  };
  const submit = (event) => {
    event.preventDefault();
    send("accept");
  };

  const link = questionLink(question);
  const form = question.mode === "form";
  return html`<form id=${id} class="question" novalidate data-role="question" data-mode=${question.mode}
    aria-labelledby=${`${id}:title`} aria-describedby=${`${id}:message`} aria-busy=${busy} onSubmit=${submit}>
    <p class="question-title" id=${`${id}:title`}><strong>${t("ui.question.title", { server: call.serverName })}</strong></p>
    <p class="plain question-message" id=${`${id}:message`}>${question.message}</p>
    ${form && field.children?.length
      ? html`<${SchemaForm} schema=${question.requestedSchema} value=${state} onChange=${setState}
          errors=${problems} idPrefix=${id} />`
      : null}
    ${problems.length
      ? html`<ul class="error" role="alert">${problems.map((p) => html`<li>${p.path ? html`<code>${p.path}</code>: ` : null}${p.message}</li>`)}</ul>`
      : null}
    ${!form && link
      ? html`<p class="question-link"><a href=${link} target="_blank" rel="noopener noreferrer">${link}</a></p>
          <p class="muted">${t("ui.question.url_note", { server: call.serverName })}</p>`
      : null}
    ${!form && !link
      ? html`<p class="muted">${t("ui.question.url_refused")} <code>${question.url ?? ""}</code></p>`
      : null}
    <div class="actions">
      ${form || link
        ? html`<button type="submit" class="primary" disabled=${busy}>${form ? t("ui.question.accept") : t("ui.question.done")}</button>`
        : null}
      <button type="button" disabled=${busy} onClick=${() => send("decline")}>${t("ui.question.decline")}</button>
      <button type="button" disabled=${busy} onClick=${() => send("cancel")}>${t("ui.question.cancel")}</button>
    </div>
    <${ErrorNote} error=${error} />
  </form>`;
}

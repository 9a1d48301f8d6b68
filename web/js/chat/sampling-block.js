// A server's sampling request inside its tool call's block (sampling.js says how it is
// decided): what the server would send to the model (system prompt, each message, the model
// and the token cap), editable behind Edit at the "request" stage; the model's draft in a box
// at the "answer" stage. Once decided, or when the server's setting answered it without
// asking, one line says how, with what was sent folded under it.
//
// Rendered with `key` = the question's id and stage, so each stage starts afresh. As for a
// question, a 409 means it was decided already (another tab); the event brings what was stored.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";
import { idFor } from "../schema-fields.js";
import { ErrorNote } from "../ui/error-note.js";
import { useAnswering } from "./answering.js";
import { openSampling, samplingBody, samplingDraft, samplingLine, samplingMessages, samplingStage } from "./sampling.js";

export function SamplingBlock({ call, messageId }) {
  const question = call.question;
  const s = question.sampling || {};
  const stage = samplingStage(question);
  const [draft, setDraft] = useState(() => samplingDraft(question));
  const [editing, setEditing] = useState(false);
  const id = idFor("sampling", [question.id, stage]);
  const { busy, error, local, open, line, send: post } = useAnswering({
    call, question, messageId, id, waiting: openSampling(call) !== null,
  });

  if (!open) {
    const said = local?.gone ? t("ui.question.not_waiting") : samplingLine(call, question.answer ?? local?.answer);
    if (!said) return null;
    return html`<div class="sampling sampling-decided" data-role="sampling" data-stage=${stage}>
      <p class="sampling-done" data-role="answered" tabindex="-1" ref=${line}>${said}</p>
      <details class="sampling-summary">
        <summary>${t("ui.sampling.what_was_asked", { server: call.serverName })}</summary>
        <${Request} id=${id} question=${question} draft=${samplingDraft(question)} editing=${false} />
        ${typeof s.answer === "string"
          ? html`<p class="sampling-role">${t("ui.sampling.answer")}</p><p class="plain sampling-text">${s.answer}</p>`
          : null}
      </details>
    </div>`;
  }

  const send = (action) => post(action, samplingBody(question, action, draft));
  const submit = (event) => {
    event.preventDefault();
    send("accept");
  };

  const answering = stage === "answer";
  return html`<form id=${id} class="sampling" novalidate data-role="sampling" data-stage=${stage}
    aria-labelledby=${`${id}:title`} aria-busy=${busy} onSubmit=${submit}>
    <div class="sampling-head">
      <p class="sampling-title" id=${`${id}:title`}><strong>${t("ui.sampling.title", { server: call.serverName })}</strong></p>
      ${answering
        ? null
        : html`<button type="button" class="quiet sampling-edit" aria-pressed=${editing}
            onClick=${() => setEditing(!editing)}>${t("ui.sampling.edit")}</button>`}
    </div>
    <p class="muted small sampling-meta">
      ${t("ui.sampling.model", { model: s.model || t("ui.sampling.the_model") })}
      ${s.maxTokens != null ? html` · ${t("ui.sampling.max_tokens", { count: s.maxTokens })}` : null}
      ${Array.isArray(s.modelHints) && s.modelHints.length
        ? html` · ${t("ui.sampling.hints", { hints: s.modelHints.join(", ") })}`
        : null}
    </p>
    <${Request} id=${id} question=${question} draft=${draft} editing=${editing && !answering} onDraft=${setDraft} />
    ${answering
      ? html`<div class="field">
          <label for=${`${id}:answer`}>${t("ui.sampling.answer_label", { model: s.model || t("ui.sampling.the_model") })}</label>
          <textarea id=${`${id}:answer`} class="sampling-answer" rows="5" value=${draft.answer}
            onInput=${(e) => setDraft({ ...draft, answer: e.currentTarget.value })}></textarea>
        </div>`
      : null}
    <div class="actions">
      <button type="submit" class=${`primary ${answering ? "sampling-return" : "sampling-send"}`} disabled=${busy}>
        ${answering ? t("ui.sampling.return") : t("ui.sampling.send")}</button>
      <button type="button" class="sampling-reject" disabled=${busy} onClick=${() => send("decline")}>${t("ui.sampling.reject")}</button>
    </div>
    <${ErrorNote} error=${error} />
  </form>`;
}

/** The request: its system prompt and messages, as text or, while editing, in boxes. */
function Request({ id, question, draft, editing, onDraft }) {
  const messages = samplingMessages(question);
  const setText = (i, text) => onDraft({ ...draft, texts: draft.texts.map((x, j) => (j === i ? text : x)) });
  const roleName = (role) => (role === "assistant" ? t("ui.sampling.role_assistant") : t("ui.sampling.role_user"));
  return html`<div class="sampling-request">
    ${editing
      ? html`<div class="field">
          <label for=${`${id}:system`}>${t("ui.sampling.system_prompt")}</label>
          <textarea id=${`${id}:system`} class="sampling-system" rows="2" value=${draft.systemPrompt}
            onInput=${(e) => onDraft({ ...draft, systemPrompt: e.currentTarget.value })}></textarea>
        </div>`
      : draft.systemPrompt
        ? html`<p class="sampling-role">${t("ui.sampling.system_prompt")}</p>
            <p class="plain sampling-text sampling-system-text">${draft.systemPrompt}</p>`
        : null}
    <ol class="sampling-messages">
      ${messages.map((m, i) => {
        const label = t("ui.sampling.turn", { n: i + 1, role: roleName(m.role) });
        return html`<li class="sampling-message" key=${i} data-role=${m.role}>
          ${editing
            ? html`<label class="sampling-role" for=${`${id}:m${i}`}>${label}</label>
                <textarea id=${`${id}:m${i}`} class="sampling-message-text" rows="3" value=${draft.texts[i] ?? ""}
                  onInput=${(e) => setText(i, e.currentTarget.value)}></textarea>`
            : html`<p class="sampling-role">${label}</p><p class="plain sampling-text">${draft.texts[i] ?? m.text}</p>`}
        </li>`;
      })}
    </ol>
  </div>`;
}

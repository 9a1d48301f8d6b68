// A message the person sent: the prompt it was made from, if any (its command as a chip and
// the prompt's messages, folded), then their text, then the resources it carried; Copy, and
// Edit, which sends the edited text in its place (the conversation starts again from there).

import { html } from "../html.js";
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";
import { storedAttachments } from "./attachments.js";
import { StoredAttachments } from "./attachment-chips.js";
import { MessageActions } from "./message-actions.js";

export function UserMessage({ message, turn }) {
  const [editing, setEditing] = useState(false);
  const prompt = usedPrompt(message);
  const attachments = storedAttachments(message);
  return html`<article class="message user" data-message-id=${message.id} aria-label=${t("ui.message.you")}>
    ${prompt ? html`<${UsedPrompt} prompt=${prompt} />` : null}
    ${editing
      ? html`<${EditForm} message=${message} onCancel=${() => setEditing(false)}
          onSend=${(text) => turn.onResend(message.id, text)} />`
      : message.content || (!prompt && !attachments.length)
        ? html`<div class="bubble"><p class="plain">${message.content}</p></div>`
        : null}
    <${StoredAttachments} messageId=${message.id} attachments=${attachments} />
    ${turn && !editing
      ? html`<${MessageActions} text=${message.content}>
          <button type="button" class="quiet" data-action="edit" disabled=${turn.running}
            onClick=${() => setEditing(true)}>${t("ui.message.edit")}</button>
        </${MessageActions}>`
      : null}
  </article>`;
}

/** The message's text in a box to change; sending it starts the conversation again here. */
function EditForm({ message, onSend, onCancel }) {
  const [text, setText] = useState(message.content);
  const [busy, setBusy] = useState(false);
  const box = useRef(null);
  useEffect(() => box.current?.focus(), []);
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    // Sent: this message is replaced, and the form goes with it.
    if (!(await onSend(text))) setBusy(false);
  };
  const id = `edit-${message.id}`;
  return html`<form class="edit-message" onSubmit=${submit}>
    <label for=${id}>${t("ui.message.edit_label")}</label>
    <textarea id=${id} ref=${box} rows="3" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
    <p class="muted">${t("ui.message.edit_note")}</p>
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>${t("ui.message.save_send")}</button>
      <button type="button" onClick=${onCancel}>${t("ui.common.cancel")}</button>
    </div>
  </form>`;
}

/** A stored message's prompt (`metadata.prompt`), when it was made from one. */
function usedPrompt(message) {
  const prompt = message?.metadata?.prompt;
  return prompt && typeof prompt.name === "string" ? prompt : null;
}

function UsedPrompt({ prompt }) {
  const command = `/${prompt.serverName || prompt.serverId}:${prompt.name}`;
  const messages = Array.isArray(prompt.messages) ? prompt.messages : [];
  const args = Object.entries(prompt.arguments || {});
  return html`<div class="used-prompt" data-command=${command}>
    <span class="chip prompt-chip" title=${args.map(([k, v]) => `${k}: ${v}`).join("\n") || undefined}>${command}</span>
    ${messages.length
      ? html`<details class="prompt-messages">
          <summary>${t("ui.slash.messages", { count: messages.length })}</summary>
          <ol>
            ${messages.map((m, i) => html`<li key=${i} class="prompt-message" data-role=${m.role}>
              <span class="prompt-role">${m.role === "assistant" ? t("ui.sampling.role_assistant") : t("ui.sampling.role_user")}</span>
              <p class="plain">${m.text ?? ""}</p>
            </li>`)}
          </ol>
        </details>`
      : null}
  </div>`;
}

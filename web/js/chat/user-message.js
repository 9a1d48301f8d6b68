// A message the person sent: the prompt it was made from, if any (its command as a chip and
// the prompt's messages, folded), then their text, then the resources it carried.

import { html } from "../html.js";
import { t } from "../i18n.js";
import { storedAttachments } from "./attachments.js";
import { StoredAttachments } from "./attachment-chips.js";

export function UserMessage({ message }) {
  const prompt = usedPrompt(message);
  const attachments = storedAttachments(message);
  return html`<article class="message user" data-message-id=${message.id} aria-label=${t("ui.message.you")}>
    ${prompt ? html`<${UsedPrompt} prompt=${prompt} />` : null}
    ${message.content || (!prompt && !attachments.length)
      ? html`<div class="bubble"><p class="plain">${message.content}</p></div>`
      : null}
    <${StoredAttachments} messageId=${message.id} attachments=${attachments} />
  </article>`;
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

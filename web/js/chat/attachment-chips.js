// Attached resources as chips: in the message box, the ones chosen for the next message
// (each removable); under a sent message, the ones it carried as read then (each opens its
// text). Each chip says the server and the resource; its title is the resource's URI.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";
import { idFor } from "../schema-fields.js";
import { MAX_ATTACHMENTS } from "./attachments.js";

/** The resources chosen for the next message; `onRemove(item)` takes one off. */
export function ComposerChips({ attachments, onRemove }) {
  if (!attachments.length) return null;
  return html`<ul class="chips composer-chips" aria-label=${t("ui.attach.chosen", { count: attachments.length, max: MAX_ATTACHMENTS })}>
    ${attachments.map((a) => html`<li class="chip composer-chip" key=${`${a.serverId} ${a.uri}`}
        data-server-id=${a.serverId} data-uri=${a.uri} title=${a.uri}>
      <span class="chip-text">${a.serverName} · ${a.name}</span>
      <button type="button" class="icon chip-remove" aria-label=${t("ui.attach.remove", { name: a.name })}
        onClick=${() => onRemove(a)}>×</button>
    </li>`)}
  </ul>`;
}

/** The resources a stored message carried (`metadata.attachments`). */
export function StoredAttachments({ messageId, attachments }) {
  const [open, setOpen] = useState(null);
  if (!attachments.length) return null;
  return html`<div class="message-attachments">
    <ul class="chips" aria-label=${t("ui.attach.attached")}>
      ${attachments.map((a, i) => {
        const id = idFor("attachment", [messageId, i]);
        return html`<li key=${i}>
          <button type="button" class="chip attachment-chip" title=${a.uri} aria-expanded=${open === i} aria-controls=${id}
            data-server-id=${a.serverId} data-uri=${a.uri} onClick=${() => setOpen(open === i ? null : i)}>
            ${a.serverName || a.serverId} · ${a.name || a.uri}${a.truncated ? html` <span class="muted">${t("ui.attach.truncated")}</span>` : null}
          </button>
        </li>`;
      })}
    </ul>
    ${open !== null && attachments[open]
      ? html`<pre id=${idFor("attachment", [messageId, open])} class="attachment-text">${attachments[open].text ?? ""}</pre>`
      : null}
  </div>`;
}

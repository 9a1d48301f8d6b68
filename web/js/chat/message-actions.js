// The actions under a message: Copy puts its text on the clipboard; the buttons given as
// children (Edit under the person's message, Regenerate under the assistant's) change the
// conversation and wait while a run answers.

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";

/** How long "Copied" shows. */
const COPIED_MS = 2000;

export function MessageActions({ text, children }) {
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState(null);
  useEffect(() => {
    if (!copied) return undefined;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    setError(null);
    try {
      await copyText(text);
      setCopied(true);
    } catch (e) {
      setError({ message: t("ui.message.copy_failed", { message: e?.message || String(e) }) });
    }
  };
  return html`<div class="message-actions" role="group" aria-label=${t("ui.message.actions")}>
    <button type="button" class="quiet" data-action="copy" onClick=${copy}>${t("ui.message.copy")}</button>
    ${children}
    <span class="copied" role="status">${copied ? t("ui.message.copied") : ""}</span>
    <${ErrorNote} error=${error} />
  </div>`;
}

/**
 * Puts `text` on the clipboard: the Clipboard API where the page may use it (a secure
 * context: https or localhost), else a selected text area copied the old way.
 */
export async function copyText(text) {
  if (navigator.clipboard?.writeText && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "visually-hidden";
  document.body.append(area);
  area.select();
  const done = document.execCommand("copy");
  area.remove();
  if (!done) throw new Error("the browser refused");
}

// The open conversation's title in its header, and renaming it there: the pencil beside it
// turns it into a box (Enter or Save keeps the new title, Escape or Cancel the old one).
// PATCH /api/conversations/{id}; the list shows the new title once it is saved.

import { html } from "../html.js";
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { patch, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";

/** The longest title the API keeps, in characters. */
const MAX_TITLE = 500;

const pencil = html`<svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="16" height="16" fill="none"
  stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
  <path d="M12 20h9" /><path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z" />
</svg>`;

/** `onRenamed(conversation)` is told the conversation as saved. */
export function ConversationTitle({ id, title, onRenamed }) {
  const [draft, setDraft] = useState(null); // null: not renaming
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const box = useRef(null);
  const button = useRef(null);
  const editing = draft !== null;
  const wasEditing = useRef(false);

  useEffect(() => {
    if (editing) box.current?.select();
    else if (wasEditing.current) button.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  const cancel = () => {
    setDraft(null);
    setError(null);
  };
  const save = async (event) => {
    event.preventDefault();
    const next = draft.trim();
    if (!next || busy) return;
    if (next === title) {
      cancel();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const saved = await patch(`/api/conversations/${seg(id)}`, { title: next });
      setDraft(null);
      onRenamed(saved);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  if (!editing) {
    return html`<h1 class="conversation-title">${title || t("ui.chat.new_conversation")}</h1>
      <button type="button" class="quiet rename-button" ref=${button} aria-label=${t("ui.chat.rename")}
        title=${t("ui.chat.rename")} onClick=${() => setDraft(title)}>${pencil}</button>`;
  }
  return html`<form class="rename-form" onSubmit=${save} aria-busy=${busy}>
    <label for="conversation-title" class="visually-hidden">${t("ui.chat.title")}</label>
    <input id="conversation-title" ref=${box} value=${draft} maxlength=${MAX_TITLE} autocomplete="off"
      onInput=${(e) => setDraft(e.currentTarget.value)}
      onKeyDown=${(e) => {
        if (e.key !== "Escape") return;
        e.preventDefault();
        cancel();
      }} />
    <button type="submit" class="primary" disabled=${busy || !draft.trim()}>${t("ui.common.save")}</button>
    <button type="button" class="quiet" onClick=${cancel}>${t("ui.common.cancel")}</button>
    <${ErrorNote} error=${error} />
  </form>`;
}

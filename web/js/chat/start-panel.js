// The chat's first screen, ready to type in: the message box of a conversation
// (js/chat/composer.js: resources to attach, prompts as slash commands) with the assistant
// it will talk to above it, whose servers those come from. Sending starts: the conversation
// is created (named after the message, or the prompt used) and the message sent as an open
// conversation's box sends it; then the conversation opens, where the run streams. A send
// that fails keeps the message, its resources and its prompt in the box and removes the
// conversation made for it; when it failed for want of a model provider, the box says so
// with a link to add one; it says so before any send when GET /api/me tells that none is
// configured (js/chat/start.js decides).

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { del, get, post, seg } from "../api.js";
import { t } from "../i18n.js";
import { follow } from "../router.js";
import { ErrorNote } from "../ui/error-note.js";
import { Composer } from "./composer.js";
import { newConversation, showsNoProvider } from "./start.js";

/** The assistant a new conversation talks to; "" is none (the server's defaults). */
export function AssistantSelect({ id, assistants, value, onChange }) {
  return html`<label for=${id}>${t("ui.chat.assistant")}</label>
    <select id=${id} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      <option value="" selected=${value === ""}>${t("ui.chat.no_assistant")}</option>
      ${(assistants || []).map((a) => html`<option key=${a.id} value=${a.id} selected=${a.id === value}>${a.name}</option>`)}
    </select>`;
}

/**
 * `assistants` is null while they load (nothing is sent before the choice is known);
 * `onStarted(conversation)` is told once its first message is sent; `onChanged` when the
 * list of conversations may show something the page has not loaded.
 */
export function StartPanel({ assistants, assistantId, onAssistant, onStarted, onChanged }) {
  const [error, setError] = useState(null);
  const [providers, setProviders] = useState(null);
  // GET /api/me's providerConfigured: undefined while unknown (or not said).
  const [configured, setConfigured] = useState(undefined);
  // The error of a send that failed after its conversation was made (else null).
  const [sendError, setSendError] = useState(null);

  useEffect(() => {
    // Unknown (null) when it cannot be read: then no notice rather than a wrong one.
    get("/api/providers").then(setProviders, () => setProviders(null));
    get("/api/me").then(
      (me) => setConfigured(typeof me?.providerConfigured === "boolean" ? me.providerConfigured : undefined),
      () => setConfigured(undefined),
    );
  }, []);

  // What the box composed (`body`, as POST .../messages takes it); answers whether it was sent.
  const start = async (body, title) => {
    if (assistants === null) return false;
    setError(null);
    setSendError(null);
    let created = null;
    try {
      created = await post("/api/conversations", newConversation(assistantId, title));
      await post(`/api/conversations/${seg(created.id)}/messages`, body);
    } catch (e) {
      setError(e);
      setSendError(created !== null ? e : null);
      if (created) {
        // The conversation holds nothing; if it cannot be removed, the list shows it.
        del(`/api/conversations/${seg(created.id)}`).catch(onChanged);
      }
      return false;
    }
    onStarted(created);
    return true;
  };

  return html`<section class="start" aria-labelledby="start-heading">
    <h1 id="start-heading">${t("ui.chat.start_heading")}</h1>
    <div class="start-form">
      <div class="start-assistant">
        <${AssistantSelect} id="start-assistant" assistants=${assistants} value=${assistantId} onChange=${onAssistant} />
      </div>
      <div class="start-composer">
        <${Composer} inputId="start-input" hintId="start-hint" autoFocus=${true} assistantId=${assistantId}
          assistants=${assistants} running=${false} waiting=${assistants === null} onSend=${start} />
      </div>
      <p id="start-hint" class="muted start-hint">${t("ui.chat.start_hint")}</p>
    </div>
    ${showsNoProvider(configured, providers, sendError)
      ? html`<p class="start-notice" role="status" data-role="no-provider">${t("ui.chat.no_provider")} <a href="/providers"
          onClick=${follow}>${t("ui.chat.add_provider")}</a></p>`
      : null}
    <${ErrorNote} error=${error} />
  </section>`;
}

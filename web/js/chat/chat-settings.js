// A chat's own model, system prompt and temperature, without making an assistant: the model
// picker in the chat header (filled from GET /api/conversations/{id}/models, the models of
// the provider the chat's runs use) and the settings panel beside it. Each change stores the
// whole of the chat's settings (PUT /api/conversations/{id}/settings); the next turn uses
// them.

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { get, put, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { TextArea, TextField } from "../ui/fields.js";
import { modelOptions, settingsOf, temperatureFrom } from "../providers/models.js";

/** Stores `settings` for the chat; answers the conversation as stored. */
function store(conversationId, settings) {
  return put(`/api/conversations/${seg(conversationId)}/settings`, settings);
}

/**
 * The chat header's model picker. `conversation` is the open one (its `model` the chat's
 * own choice, if any); `onSaved(conversation)` with what was stored.
 */
export function ModelPicker({ conversation, onSaved }) {
  const [listed, setListed] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get(`/api/conversations/${seg(conversation.id)}/models`).then(setListed, setError);
  }, [conversation.id]);
  const chosen = conversation.model ?? "";
  const choose = async (model) => {
    setError(null);
    try {
      onSaved(await store(conversation.id, { ...settingsOf(conversation), model: model || null }));
    } catch (e) {
      setError(e);
    }
  };
  const fallback = listed?.defaultModel
    ? t("ui.chat.model_default", { model: listed.defaultModel })
    : t("ui.chat.model_default_plain");
  const failed = error ? t("ui.chat.models_failed", { message: error.message }) : undefined;
  return html`<span class="model-picker">
    <label for="chat-model" class="visually-hidden">${t("ui.chat.model")}</label>
    <select id="chat-model" value=${chosen} title=${failed} aria-describedby=${failed ? "chat-model-error" : undefined}
      onChange=${(e) => choose(e.currentTarget.value)}>
      <option value="" selected=${chosen === ""}>${fallback}</option>
      ${modelOptions(listed?.models, chosen || null).map((m) => html`<option key=${m} value=${m} selected=${m === chosen}>${m}</option>`)}
    </select>
    ${failed ? html`<span id="chat-model-error" class="visually-hidden" role="status">${failed}</span>` : null}
  </span>`;
}

/** The chat's system prompt and temperature; `onSaved(conversation)` with what was stored. */
export function ChatSettingsPanel({ conversation, onSaved }) {
  const current = settingsOf(conversation);
  const [prompt, setPrompt] = useState(current.systemPrompt ?? "");
  const [temperature, setTemperature] = useState(current.temperature === null ? "" : String(current.temperature));
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const save = async (event) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    const read = temperatureFrom(temperature);
    if (read.error) {
      return setError({ code: "VALIDATION_ERROR", message: t("ui.chat.temperature_hint") });
    }
    try {
      const stored = await store(conversation.id, {
        ...settingsOf(conversation),
        systemPrompt: prompt.trim() ? prompt : null,
        temperature: read.value,
      });
      setSaved(true);
      onSaved(stored);
    } catch (e) {
      setError(e);
    }
  };
  return html`<form class="variables-panel chat-settings" id="chat-settings" onSubmit=${save} aria-label=${t("ui.chat.settings")}>
    <${TextArea} id="chat-system-prompt" label=${t("ui.chat.system_prompt")} rows="3" value=${prompt}
      hint=${t("ui.chat.system_prompt_hint")} onInput=${(v) => { setSaved(false); setPrompt(v); }} />
    <${TextField} id="chat-temperature" label=${t("ui.chat.temperature")} type="number" step="0.1" min="0" max="2"
      value=${temperature} hint=${t("ui.chat.temperature_hint")} onInput=${(v) => { setSaved(false); setTemperature(v); }} />
    <div class="actions">
      <button type="submit" class="primary">${t("ui.common.save")}</button>
      ${saved ? html`<span class="muted small" role="status">${t("ui.chat.settings_saved")}</span>` : null}
    </div>
    <${ErrorNote} error=${error} />
  </form>`;
}

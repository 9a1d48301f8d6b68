// LLM providers: OpenAI-compatible or Anthropic endpoints with their keys. Keys come back
// masked; saving the mask keeps the stored key while the URL stays at the same origin, and
// asks (saying why) before the key goes to another. Each provider, and the form before it
// is saved, has a Test that lists its models; with none yet, the model servers running on
// this machine are offered (js/providers/local-offer.js).

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { get, post, put, seg } from "../api.js";
import { t } from "../i18n.js";
import { useLoaded } from "../ui/use-loaded.js";
import { Dialog } from "../ui/dialog.js";
import { ErrorNote } from "../ui/error-note.js";
import { Select, TextField } from "../ui/fields.js";
import { LocalOffer } from "../providers/local-offer.js";
import { TestButton } from "../providers/test-button.js";
import { originOf } from "../providers/models.js";

/** The code of a save or test refused because the kept key would go to another origin. */
const KEY_NEW_ORIGIN = "API_KEY_ORIGIN_CHANGED";

const kinds = () => [
  ["openai", t("ui.providers.kind_openai")],
  ["anthropic", t("ui.providers.kind_anthropic")],
];

export function ProvidersPage() {
  const [editing, setEditing] = useState(null);
  const { data: providers, error, reload: load, remove } = useLoaded(() => get("/api/providers"));
  return html`<section class="page" aria-labelledby="providers-title">
    <header class="page-head">
      <h1 id="providers-title">${t("ui.providers.title")}</h1>
      <button type="button" class="primary" onClick=${() => setEditing("new")}>${t("ui.providers.add")}</button>
    </header>
    <${ErrorNote} error=${error} />
    ${providers?.length === 0
      ? html`<p class="muted">${t("ui.providers.none")}</p>
        <${LocalOffer} providers=${providers} onAdded=${load} />`
      : null}
    <div class="cards">
      ${(providers || []).map((p) => html`<article class="card" key=${p.id} data-provider-id=${p.id} aria-label=${p.name}>
        <header><h2>${p.name}</h2><span class="badge">${p.kind}</span></header>
        <p class="small">${p.baseUrl || t("ui.providers.default_endpoint")} · ${t("ui.providers.model")} <code>${p.defaultModel}</code></p>
        <p class="small">${t("ui.providers.api_key_shown")} <code data-role="key">${p.apiKey || t("ui.providers.no_key")}</code></p>
        <div class="actions">
          <${TestButton} list=${async () => (await get(`/api/providers/${seg(p.id)}/models`)).models} />
          <button type="button" onClick=${() => setEditing(p)}>${t("ui.common.edit")}</button>
          <button type="button" class="quiet"
            onClick=${() => remove(t("ui.providers.confirm_delete", { name: p.name }), `/api/providers/${seg(p.id)}`)}>${t("ui.common.delete")}</button>
        </div>
      </article>`)}
    </div>
    ${editing
      ? html`<${ProviderDialog} provider=${editing === "new" ? null : editing}
          onClose=${() => setEditing(null)} onSaved=${() => { setEditing(null); load(); }} />`
      : null}
  </section>`;
}

function ProviderDialog({ provider, onClose, onSaved }) {
  const p = provider || {};
  const [form, setForm] = useState({
    name: p.name || "",
    kind: p.kind || "openai",
    baseUrl: p.baseUrl || "",
    apiKey: p.apiKey || "",
    defaultModel: p.defaultModel || "",
  });
  const [error, setError] = useState(null);
  // The refusal of a kept key for another origin, while the person decides; and whether
  // they said the key may go there (for this URL).
  const [ask, setAsk] = useState(null);
  const [keepKey, setKeepKey] = useState(false);
  const [testAgain, setTestAgain] = useState(0);
  const set = (patch) => {
    if ("baseUrl" in patch || "kind" in patch) setKeepKey(false);
    setAsk(null);
    setForm((f) => ({ ...f, ...patch }));
  };
  const body = (keep = keepKey) => {
    const b = { name: form.name.trim(), kind: form.kind, defaultModel: form.defaultModel.trim() };
    if (form.baseUrl.trim()) b.baseUrl = form.baseUrl.trim();
    if (form.apiKey) b.apiKey = form.apiKey;
    if (keep) b.keepApiKey = true;
    return b;
  };
  const asked = (e, then) => {
    if (e.code !== KEY_NEW_ORIGIN) return false;
    setAsk({ then });
    return true;
  };
  const submit = async (keep) => {
    setError(null);
    setAsk(null);
    try {
      if (provider) await put(`/api/providers/${seg(provider.id)}`, body(keep));
      else await post("/api/providers", body(keep));
      onSaved();
    } catch (e) {
      if (!asked(e, "save")) setError(e);
    }
  };
  const save = (event) => {
    event.preventDefault();
    submit(keepKey);
  };
  const list = async (keep = keepKey) => {
    const test = { config: body(keep) };
    if (provider) test.id = provider.id;
    return (await post("/api/providers/test", test)).models;
  };
  const keep = () => {
    setKeepKey(true);
    if (ask?.then === "save") submit(true);
    else {
      setAsk(null);
      setTestAgain((n) => n + 1);
    }
  };
  return html`<${Dialog} title=${provider ? t("ui.providers.edit_title", { name: provider.name }) : t("ui.providers.add_title")} onClose=${onClose}>
    <form onSubmit=${save}>
      <${TextField} id="provider-name" label=${t("ui.providers.name")} required value=${form.name} onInput=${(v) => set({ name: v })} />
      <${Select} id="provider-kind" label=${t("ui.providers.kind")} value=${form.kind} options=${kinds()} onChange=${(v) => set({ kind: v })} />
      <${TextField} id="provider-url" label=${t("ui.providers.base_url")} type="url" value=${form.baseUrl}
        placeholder="https://api.openai.com/v1" onInput=${(v) => set({ baseUrl: v })} />
      <${TextField} id="provider-key" label=${t("ui.providers.api_key")} type="password" value=${form.apiKey}
        onInput=${(v) => set({ apiKey: v })} hint=${t("ui.server.secret_hint")} />
      <${TextField} id="provider-model" label=${t("ui.providers.default_model")} required value=${form.defaultModel}
        onInput=${(v) => set({ defaultModel: v })} />
      <${ErrorNote} error=${error} />
      ${ask
        ? html`<div class="key-origin" role="group" data-role="key-origin">
            <p role="alert">${t("ui.providers.key_new_origin", {
              from: p.baseUrl ? originOf(p.baseUrl) : t("ui.providers.default_endpoint"),
              to: form.baseUrl.trim() ? originOf(form.baseUrl.trim()) : t("ui.providers.default_endpoint"),
            })}</p>
            <p class="small">${t("ui.providers.enter_key")}</p>
            <button type="button" onClick=${keep}>${ask.then === "save" ? t("ui.providers.keep_key") : t("ui.providers.keep_key_test")}</button>
          </div>`
        : null}
      <div class="actions">
        <button type="submit" class="primary">${t("ui.common.save")}</button>
        <${TestButton} list=${() => list()} onError=${(e) => asked(e, "test")} again=${testAgain} />
        <button type="button" onClick=${onClose}>${t("ui.common.cancel")}</button>
      </div>
    </form>
  <//>`;
}

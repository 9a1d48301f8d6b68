// Assistants: name, system prompt, provider and model, tool mode, rounds, which MCP servers
// each may use (seed 001's per-assistant selection), which of their tools its model is shown
// and what they cost (web/js/assistants/), and its Tools section (seed 002): the variables it
// declares and its tool nodes (web/js/nodes/).

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { get, post, put, seg } from "../api.js";
import { t } from "../i18n.js";
import { useLoaded } from "../ui/use-loaded.js";
import { Dialog } from "../ui/dialog.js";
import { ErrorNote } from "../ui/error-note.js";
import { Select, TextArea, TextField } from "../ui/fields.js";
import { ToolsSection } from "../nodes/tools-section.js";
import { VariablesEditor } from "../nodes/variables-editor.js";
import { declsFrom, rowFrom } from "../nodes/variables.js";
import { ExposureFields } from "../assistants/exposure-fields.js";
import { pinsToSave } from "../assistants/pins.js";

const toolModes = () => [
  ["native", t("ui.assistants.mode_native")],
  ["prompt", t("ui.assistants.mode_prompt")],
  ["meta", t("ui.assistants.mode_meta")],
];

export function AssistantsPage() {
  const [editing, setEditing] = useState(null);
  const { data, error, reload: load, remove } = useLoaded(async () => {
    const [assistants, providers, servers] = await Promise.all([
      get("/api/assistants"),
      get("/api/providers"),
      get("/api/mcp-servers"),
    ]);
    return { assistants, providers, servers };
  });
  const { assistants = null, providers = [], servers = [] } = data || {};
  return html`<section class="page" aria-labelledby="assistants-title">
    <header class="page-head">
      <h1 id="assistants-title">${t("ui.assistants.title")}</h1>
      <button type="button" class="primary" onClick=${() => setEditing("new")}>${t("ui.assistants.add")}</button>
    </header>
    <${ErrorNote} error=${error} />
    ${assistants?.length === 0 ? html`<p class="muted">${t("ui.assistants.none")}</p>` : null}
    <div class="cards">
      ${(assistants || []).map((a) => html`<article class="card" key=${a.id} data-assistant-id=${a.id} aria-label=${a.name}>
        <header><h2>${a.name}</h2><span class="badge">${a.toolMode}</span></header>
        <p class="muted small">${providerName(providers, a.providerId)} · ${a.model || t("ui.assistants.default_model")} · ${t("ui.assistants.rounds", { count: a.maxRounds })}</p>
        <p class="small">${t("ui.assistants.servers", {
          names: a.serverIds.length ? a.serverIds.map((id) => serverName(servers, id)).join(", ") : t("ui.assistants.no_servers"),
        })}</p>
        <div class="actions">
          <button type="button" onClick=${() => setEditing(a)}>${t("ui.common.edit")}</button>
          <button type="button" class="quiet"
            onClick=${() => remove(t("ui.assistants.confirm_delete", { name: a.name }), `/api/assistants/${seg(a.id)}`)}>${t("ui.common.delete")}</button>
        </div>
      </article>`)}
    </div>
    ${editing
      ? html`<${AssistantDialog} assistant=${editing === "new" ? null : editing} providers=${providers}
          servers=${servers} onClose=${() => setEditing(null)} onSaved=${() => { setEditing(null); load(); }} />`
      : null}
  </section>`;
}

function AssistantDialog({ assistant: given, providers, servers, onClose, onSaved }) {
  // Once created, the assistant is edited: a failed second step saved again is an update.
  const [assistant, setAssistant] = useState(given);
  const a = given || {};
  const [form, setForm] = useState({
    name: a.name || "",
    systemPrompt: a.systemPrompt || "",
    providerId: a.providerId || "",
    model: a.model || "",
    toolMode: a.toolMode || "native",
    maxRounds: String(a.maxRounds ?? 20),
    serverIds: a.serverIds || [],
    variables: (a.variables || []).map(rowFrom),
    toolExposure: a.toolExposure || "auto",
    pinnedTools: a.pinnedTools || [],
    nativeToolSearch: a.nativeToolSearch === true,
  });
  const [error, setError] = useState(null);
  const set = (patch) => setForm((f) => ({ ...f, ...patch }));
  const toggleServer = (id, on) =>
    set({ serverIds: on ? [...form.serverIds, id] : form.serverIds.filter((s) => s !== id) });

  const save = async (event) => {
    event.preventDefault();
    setError(null);
    const maxRounds = Number(form.maxRounds);
    if (!form.name.trim()) return setError({ code: "VALIDATION_ERROR", message: t("ui.assistants.needs_name") });
    if (!Number.isInteger(maxRounds) || maxRounds < 1)
      return setError({ code: "VALIDATION_ERROR", message: t("ui.assistants.bad_rounds") });
    const { decls: variables, errors: varErrors } = declsFrom(form.variables);
    if (varErrors.length) return setError({ code: "VALIDATION_ERROR", message: t(varErrors[0].key, { name: varErrors[0].name }) });
    const config = {
      name: form.name.trim(),
      systemPrompt: form.systemPrompt,
      toolMode: form.toolMode,
      maxRounds,
      toolExposure: form.toolExposure,
      pinnedTools: pinsToSave(form.pinnedTools, form.serverIds),
      nativeToolSearch: form.nativeToolSearch,
    };
    // Left out when empty: a full update without it stores none, and servers older than tool
    // nodes refuse the field.
    if (variables.length) config.variables = variables;
    if (form.providerId) config.providerId = form.providerId;
    if (form.model.trim()) config.model = form.model.trim();
    try {
      const saved = assistant
        ? await put(`/api/assistants/${seg(assistant.id)}`, config)
        : await post("/api/assistants", config);
      setAssistant(saved);
      await put(`/api/assistants/${seg(saved.id)}/mcp-servers`, { serverIds: form.serverIds });
      onSaved();
    } catch (e) {
      setError(e);
    }
  };

  return html`<${Dialog} title=${given ? t("ui.assistants.edit_title", { name: given.name }) : t("ui.assistants.add_title")} onClose=${onClose} wide>
    <form id="assistant-form" onSubmit=${save}>
      <${TextField} id="assistant-name" label=${t("ui.assistants.name")} required value=${form.name} onInput=${(v) => set({ name: v })} />
      <${TextArea} id="assistant-prompt" label=${t("ui.assistants.prompt")} rows="4" value=${form.systemPrompt}
        onInput=${(v) => set({ systemPrompt: v })} />
      <${Select} id="assistant-provider" label=${t("ui.assistants.provider")} value=${form.providerId}
        options=${[["", t("ui.assistants.default_provider")], ...providers.map((p) => [p.id, p.name])]}
        onChange=${(v) => set({ providerId: v })} />
      <${TextField} id="assistant-model" label=${t("ui.assistants.model")} value=${form.model} placeholder=${t("ui.assistants.model_placeholder")}
        onInput=${(v) => set({ model: v })} />
      <${Select} id="assistant-mode" label=${t("ui.assistants.mode")} value=${form.toolMode} options=${toolModes()}
        onChange=${(v) => set({ toolMode: v })} />
      <${TextField} id="assistant-rounds" label=${t("ui.assistants.max_rounds")} type="number" value=${form.maxRounds}
        onInput=${(v) => set({ maxRounds: v })} />
      <fieldset>
        <legend>${t("ui.assistants.may_use")}</legend>
        ${servers.length === 0 ? html`<p class="muted">${t("ui.assistants.no_servers_configured")}</p>` : null}
        ${servers.map((s) => html`<div class="field check" key=${s.id}>
          <input type="checkbox" id=${`assistant-server-${s.id}`} checked=${form.serverIds.includes(s.id)}
            onChange=${(e) => toggleServer(s.id, e.currentTarget.checked)} />
          <label for=${`assistant-server-${s.id}`}>${s.name}</label>
        </div>`)}
      </fieldset>
      <${ExposureFields} form=${form} set=${set} servers=${servers} assistant=${assistant} />
      <${VariablesEditor} id="assistant-vars" legend=${t("ui.nodes.assistant_variables")} rows=${form.variables}
        errors=${declsFrom(form.variables).errors} onChange=${(rows) => set({ variables: rows })} />
    </form>
    <${ToolsSection} assistant=${assistant} servers=${servers} assistantVariables=${declsFrom(form.variables).decls} />
    <${ErrorNote} error=${error} />
    <div class="actions">
      <button type="submit" form="assistant-form" class="primary">${t("ui.common.save")}</button>
      <button type="button" onClick=${onClose}>${t("ui.common.cancel")}</button>
    </div>
  <//>`;
}

function providerName(providers, id) {
  if (!id) return t("ui.assistants.default_provider_lower");
  return providers.find((p) => p.id === id)?.name || id;
}

function serverName(servers, id) {
  return servers.find((s) => s.id === id)?.name || id;
}

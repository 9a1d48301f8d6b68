// The dialog that adds or edits an MCP server (seed 001's ServerEditModal): every field of
// the server, shown for its transport. Secrets come masked and stay so unless retyped.
// "Test these settings" tests the form's current values before saving them
// (POST /api/mcp-servers/test: nothing is stored; an edited server's masked secrets are the
// saved ones, for its saved URL only). "Runs on" picks this machine or one of `nodes` (the
// configured MCP nodes with their state); it is shown only when there is a node to pick.
// OAuth sign-in asks only for what an authorization server may need beforehand (a client
// registered there, scopes); each person signs in from the server's card once it is saved.
// Root folders apply to every transport: beside the working directory for a command, after
// the connection's settings for an HTTP server. Sampling (sampling-fields.js): whether the
// server's requests to the model are answered without asking, and their token cap.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { post, put, seg } from "../api.js";
import { Dialog } from "../ui/dialog.js";
import { ErrorNote } from "../ui/error-note.js";
import { Checkbox, Select, TextArea, TextField } from "../ui/fields.js";
import { RowsEditor } from "./rows-editor.js";
import { TestReport } from "./server-card.js";
import { t } from "../i18n.js";
import { authTypes, bodyFrom, formFrom, transports, withoutStaleMasks } from "./server-form.js";
import { nodeOptions, showsNodeChoice } from "./server-node.js";
import { SamplingFields } from "./sampling-fields.js";

export function ServerEditModal({ server, nodes, onClose, onSaved }) {
  const [form, setForm] = useState(() => formFrom(server));
  const [error, setError] = useState(null);
  const [saving, setSaving] = useState(false);
  const [test, setTest] = useState(null);
  const [testing, setTesting] = useState(false);
  const set = (patch) => {
    setTest(null);
    setForm((f) => withoutStaleMasks(f, { ...f, ...patch }));
  };
  const http = form.transport !== "stdio";
  const roots = html`<${TextArea} id="server-roots" label=${t("ui.server.roots")} value=${form.roots}
    onInput=${(v) => set({ roots: v })} hint=${t("ui.server.roots_hint")} />`;

  const save = async (event) => {
    event.preventDefault();
    setError(null);
    let body;
    try {
      body = bodyFrom(form);
    } catch (e) {
      setError({ code: "VALIDATION_ERROR", message: e.message });
      return;
    }
    setSaving(true);
    try {
      const saved = server
        ? await put(`/api/mcp-servers/${seg(server.id)}`, body)
        : await post("/api/mcp-servers", body);
      onSaved(saved);
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  };

  const runTest = async () => {
    setError(null);
    setTest(null);
    let body;
    try {
      body = bodyFrom(form);
    } catch (e) {
      setError({ code: "VALIDATION_ERROR", message: e.message });
      return;
    }
    // An edited server keeps its id, so its masked secrets stand for the saved ones.
    if (server) body.id = server.id;
    setTesting(true);
    try {
      setTest(await post("/api/mcp-servers/test", body));
    } catch (e) {
      setError(e);
    } finally {
      setTesting(false);
    }
  };

  return html`<${Dialog} title=${server ? t("ui.server.edit_title", { name: server.name }) : t("ui.server.add_title")} onClose=${onClose} wide>
    <form class="server-form" onSubmit=${save}>
      <${TextField} id="server-name" label=${t("ui.server.name")} required value=${form.name} onInput=${(v) => set({ name: v })} />
      <${Select} id="server-transport" label=${t("ui.server.transport")} value=${form.transport} options=${transports()}
        onChange=${(v) => set({ transport: v })} />
      ${showsNodeChoice(nodes, server?.node)
        ? html`<${Select} id="server-node" label=${t("ui.mcp_node.runs_on")} value=${form.node}
            options=${nodeOptions(nodes, server?.node)} onChange=${(v) => set({ node: v })}
            hint=${t("ui.mcp_node.runs_on_hint")} />`
        : null}
      ${http
        ? html`
          <${TextField} id="server-url" label=${t("ui.server.url")} type="url" required value=${form.url}
            placeholder="https://example.com/mcp" onInput=${(v) => set({ url: v })}
            hint=${t("ui.server.url_hint")} />
          <${RowsEditor} id="server-headers" legend=${t("ui.server.headers")} rows=${form.headers} nameLabel=${t("ui.server.header")} secretValues
            onChange=${(rows) => set({ headers: rows })} />
          <${Select} id="server-auth" label=${t("ui.server.auth")} value=${form.authType} options=${authTypes()}
            onChange=${(v) => set({ authType: v })} />
          ${form.authType === "api_key"
            ? html`<${TextField} id="server-auth-header" label=${t("ui.server.api_key_header")} value=${form.authHeader}
                onInput=${(v) => set({ authHeader: v })} />`
            : null}
          ${form.authType === "api_key" || form.authType === "bearer"
            ? html`<${TextField} id="server-auth-secret" type="password"
                label=${form.authType === "bearer" ? t("ui.server.bearer_token") : t("ui.server.api_key")} value=${form.authSecret}
                onInput=${(v) => set({ authSecret: v })} hint=${t("ui.server.secret_hint")} />`
            : null}
          ${form.authType === "oauth" ? html`<${OAuthFields} form=${form} set=${set} />` : null}
          ${roots}`
        : html`
          <${TextField} id="server-command" label=${t("ui.server.command")} required value=${form.command}
            placeholder="npx" onInput=${(v) => set({ command: v })} />
          <${TextArea} id="server-args" label=${t("ui.server.args")} value=${form.args}
            onInput=${(v) => set({ args: v, argsEdited: true })} />
          <${TextField} id="server-cwd" label=${t("ui.server.cwd")} value=${form.cwd} onInput=${(v) => set({ cwd: v })} />
          ${roots}
          <${RowsEditor} id="server-env" legend=${t("ui.server.env")} rows=${form.env} nameLabel=${t("ui.server.variable")} secretSwitch
            onChange=${(rows) => set({ env: rows })} />`}
      <${TextField} id="server-timeout" label=${t("ui.server.timeout")} type="number" step="any" min="0" value=${form.timeout}
        placeholder="60" onInput=${(v) => set({ timeout: v })} />
      <${SamplingFields} form=${form} set=${set} />
      <${Checkbox} id="server-enabled" label=${t("ui.server.enabled")} checked=${form.enabled} onChange=${(v) => set({ enabled: v })} />
      <${ErrorNote} error=${error} />
      ${test ? html`<${TestReport} report=${test} />` : null}
      <div class="actions">
        <button type="submit" class="primary" disabled=${saving}>${t("ui.common.save")}</button>
        <button type="button" onClick=${runTest} disabled=${testing || saving}>
          ${testing ? t("ui.server.testing") : t("ui.server.test_form")}</button>
        <button type="button" onClick=${onClose}>${t("ui.common.cancel")}</button>
      </div>
    </form>
  <//>`;
}

/** The optional settings of OAuth sign-in: a client registered beforehand, and scopes. */
function OAuthFields({ form, set }) {
  return html`<fieldset class="oauth" data-role="oauth">
    <legend>${t("ui.server.auth_oauth")}</legend>
    <p class="muted small">${t("ui.server.oauth_hint")}</p>
    <${TextField} id="server-oauth-client-id" label=${t("ui.server.oauth_client_id")} value=${form.oauthClientId}
      onInput=${(v) => set({ oauthClientId: v })} hint=${t("ui.server.oauth_client_id_hint")} />
    <${TextField} id="server-auth-secret" type="password" label=${t("ui.server.oauth_client_secret")} value=${form.authSecret}
      onInput=${(v) => set({ authSecret: v })} hint=${t("ui.server.secret_hint")} />
    <${TextField} id="server-oauth-scopes" label=${t("ui.server.oauth_scopes")} value=${form.oauthScopes}
      onInput=${(v) => set({ oauthScopes: v })} hint=${t("ui.server.oauth_scopes_hint")} />
  </fieldset>`;
}

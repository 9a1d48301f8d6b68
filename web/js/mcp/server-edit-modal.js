// The dialog that adds or edits an MCP server (seed 001's ServerEditModal): every field of
// the server, shown for its transport. Secrets come masked and stay so unless retyped.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { post, put, seg } from "../api.js";
import { Dialog } from "../ui/dialog.js";
import { ErrorNote } from "../ui/error-note.js";
import { Checkbox, Select, TextArea, TextField } from "../ui/fields.js";
import { RowsEditor } from "./rows-editor.js";
import { AUTH_TYPES, TRANSPORTS, bodyFrom, formFrom, withoutStaleMasks } from "./server-form.js";

export function ServerEditModal({ server, onClose, onSaved }) {
  const [form, setForm] = useState(() => formFrom(server));
  const [error, setError] = useState(null);
  const [saving, setSaving] = useState(false);
  const set = (patch) => setForm((f) => withoutStaleMasks(f, { ...f, ...patch }));
  const http = form.transport !== "stdio";

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

  return html`<${Dialog} title=${server ? `Edit ${server.name}` : "Add an MCP server"} onClose=${onClose} wide>
    <form class="server-form" onSubmit=${save}>
      <${TextField} id="server-name" label="Name" required value=${form.name} onInput=${(v) => set({ name: v })} />
      <${Select} id="server-transport" label="Transport" value=${form.transport} options=${TRANSPORTS}
        onChange=${(v) => set({ transport: v })} />
      ${http
        ? html`
          <${TextField} id="server-url" label="URL" type="url" required value=${form.url}
            placeholder="https://example.com/mcp" onInput=${(v) => set({ url: v })}
            hint="Streamable HTTP URLs usually end in /mcp; legacy SSE ones in /sse." />
          <${RowsEditor} id="server-headers" legend="Headers" rows=${form.headers} nameLabel="Header" secretValues
            onChange=${(rows) => set({ headers: rows })} />
          <${Select} id="server-auth" label="Authentication" value=${form.authType} options=${AUTH_TYPES}
            onChange=${(v) => set({ authType: v })} />
          ${form.authType === "api_key"
            ? html`<${TextField} id="server-auth-header" label="API key header" value=${form.authHeader}
                onInput=${(v) => set({ authHeader: v })} />`
            : null}
          ${form.authType !== "none"
            ? html`<${TextField} id="server-auth-secret" type="password"
                label=${form.authType === "bearer" ? "Bearer token" : "API key"} value=${form.authSecret}
                onInput=${(v) => set({ authSecret: v })} hint="Stored encrypted; shown masked." />`
            : null}`
        : html`
          <${TextField} id="server-command" label="Command" required value=${form.command}
            placeholder="npx" onInput=${(v) => set({ command: v })} />
          <${TextArea} id="server-args" label="Arguments (one per line)" value=${form.args}
            onInput=${(v) => set({ args: v, argsEdited: true })} />
          <${TextField} id="server-cwd" label="Working directory" value=${form.cwd} onInput=${(v) => set({ cwd: v })} />
          <${RowsEditor} id="server-env" legend="Environment" rows=${form.env} nameLabel="Variable" secretSwitch
            onChange=${(rows) => set({ env: rows })} />`}
      <${TextField} id="server-timeout" label="Call timeout (seconds)" type="number" step="any" min="0" value=${form.timeout}
        placeholder="60" onInput=${(v) => set({ timeout: v })} />
      <${Checkbox} id="server-enabled" label="Enabled" checked=${form.enabled} onChange=${(v) => set({ enabled: v })} />
      <${ErrorNote} error=${error} />
      <div class="actions">
        <button type="submit" class="primary" disabled=${saving}>Save</button>
        <button type="button" onClick=${onClose}>Cancel</button>
      </div>
    </form>
  <//>`;
}

// The dialog that creates or edits a view: its name and description, then either an
// assistant to follow or servers, each with its tools (every one, or those checked) and how
// their names are exported, which calls of clients that accept tasks run as tasks, and
// whether clients list every tool or search them (with the servers whose tools are always
// listed). The server refuses names that would collide (409, naming them);
// an existing view also shows collisions that appeared since it was saved.

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { get, post, put, seg } from "../api.js";
import { t } from "../i18n.js";
import { Dialog } from "../ui/dialog.js";
import { ErrorNote } from "../ui/error-note.js";
import { Select, TextArea, TextField } from "../ui/fields.js";
import { bodyFrom, formFrom, problems, serverPinned, withRow, withServerPin, withTool } from "./view-form.js";

export function ViewEditModal({ view, servers, assistants, onClose, onSaved }) {
  const [form, setForm] = useState(() => formFrom(view, servers));
  const [tools, setTools] = useState({}); // serverId → [tool] | ApiError
  const [collisions, setCollisions] = useState([]);
  const [error, setError] = useState(null);
  const [shown, setShown] = useState([]); // problems shown after a save attempt
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (view) get(`/api/mcp/views/${seg(view.id)}`).then((read) => setCollisions(read.collisions || [])).catch(() => {});
  }, []);
  const loadTools = (serverId) => {
    if (tools[serverId]) return;
    get(`/api/mcp-servers/${seg(serverId)}/tools`)
      .then((list) => setTools((all) => ({ ...all, [serverId]: list })))
      .catch((e) => setTools((all) => ({ ...all, [serverId]: e })));
  };
  useEffect(() => {
    form.servers.filter((r) => r.included && !r.allTools).forEach((r) => loadTools(r.serverId));
  }, [form]);

  const save = async (event) => {
    event.preventDefault();
    const found = problems(form);
    setShown(found);
    if (found.length) return;
    setError(null);
    setSaving(true);
    try {
      const body = bodyFrom(form);
      if (view) await put(`/api/mcp/views/${seg(view.id)}`, body);
      else await post("/api/mcp/views", body);
      onSaved();
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  };

  const title = view ? t("ui.gateway.edit_title", { name: view.name }) : t("ui.gateway.new_title");
  return html`<${Dialog} title=${title} onClose=${onClose} wide>
    <form class="view-form" onSubmit=${save} novalidate>
      <${TextField} id="view-name" label=${t("ui.gateway.name")} value=${form.name} required
        hint=${t("ui.gateway.name_hint")} onInput=${(name) => setForm({ ...form, name })} />
      <${TextArea} id="view-description" label=${t("ui.gateway.description")} value=${form.description} rows=${2}
        onInput=${(description) => setForm({ ...form, description })} />
      <${Select} id="view-mode" label=${t("ui.gateway.mode")} value=${form.mode}
        options=${[["servers", t("ui.gateway.mode_servers")], ["assistant", t("ui.gateway.mode_assistant")]]}
        onChange=${(mode) => setForm({ ...form, mode })} />
      ${form.mode === "assistant"
        ? html`<${Select} id="view-assistant" label=${t("ui.gateway.assistant")} value=${form.assistantId}
            options=${[["", t("ui.gateway.choose")], ...assistants.map((a) => [a.id, a.name])]}
            onChange=${(assistantId) => setForm({ ...form, assistantId })} />`
        : html`<fieldset class="view-servers">
            <legend>${t("ui.gateway.servers")}</legend>
            ${form.servers.length === 0 ? html`<p class="muted">${t("ui.gateway.no_servers")}</p>` : null}
            ${form.servers.map((r) => html`<${ServerRow} key=${r.serverId} row=${r} tools=${tools[r.serverId]}
              pin=${form.exposure === "search" ? serverPinned(form, r.serverId) : null}
              onPin=${(pinned) => setForm(withServerPin(form, r.serverId, pinned))}
              onChange=${(change) => setForm(withRow(form, r.serverId, change))}
              onTool=${(tool, checked) => setForm(withTool(form, r.serverId, tool, checked))} />`)}
          </fieldset>`}
      <${Select} id="view-exposure" label=${t("ui.gateway.exposure")} value=${form.exposure}
        hint=${t("ui.gateway.exposure_hint")}
        options=${[["all", t("ui.gateway.exposure_all")], ["search", t("ui.gateway.exposure_search")]]}
        onChange=${(exposure) => setForm({ ...form, exposure })} />
      <${Select} id="view-run-as-task" label=${t("ui.gateway.tasks")} value=${form.runAsTask}
        hint=${t("ui.gateway.tasks_hint")}
        options=${[["never", t("ui.gateway.tasks_never")], ["slow", t("ui.gateway.tasks_slow")], ["always", t("ui.gateway.tasks_always")]]}
        onChange=${(runAsTask) => setForm({ ...form, runAsTask })} />
      ${form.runAsTask === "slow"
        ? html`<${TextField} id="view-slow-after" type="number" min="1" max="86400" step="1"
            label=${t("ui.gateway.slow_after")} value=${form.slowAfterSecs}
            hint=${t("ui.gateway.slow_after_hint")} onInput=${(slowAfterSecs) => setForm({ ...form, slowAfterSecs })} />`
        : null}
      ${collisions.length
        ? html`<div class="warning" role="status">
            <p>${t("ui.gateway.collisions")}</p>
            <ul>${collisions.map((c) => html`<li key=${c.name}><code>${c.name}</code> ${c.tools.map((x) => `${x.server}/${x.tool}`).join(", ")}</li>`)}</ul>
          </div>`
        : null}
      ${shown.length
        ? html`<ul class="error" role="alert">${shown.map((p) => html`<li key=${p.field} data-field=${p.field}>${t(p.key, p.params)}</li>`)}</ul>`
        : null}
      <${ErrorNote} error=${error} />
      <div class="actions">
        <button type="button" onClick=${onClose}>${t("ui.common.cancel")}</button>
        <button type="submit" class="primary" disabled=${saving}>${t("ui.common.save")}</button>
      </div>
    </form>
  <//>`;
}

/** One server of the view: included or not, its tools, its names, and (`pin` not null) whether its tools are always listed. */
function ServerRow({ row, tools, pin, onPin, onChange, onTool }) {
  const id = (what) => `view-${what}-${row.serverId}`;
  return html`<div class="view-server" data-server=${row.serverId}>
    <div class="field check">
      <input id=${id("include")} type="checkbox" checked=${row.included} onChange=${(e) => onChange({ included: e.currentTarget.checked })} />
      <label for=${id("include")}>${row.name}</label>
    </div>
    ${row.included
      ? html`<div class="view-server-detail">
          <div class="field check">
            <input id=${id("all")} type="checkbox" checked=${row.allTools} onChange=${(e) => onChange({ allTools: e.currentTarget.checked })} />
            <label for=${id("all")}>${t("ui.gateway.all_tools")}</label>
          </div>
          ${row.allTools ? null : html`<${ToolChecks} row=${row} tools=${tools} onTool=${onTool} />`}
          ${pin === null
            ? null
            : html`<div class="field check">
                <input id=${id("pin")} type="checkbox" checked=${pin} onChange=${(e) => onPin(e.currentTarget.checked)} />
                <label for=${id("pin")}>${t("ui.gateway.pin_server")}</label>
              </div>`}
          <${Select} id=${id("naming")} label=${t("ui.gateway.naming")} value=${row.naming}
            options=${[["template", t("ui.gateway.naming_template")], ["own", t("ui.gateway.naming_own")], ["prefix", t("ui.gateway.naming_prefix")]]}
            onChange=${(naming) => onChange({ naming })} />
          ${row.naming === "prefix"
            ? html`<${TextField} id=${id("prefix")} label=${t("ui.gateway.prefix_x", { server: row.name })} value=${row.prefix}
                onInput=${(prefix) => onChange({ prefix })} />`
            : null}
        </div>`
      : null}
  </div>`;
}

/** The server's tools as checkboxes (with a tool the view names but the server lacks now). */
function ToolChecks({ row, tools, onTool }) {
  if (tools instanceof Error) return html`<${ErrorNote} error=${tools} />`;
  if (!tools) return html`<p aria-busy="true">${t("ui.gateway.loading_tools")}</p>`;
  const names = [...new Set([...tools.map((x) => x.name), ...row.tools])];
  return html`<fieldset class="view-tools">
    <legend>${t("ui.gateway.tools_of", { server: row.name })}</legend>
    ${names.map((name) => {
      const id = `view-tool-${row.serverId}-${name}`;
      return html`<div class="field check" key=${name}>
        <input id=${id} type="checkbox" checked=${row.tools.includes(name)} onChange=${(e) => onTool(name, e.currentTarget.checked)} />
        <label for=${id}><code>${name}</code></label>
      </div>`;
    })}
  </fieldset>`;
}

// One tool node, edited (seed 002's MCPToolConfig): its name, a server, the tools ticked
// from it, per parameter who fills it, the node's own variables, retry and timeout. Saved
// through /api/tool-nodes (the server checks every reference, property 7, and its 400 is
// shown as it is); once saved it can be run here with sample variables (run-node.js).

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { get, post, put, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { Checkbox, Select, TextField } from "../ui/fields.js";
import { idFor } from "../schema-fields.js";
import { variableOptions } from "./mapping.js";
import { MappingChooser } from "./mapping-chooser.js";
import {
  editorFrom, newNode, nodeFrom, selectTool, setChoice, setFields, setMode, setServer, setToolEnabled, setVariables,
} from "./node-state.js";
import { declsFrom } from "./variables.js";
import { VariablesEditor } from "./variables-editor.js";
import { RunNode } from "./run-node.js";

/**
 * `stored`: the node being edited (null: a new one); `assistantId` and `assistantVariables`
 * (declarations) when it belongs to an assistant; `onSaved(stored)` after each save.
 */
export function NodeEditor({ stored, servers, assistantId = null, assistantVariables = [], onSaved, onClose }) {
  const [state, setState] = useState(() => (stored ? null : newNode({ serverId: servers[0]?.id ?? "", assistantId })));
  const [infos, setInfos] = useState(null);
  const [saved, setSaved] = useState(stored);
  const [problems, setProblems] = useState([]);
  const [error, setError] = useState(null);
  const [saving, setSaving] = useState(false);
  const serverId = state ? state.serverId : stored?.serverId;

  // The server's tools give each parameter its schema; a stored node is read once they are here.
  useEffect(() => {
    if (!serverId) return void setInfos([]);
    let live = true;
    setInfos(null);
    get(`/api/mcp-servers/${seg(serverId)}/tools`).then(
      (tools) => live && (setInfos(tools), setState((s) => s ?? editorFrom(stored, tools))),
      (e) => live && (setError(e), setInfos([]), setState((s) => s ?? editorFrom(stored, []))),
    );
    return () => {
      live = false;
    };
  }, [serverId]);

  if (!state) return html`<section class="node-editor" aria-busy="true"><p>${t("ui.common.loading")}</p><${ErrorNote} error=${error} /></section>`;
  const update = (change) => {
    setProblems([]);
    setState(change);
  };
  const own = declsFrom(state.variables).decls;
  const options = variableOptions(own, assistantVariables);
  const prefix = `node-${state.id ?? "new"}`;

  const save = async (event) => {
    event.preventDefault();
    setError(null);
    const { node, errors } = nodeFrom(state, infos);
    setProblems(errors);
    if (errors.length) return;
    setSaving(true);
    try {
      const answer = saved ? await put(`/api/tool-nodes/${seg(saved.id)}`, node) : await post("/api/tool-nodes", node);
      setSaved(answer);
      setState((s) => ({ ...s, id: answer.id }));
      onSaved(answer);
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  };

  const problemAt = (path) => problems.find((p) => p.path === path);
  const words = (p) => t(p.key, p.params);

  return html`<section class="node-editor" aria-label=${t("ui.nodes.editor")}>
    <form onSubmit=${save} novalidate>
      <${TextField} id=${`${prefix}-name`} label=${t("ui.nodes.name")} required value=${state.name}
        onInput=${(v) => update((s) => setFields(s, { name: v }))} />
      <${Select} id=${`${prefix}-server`} label=${t("ui.nodes.server")} value=${state.serverId}
        options=${[["", t("ui.form.choose")], ...servers.map((s) => [s.id, s.name])]}
        onChange=${(v) => update((s) => setServer(s, v))} />
      <fieldset class="node-tools">
        <legend>${t("ui.nodes.tools")}</legend>
        ${infos === null ? html`<p aria-busy="true">${t("ui.tools.loading")}</p>` : null}
        ${infos?.length === 0 ? html`<p class="muted">${t("ui.nodes.no_tools")}</p>` : null}
        ${(infos || []).map((info) => {
          const selected = state.tools.find((x) => x.name === info.name);
          const index = state.tools.indexOf(selected);
          const id = idFor(`${prefix}-tool`, [info.name]);
          const props = info.inputSchema?.properties && typeof info.inputSchema.properties === "object" ? info.inputSchema.properties : {};
          const required = Array.isArray(info.inputSchema?.required) ? info.inputSchema.required : [];
          const params = selected ? [...new Set([...Object.keys(props), ...Object.keys(selected.choices)])] : [];
          return html`<div class="node-tool" key=${info.name} data-tool=${info.name}>
            <div class="field check">
              <input type="checkbox" id=${id} checked=${!!selected} onChange=${(e) => update((s) => selectTool(s, info.name, e.currentTarget.checked))} />
              <label for=${id}><code>${info.name}</code>${info.isEnabled === false ? html` <span class="badge">${t("ui.nodes.off_on_server")}</span>` : null}</label>
            </div>
            ${info.description ? html`<p class="muted small">${info.description}</p>` : null}
            ${selected
              ? html`<div class="node-tool-body">
                  <${Checkbox} id=${`${id}-enabled`} label=${t("ui.nodes.tool_enabled", { name: info.name })} checked=${selected.enabled}
                    onChange=${(v) => update((s) => setToolEnabled(s, info.name, v))} />
                  ${params.length === 0 ? html`<p class="muted small">${t("ui.form.no_arguments")}</p>` : null}
                  ${params.map((param) => {
                    const p = problemAt(`selectedTools[${index}].parameterMappings.${param}`);
                    return html`<${MappingChooser} key=${param} id=${idFor(`${id}-param`, [param])} param=${param}
                      schema=${props[param]} inputSchema=${info.inputSchema} required=${required.includes(param)}
                      choice=${selected.choices[param]} options=${options} error=${p ? words(p) : null}
                      onMode=${(mode) => update((s) => setMode(s, info.name, param, mode, infos))}
                      onChoice=${(choice) => update((s) => setChoice(s, info.name, param, choice))} />`;
                  })}
                </div>`
              : null}
          </div>`;
        })}
      </fieldset>
      <${VariablesEditor} id=${`${prefix}-vars`} legend=${t("ui.nodes.node_variables")} rows=${state.variables}
        errors=${problems.filter((p) => p.path.startsWith("variables[")).map((p) => ({ index: Number(p.path.slice(10, -1)), key: p.key, name: p.params.name }))}
        onChange=${(rows) => update((s) => setVariables(s, rows))} />
      <fieldset class="node-policy">
        <legend>${t("ui.nodes.policy")}</legend>
        <${Checkbox} id=${`${prefix}-retry`} label=${t("ui.nodes.retry_on_error")} checked=${state.retryOnError}
          onChange=${(v) => update((s) => setFields(s, { retryOnError: v }))} />
        <${TextField} id=${`${prefix}-retries`} label=${t("ui.nodes.max_retries")} type="number" min="0" step="1"
          value=${state.maxRetries} onInput=${(v) => update((s) => setFields(s, { maxRetries: v }))} />
        <${TextField} id=${`${prefix}-timeout`} label=${t("ui.nodes.timeout_ms")} type="number" min="1" step="1"
          hint=${t("ui.nodes.timeout_hint")} value=${state.timeoutMs} onInput=${(v) => update((s) => setFields(s, { timeoutMs: v }))} />
      </fieldset>
      ${problems.length
        ? html`<ul class="error" role="alert">${problems.map((p) => html`<li><code>${p.path}</code>: ${words(p)}</li>`)}</ul>`
        : null}
      <${ErrorNote} error=${error} />
      <div class="actions">
        <button type="submit" class="primary" disabled=${saving}>${t("ui.nodes.save")}</button>
        <button type="button" onClick=${onClose}>${t("ui.common.close")}</button>
      </div>
    </form>
    ${saved ? html`<${RunNode} key=${`${saved.id}-${saved.updatedAt}`} node=${saved} infos=${infos || []}
      variables=${[...(saved.variables || []), ...assistantVariables]} />` : null}
  </section>`;
}

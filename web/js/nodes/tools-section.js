// The assistant editor's tool nodes (seed 002's ToolsSection): the nodes of this assistant
// (GET /api/assistants/{id}/tool-nodes), each with its server and tools, and one open in
// the node editor at a time. Nodes are saved on their own, so this sits outside the
// assistant's form; an assistant not yet created has none until it is saved.

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { del, get, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { NodeEditor } from "./node-editor.js";

/** `assistant`: the saved assistant (null while new); `assistantVariables`: its declarations as edited. */
export function ToolsSection({ assistant, servers, assistantVariables }) {
  const [nodes, setNodes] = useState(null);
  const [editing, setEditing] = useState(null); // "new" or a node
  const [error, setError] = useState(null);
  const load = async () => {
    if (!assistant) return;
    try {
      setNodes(await get(`/api/assistants/${seg(assistant.id)}/tool-nodes`));
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    load();
  }, [assistant?.id]);

  const remove = async (node) => {
    if (!confirm(t("ui.nodes.confirm_delete", { name: node.name }))) return;
    setError(null);
    try {
      await del(`/api/tool-nodes/${seg(node.id)}`);
      if (editing?.id === node.id) setEditing(null);
      load();
    } catch (e) {
      setError(e);
    }
  };
  const serverName = (id) => servers.find((s) => s.id === id)?.name || id;

  return html`<section class="tools-section" aria-labelledby="tools-section-title">
    <h3 id="tools-section-title">${t("ui.nodes.title")}</h3>
    ${!assistant ? html`<p class="muted small">${t("ui.nodes.save_first")}</p>` : null}
    ${nodes?.length === 0 && !editing ? html`<p class="muted small">${t("ui.nodes.none")}</p>` : null}
    <ul class="node-list">
      ${(nodes || []).map((n) => html`<li key=${n.id} data-node-id=${n.id} aria-label=${n.name}>
        <strong>${n.name}</strong>
        <span class="muted small"> ${serverName(n.serverId)} · ${(n.selectedTools || []).map((x) => x.name).join(", ")}</span>
        <span class="node-actions">
          <button type="button" onClick=${() => setEditing(n)} aria-label=${t("ui.nodes.edit_x", { name: n.name })}>${t("ui.common.edit")}</button>
          <button type="button" class="quiet" onClick=${() => remove(n)} aria-label=${t("ui.nodes.delete_x", { name: n.name })}>${t("ui.common.delete")}</button>
        </span>
      </li>`)}
    </ul>
    <${ErrorNote} error=${error} />
    ${assistant && !editing
      ? html`<button type="button" onClick=${() => setEditing("new")} disabled=${servers.length === 0}>${t("ui.nodes.add")}</button>`
      : null}
    ${editing
      ? html`<${NodeEditor} key=${editing === "new" ? "new" : editing.id} stored=${editing === "new" ? null : editing}
          servers=${servers} assistantId=${assistant.id} assistantVariables=${assistantVariables}
          onSaved=${(saved) => { setEditing(saved); load(); }} onClose=${() => setEditing(null)} />`
      : null}
  </section>`;
}

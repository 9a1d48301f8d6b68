// Settings → MCP gateway: the person's views (`/mcp/v/NAME`), each with what it
// offers; a dialog to create or edit one, and one to connect a client to it (a token limited
// to the view, shown once, and the snippets to paste into Claude Desktop, Cursor, VS Code).

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { get, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { useLoaded } from "../ui/use-loaded.js";
import { summary } from "./view-form.js";
import { ViewEditModal } from "./view-edit-modal.js";
import { ViewConnectDialog } from "./view-connect.js";

export function GatewayPanel({ servers }) {
  const { data: views, error, reload, remove } = useLoaded(() => get("/api/mcp/views"));
  const [assistants, setAssistants] = useState([]);
  const [editing, setEditing] = useState(null); // null, "new" or a view
  const [connecting, setConnecting] = useState(null); // null or a view
  useEffect(() => {
    get("/api/assistants").then(setAssistants).catch(() => setAssistants([]));
  }, []);

  return html`<section class="card gateway" aria-labelledby="gateway-title">
    <header>
      <h2 id="gateway-title">${t("ui.gateway.title")}</h2>
      <button type="button" class="primary" onClick=${() => setEditing("new")}>${t("ui.gateway.add")}</button>
    </header>
    <p class="muted">${t("ui.gateway.intro")}</p>
    <${ErrorNote} error=${error} />
    ${views === null && !error ? html`<p aria-busy="true">${t("ui.common.loading")}</p>` : null}
    ${views?.length === 0 ? html`<p class="muted">${t("ui.gateway.none")}</p>` : null}
    <ul class="views">
      ${(views || []).map((view) => {
        const offers = summary(view, servers, assistants);
        return html`<li key=${view.id} data-view=${view.name}>
          <code>/mcp/v/${view.name}</code>
          ${view.description ? html` <span>${view.description}</span>` : null}
          <div class="muted small">${t(offers.key, offers.params)}</div>
          <div class="actions">
            <button type="button" onClick=${() => setConnecting(view)}>${t("ui.gateway.connect")}</button>
            <button type="button" onClick=${() => setEditing(view)}>${t("ui.common.edit")}</button>
            <button type="button" class="danger" onClick=${() =>
              remove(t("ui.gateway.delete_confirm", { name: view.name }), `/api/mcp/views/${seg(view.id)}`)}>${t("ui.common.delete")}</button>
          </div>
        </li>`;
      })}
    </ul>
    ${editing
      ? html`<${ViewEditModal} view=${editing === "new" ? null : editing} servers=${servers || []} assistants=${assistants}
          onClose=${() => setEditing(null)} onSaved=${() => { setEditing(null); reload(); }} />`
      : null}
    ${connecting ? html`<${ViewConnectDialog} view=${connecting} onClose=${() => setConnecting(null)} />` : null}
  </section>`;
}

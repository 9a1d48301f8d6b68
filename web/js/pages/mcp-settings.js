// Settings → MCP servers (/settings/mcp): a card per server with its live status, a dialog
// to add or edit one, ready servers added from the catalogue, and import of a Claude
// Desktop / Cursor `mcpServers` file. The configured MCP nodes (GET /api/nodes) feed the
// dialog's "Runs on" selector and each card's node health; they are fetched again after a
// server's status changes or the event stream reconnects (at most once a second), and every
// 30 seconds while the page is open and visible.

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { get, post, seg } from "../api.js";
import { subscribe } from "../events.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { ServerCard } from "../mcp/server-card.js";
import { ServerEditModal } from "../mcp/server-edit-modal.js";
import { ImportPanel } from "../mcp/import-panel.js";
import { CataloguePanel } from "../mcp/catalogue-panel.js";
import { presetsById } from "../mcp/catalogue-form.js";
import { coalesced } from "../mcp/server-node.js";
import { GatewayPanel } from "../gateway/views-panel.js";

/** How often the node list is fetched again while the page is open and visible. */
const NODES_EVERY_MS = 30000;
/** Status changes within this long of each other share one fetch of the node list. */
const NODES_AFTER_STATUS_MS = 1000;

export function McpSettingsPage() {
  const [servers, setServers] = useState(null);
  const [statuses, setStatuses] = useState({});
  const [nodes, setNodes] = useState(null); // null until loaded
  const [presets, setPresets] = useState({});
  const [editing, setEditing] = useState(null); // null, "new" or a server
  const [error, setError] = useState(null);

  const loadNodes = async () => {
    try {
      setNodes(await get("/api/nodes"));
    } catch (e) {
      // A server without nodes support has no such route: no nodes. Other failures keep
      // the list last shown (the next refresh tries again).
      if (e.status === 404) setNodes([]);
    }
  };
  const load = async () => {
    loadNodes();
    try {
      const list = await get("/api/mcp-servers");
      setServers(list);
      setPresets(presetsById(await get("/api/catalogue/servers").catch(() => [])));
      const health = await Promise.all(
        list.map((s) => get(`/api/mcp-servers/${seg(s.id)}/health`).catch(() => null)),
      );
      setStatuses(Object.fromEntries(list.map((s, i) => [s.id, health[i]]).filter(([, h]) => h)));
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    load();
    const nodesSoon = coalesced(loadNodes, NODES_AFTER_STATUS_MS);
    const every = setInterval(() => {
      if (!document.hidden) loadNodes();
    }, NODES_EVERY_MS);
    const unsubscribe = subscribe((event) => {
      if (event.type === "server.status") {
        setStatuses((all) => ({ ...all, [event.serverId]: { status: event.status, lastError: event.lastError } }));
        nodesSoon.request();
      } else if (event.type === "stream.open") {
        // Back after a dropped connection: what changed meanwhile was not seen.
        nodesSoon.request();
      }
    });
    return () => {
      unsubscribe();
      nodesSoon.cancel();
      clearInterval(every);
    };
  }, []);

  return html`<section class="page settings-mcp" aria-labelledby="mcp-title">
    <header class="page-head">
      <h1 id="mcp-title">${t("ui.mcp.title")}</h1>
      <button type="button" class="primary" onClick=${() => setEditing("new")}>${t("ui.mcp.add")}</button>
    </header>
    <${ErrorNote} error=${error} />
    ${servers === null && !error ? html`<p aria-busy="true">${t("ui.common.loading")}</p>` : null}
    ${servers?.length === 0 ? html`<p class="muted">${t("ui.mcp.none")}</p>` : null}
    <div class="cards">
      ${(servers || []).map((s) => html`<${ServerCard} key=${s.id} server=${s} status=${statuses[s.id]} nodes=${nodes} presetType=${presets[s.id]}
        onEdit=${() => setEditing(s)} onDeleted=${load} onChanged=${load} />`)}
    </div>
    <${CataloguePanel} onAdded=${load} />
    <${ImportPanel} onImported=${load} />
    <${GatewayPanel} servers=${servers} />
    ${editing
      ? html`<${ServerEditModal} server=${editing === "new" ? null : editing} nodes=${nodes}
          onClose=${() => setEditing(null)} onSaved=${() => { setEditing(null); load(); }} />`
      : null}
  </section>`;
}

// Settings → MCP servers (/settings/mcp): a card per server with its live status, a dialog
// to add or edit one, ready servers added from the catalogue, and import of a Claude
// Desktop / Cursor `mcpServers` file. The configured MCP nodes (GET /api/nodes) feed the
// dialog's "Runs on" selector and each card's node health; they are fetched again after a
// server's status changes or the event stream reconnects (at most once a second), and every
// 30 seconds while the page is open and visible. Reached from an OAuth sign-in (the callback's
// redirect, `?signedIn=ID` or `?signInFailed=ID&reason=CODE`), it says how the sign-in went,
// takes the query out of the address bar, and after a sign-in connects the server (through
// its tool list) so that its status shows the new sign-in at work. What each server's tools
// cost a model request (GET /api/tools/cost) shows on its card, and a box searches the tools
// as a model with deferred tools does (GET /api/tools/search).

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
import { signInNotice, signInReturn, withoutSignInQuery } from "../mcp/sign-in.js";
import { GatewayPanel } from "../gateway/views-panel.js";
import { ToolSearchPanel } from "../mcp/tool-search-panel.js";

/** How often the node list is fetched again while the page is open and visible. */
const NODES_EVERY_MS = 30000;
/** Status changes within this long of each other share one fetch of the node list. */
const NODES_AFTER_STATUS_MS = 1000;

export function McpSettingsPage() {
  const [servers, setServers] = useState(null);
  const [statuses, setStatuses] = useState({});
  const [nodes, setNodes] = useState(null); // null until loaded
  const [presets, setPresets] = useState({});
  const [cost, setCost] = useState(null); // GET /api/tools/cost, null until counted
  const [editing, setEditing] = useState(null); // null, "new" or a server
  const [error, setError] = useState(null);
  const [signIn, setSignIn] = useState(() => signInReturn(location.search)); // null, or how it went

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
      // Counting lists every server's tools: not waited for (a slow server delays its line only).
      get("/api/tools/cost").then(setCost, () => setCost(null));
      const health = await Promise.all(
        list.map((s) => get(`/api/mcp-servers/${seg(s.id)}/health`).catch(() => null)),
      );
      setStatuses(Object.fromEntries(list.map((s, i) => [s.id, health[i]]).filter(([, h]) => h)));
    } catch (e) {
      setError(e);
    }
  };
  /** Reads one server's status again (after a sign-out, or a sign-in with `connect`). */
  const loadStatus = async (id, { connect = false } = {}) => {
    // Listing the tools opens the pooled connection, with the person's new tokens.
    if (connect) await get(`/api/mcp-servers/${seg(id)}/tools`).catch(() => null);
    const health = await get(`/api/mcp-servers/${seg(id)}/health`).catch(() => null);
    if (health) setStatuses((all) => ({ ...all, [id]: health }));
  };
  useEffect(() => {
    if (signIn) {
      history.replaceState(history.state, "", location.pathname + withoutSignInQuery(location.search) + location.hash);
    }
    // After the page's own load, which replaces every status.
    load().then(() => (signIn?.ok ? loadStatus(signIn.serverId, { connect: true }) : null));
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
    ${signIn ? html`<${SignInNotice} notice=${signInNotice(signIn, servers)} onClose=${() => setSignIn(null)} />` : null}
    ${servers === null && !error ? html`<p aria-busy="true">${t("ui.common.loading")}</p>` : null}
    ${servers?.length === 0 ? html`<p class="muted">${t("ui.mcp.none")}</p>` : null}
    <div class="cards">
      ${(servers || []).map((s) => html`<${ServerCard} key=${s.id} server=${s} status=${statuses[s.id]} nodes=${nodes} presetType=${presets[s.id]} cost=${cost}
        onEdit=${() => setEditing(s)} onDeleted=${load} onChanged=${load} onStatusStale=${() => loadStatus(s.id)} />`)}
    </div>
    ${servers?.length ? html`<${ToolSearchPanel} />` : null}
    <${CataloguePanel} onAdded=${load} />
    <${ImportPanel} onImported=${load} />
    <${GatewayPanel} servers=${servers} />
    ${editing
      ? html`<${ServerEditModal} server=${editing === "new" ? null : editing} nodes=${nodes}
          onClose=${() => setEditing(null)} onSaved=${() => { setEditing(null); load(); }} />`
      : null}
  </section>`;
}

/** How a sign-in went, as the page was reached from it; closed by the person. */
function SignInNotice({ notice, onClose }) {
  return html`<div class=${`sign-in-notice ${notice.ok ? "ok" : "error"}`} data-role="sign-in-notice"
      role=${notice.ok ? "status" : "alert"}>
    <p>${notice.code ? html`<code>${notice.code}</code> ` : null}${notice.text}</p>
    <button type="button" class="quiet" onClick=${onClose}>${t("ui.common.close")}</button>
  </div>`;
}

// One MCP server on the settings page (seed 001's ServerCard): name, transport, address and
// live status, the node it runs on with that node's health (from `nodes`, GET /api/nodes),
// a badge when it was added from the catalogue, and what its tools cost each model request
// (`cost`, its part of GET /api/tools/cost); Test connection, its tools, its log, Edit and
// Delete;
// Sign in and Sign out for a server that uses OAuth sign-in (`onStatusStale` then reads its
// status again).

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { del, post, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { ServerTools } from "./server-tools.js";
import { ServerLog } from "./server-log-panel.js";
import { presetBadge } from "./catalogue-form.js";
import { nodeLabel, nodeNote } from "./server-node.js";
import { SignInButtons } from "./sign-in-buttons.js";
import { serverCost, tokensText } from "./tool-cost.js";

export function ServerCard({ server, status, nodes, presetType, cost, onEdit, onDeleted, onChanged, onStatusStale }) {
  const [test, setTest] = useState(null);
  const [testing, setTesting] = useState(false);
  const [showTools, setShowTools] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const [error, setError] = useState(null);
  const state = status?.status || "disconnected";
  const headingId = `server-${server.id}-name`;
  const node = nodeLabel(server, nodes);
  const nodeError = nodeNote(node, status);

  const runTest = async () => {
    setTesting(true);
    setError(null);
    setTest(null);
    try {
      setTest(await post(`/api/mcp-servers/${seg(server.id)}/test`));
    } catch (e) {
      setError(e);
    } finally {
      setTesting(false);
    }
  };
  const remove = async () => {
    if (!confirm(t("ui.server.confirm_delete", { name: server.name }))) return;
    try {
      await del(`/api/mcp-servers/${seg(server.id)}`);
      onDeleted();
    } catch (e) {
      setError(e);
    }
  };

  return html`<article class="card server-card" data-server-id=${server.id} aria-labelledby=${headingId}>
    <header>
      <h2 id=${headingId}>${server.name}</h2>
      <span class="badge">${server.transport}</span>
      <span class=${`status status-${state}`} data-role="status" title=${status?.lastError || ""}>
        <span class="dot" aria-hidden="true"></span>${statusText(state)}</span>
      ${node
        ? html`<span class=${`node-health node-${node.state}`} data-role="node" data-node=${node.name} title=${node.lastError}>
            ${node.text} <span class="dot" aria-hidden="true"></span>${node.stateText}</span>`
        : null}
      ${server.enabled === false ? html`<span class="badge muted">${t("ui.server.disabled")}</span>` : null}
      ${presetType ? html`<span class="badge preset" data-role="preset">${presetBadge(presetType)}</span>` : null}
    </header>
    <p class="address"><code>${address(server)}</code></p>
    ${status?.lastError
      ? html`<p class="muted small" data-role="last-error">${state === "needs_sign_in"
          ? status.lastError
          : t("ui.server.last_error", { error: status.lastError })}</p>`
      : null}
    ${nodeError ? html`<p class="muted small" data-role="node-error">${nodeError}</p>` : null}
    <${CostLine} cost=${serverCost(cost, server.id)} />
    <${SignInButtons} server=${server} state=${state} onSignedOut=${onStatusStale} />
    <div class="actions">
      <button type="button" onClick=${runTest} disabled=${testing}>${testing ? t("ui.server.testing") : t("ui.server.test")}</button>
      <button type="button" aria-expanded=${showTools} onClick=${() => setShowTools(!showTools)}>${t("ui.server.tools")}</button>
      <button type="button" aria-expanded=${showLog} onClick=${() => setShowLog(!showLog)}>${t("ui.server.log")}</button>
      <button type="button" onClick=${onEdit}>${t("ui.common.edit")}</button>
      <button type="button" class="quiet" onClick=${remove}>${t("ui.common.delete")}</button>
    </div>
    <${ErrorNote} error=${error} />
    ${test ? html`<${TestReport} report=${test} />` : null}
    ${showTools ? html`<${ServerTools} server=${server} onChanged=${onChanged} />` : null}
    ${showLog ? html`<${ServerLog} server=${server} />` : null}
  </article>`;
}

/** What the server's tools cost each request, when they were counted. */
function CostLine({ cost }) {
  if (!cost) return null;
  return html`<p class="muted small" data-role="tool-cost">${t(cost.tools === 1 ? "ui.tool_cost.server_one" : "ui.tool_cost.server", {
    count: cost.tools,
    tokens: tokensText(cost.tokens),
  })}</p>`;
}

/** What a connection test found: the server, its protocol and its tools (also the edit dialog's). */
export function TestReport({ report }) {
  const info = report.serverInfo || {};
  const tools = report.tools || [];
  return html`<div class="test-report" role="status">
    <p>${t(tools.length === 1 ? "ui.server.connected_to_one" : "ui.server.connected_to", {
      server: `${info.name || t("ui.server.the_server")} ${info.version || ""}`.trim(),
      protocol: report.protocolVersion || "?",
      count: tools.length,
    })}</p>
    <ul class="tool-names">${tools.map((tool) => html`<li key=${tool.name}><code>${tool.name}</code></li>`)}</ul>
  </div>`;
}

/** A connection state in the reader's language (unknown states as the server names them). */
function statusText(state) {
  const key = { connected: t("ui.status.connected"), connecting: t("ui.status.connecting"),
    disconnected: t("ui.status.disconnected"), error: t("ui.status.error"),
    needs_sign_in: t("ui.status.needs_sign_in") };
  return key[state] || state;
}

function address(server) {
  if (server.transport === "stdio") return [server.command, ...(server.args || [])].join(" ");
  return redactUrl(server.url || "");
}

/** A URL as the card shows it: a password or query values (often tokens) hidden. */
function redactUrl(text) {
  try {
    const url = new URL(text);
    if (url.password) url.password = "***";
    for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, "***");
    return url.toString();
  } catch {
    return text;
  }
}

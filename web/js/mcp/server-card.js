// One MCP server on the settings page (seed 001's ServerCard): name, transport, address and
// live status; Test connection, its tools, Edit and Delete.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { del, post, seg } from "../api.js";
import { ErrorNote } from "../ui/error-note.js";
import { ServerTools } from "./server-tools.js";

export function ServerCard({ server, status, onEdit, onDeleted, onChanged }) {
  const [test, setTest] = useState(null);
  const [testing, setTesting] = useState(false);
  const [showTools, setShowTools] = useState(false);
  const [error, setError] = useState(null);
  const state = status?.status || "disconnected";
  const headingId = `server-${server.id}-name`;

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
    if (!confirm(`Delete the server ${server.name}?`)) return;
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
        <span class="dot" aria-hidden="true"></span>${state}</span>
      ${server.enabled === false ? html`<span class="badge muted">disabled</span>` : null}
    </header>
    <p class="address"><code>${address(server)}</code></p>
    ${status?.lastError ? html`<p class="muted small">Last error: ${status.lastError}</p>` : null}
    <div class="actions">
      <button type="button" onClick=${runTest} disabled=${testing}>${testing ? "Testing…" : "Test connection"}</button>
      <button type="button" aria-expanded=${showTools} onClick=${() => setShowTools(!showTools)}>Tools</button>
      <button type="button" onClick=${onEdit}>Edit</button>
      <button type="button" class="quiet" onClick=${remove}>Delete</button>
    </div>
    <${ErrorNote} error=${error} />
    ${test ? html`<${TestReport} report=${test} />` : null}
    ${showTools ? html`<${ServerTools} server=${server} onChanged=${onChanged} />` : null}
  </article>`;
}

function TestReport({ report }) {
  const info = report.serverInfo || {};
  const tools = report.tools || [];
  return html`<div class="test-report" role="status">
    <p><strong>Connected</strong> to ${`${info.name || "the server"} ${info.version || ""}`.trim()}${" "}(protocol ${report.protocolVersion || "?"}); ${tools.length} tool${tools.length === 1 ? "" : "s"}.</p>
    <ul class="tool-names">${tools.map((t) => html`<li key=${t.name}><code>${t.name}</code></li>`)}</ul>
  </div>`;
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

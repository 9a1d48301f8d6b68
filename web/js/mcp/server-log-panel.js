// A server's log under its card: the lines it sent as MCP `notifications/message` (the API
// keeps its last 200, secrets cut out), newest first, with a button to load them again. Text
// is shown as text, never as HTML, and long lines wrap.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { get, seg } from "../api.js";
import { locale, t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { useLoaded } from "../ui/use-loaded.js";
import { clockTime, levelClass, levelText, newestFirst } from "./server-log.js";

export function ServerLog({ server }) {
  const { data: lines, error, setError, reload } = useLoaded(() => get(`/api/mcp-servers/${seg(server.id)}/logs`));
  const [refreshing, setRefreshing] = useState(false);
  const headingId = `server-${server.id}-log`;

  const refresh = async () => {
    setRefreshing(true);
    setError(null);
    await reload();
    setRefreshing(false);
  };

  return html`<section class="server-log" aria-labelledby=${headingId} aria-busy=${!lines && !error}>
    <div class="server-log-head">
      <h3 id=${headingId}>${t("ui.log.heading", { name: server.name })}</h3>
      <button type="button" onClick=${refresh} disabled=${refreshing}>
        ${refreshing ? t("ui.log.refreshing") : t("ui.log.refresh")}</button>
    </div>
    <${ErrorNote} error=${error} />
    ${!lines
      ? error ? null : html`<p class="muted">${t("ui.log.loading")}</p>`
      : lines.length === 0
        ? html`<p class="muted" data-role="log-empty">${t("ui.log.empty")}</p>`
        : html`<ol class="log-lines">${newestFirst(lines).map((line) => html`<${LogLine} line=${line} />`)}</ol>`}
  </section>`;
}

// The parts of a line are kept apart by spaces (not only by the layout's gaps), so that a
// screen reader and a copied line read "12:00:05 warning db text".
function LogLine({ line }) {
  const when = new Date(line.at);
  const time = html`<time class="muted small" title=${when.toLocaleString(locale())}>${clockTime(when)}</time>`;
  const level = html`<span class=${`badge ${levelClass(line.level)}`}>${levelText(line.level)}</span>`;
  const logger = line.logger ? html`<code class="log-logger">${line.logger}</code> ` : null;
  return html`<li data-level=${line.level}>${time} ${level} ${logger}<span class="log-text">${line.text}</span></li>`;
}

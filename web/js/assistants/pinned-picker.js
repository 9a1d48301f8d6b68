// The assistant editor's pinned tools: for each server the assistant uses, a box pinning all
// of its tools, and its tools to pin one by one (listed when opened, GET
// /api/mcp-servers/{id}/tools). Pinned tools are offered in full whatever the exposure.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { get, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { isPinned, isWholeServer, pinTool, pinWholeServer, pinnedCount } from "./pins.js";

/** `pins`: the pins as edited; `serverIds`: the servers the assistant uses. */
export function PinnedPicker({ pins, servers, serverIds, onChange }) {
  const used = servers.filter((s) => serverIds.includes(s.id));
  return html`<fieldset class="pinned-tools" data-role="pinned-tools">
    <legend>${t("ui.exposure.pinned")}</legend>
    <p class="muted small">${t("ui.exposure.pinned_hint")}</p>
    ${used.length === 0 ? html`<p class="muted small">${t("ui.exposure.pinned_no_servers")}</p>` : null}
    ${used.map((server) => html`<${PinnedServer} key=${server.id} server=${server} pins=${pins} onChange=${onChange} />`)}
  </fieldset>`;
}

function PinnedServer({ server, pins, onChange }) {
  const [tools, setTools] = useState(null);
  const [error, setError] = useState(null);
  const whole = isWholeServer(pins, server.id);
  const count = pinnedCount(pins, server.id);
  const open = async (event) => {
    if (!event.currentTarget.open || tools) return;
    try {
      setTools(await get(`/api/mcp-servers/${seg(server.id)}/tools`));
    } catch (e) {
      setError(e);
    }
  };
  const id = `pin-${server.id}`;
  return html`<div class="pinned-server" data-server-id=${server.id}>
    <div class="field check">
      <input type="checkbox" id=${id} checked=${whole}
        onChange=${(e) => onChange(pinWholeServer(pins, server.id, e.currentTarget.checked))} />
      <label for=${id}>${t("ui.exposure.pin_server", { name: server.name })}</label>
    </div>
    <details onToggle=${open}>
      <summary>${count === "all" || count === 0
        ? t("ui.exposure.pick_tools")
        : t("ui.exposure.pick_tools_count", { count })}</summary>
      ${tools === null && !error ? html`<p class="muted small" aria-busy="true">${t("ui.tools.loading")}</p>` : null}
      <${ErrorNote} error=${error} />
      <ul class="pin-list">
        ${(tools || []).map((tool) => {
          const toolId = `${id}-${tool.name}`;
          return html`<li key=${tool.name} class="field check" data-tool=${tool.name}>
            <input type="checkbox" id=${toolId} checked=${isPinned(pins, server.id, tool.name)} disabled=${whole}
              onChange=${(e) => onChange(pinTool(pins, server.id, tool.name, e.currentTarget.checked))} />
            <label for=${toolId}><code>${tool.name}</code></label>
          </li>`;
        })}
      </ul>
    </details>
  </div>`;
}

// A server's tools with seed 001's switches (enabled, auto-approve) and a form to try each,
// generated from its input schema (seed 002).

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { get, put, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { useLoaded } from "../ui/use-loaded.js";
import { TryTool } from "./try-tool.js";

export function ServerTools({ server, onChanged }) {
  const { data: tools, setData: setTools, error, setError, reload: load } = useLoaded(() =>
    get(`/api/mcp-servers/${seg(server.id)}/tools`),
  );
  const [trying, setTrying] = useState(null);

  const flip = async (tool, flags) => {
    setError(null);
    // Shown switched at once: a reload finishing meanwhile (another switch's) would
    // otherwise put the box back until this one's is stored.
    const shown = {};
    if (flags.enabled !== undefined) shown.isEnabled = flags.enabled;
    if (flags.autoApprove !== undefined) shown.isAutoApprove = flags.autoApprove;
    setTools((all) => all.map((each) => (each.name === tool.name ? { ...each, ...shown } : each)));
    try {
      await put(`/api/mcp-servers/${seg(server.id)}/tools/${seg(tool.name)}`, flags);
      await load();
      onChanged?.();
    } catch (e) {
      setError(e);
    }
  };

  if (!tools) return html`<div class="tools"><p aria-busy=${!error}>${error ? "" : t("ui.tools.loading")}</p><${ErrorNote} error=${error} /></div>`;
  return html`<div class="tools">
    <${ErrorNote} error=${error} />
    <table>
      <caption class="visually-hidden">${t("ui.tools.caption", { name: server.name })}</caption>
      <thead><tr><th scope="col">${t("ui.tools.tool")}</th><th scope="col">${t("ui.tools.enabled")}</th><th scope="col">${t("ui.tools.auto_approve")}</th><th scope="col"></th></tr></thead>
      <tbody>
        ${tools.map((tool) => {
          const id = `${server.id}-${tool.name}`;
          return html`<tr key=${tool.name} data-tool=${tool.name}>
            <td><code>${tool.name}</code><div class="muted small">${tool.description || ""}</div></td>
            <td><input type="checkbox" id=${`enabled-${id}`} checked=${tool.isEnabled}
              aria-label=${t("ui.tools.enable_x", { name: tool.name })} onChange=${(e) => flip(tool, { enabled: e.currentTarget.checked })} /></td>
            <td><input type="checkbox" id=${`auto-${id}`} checked=${tool.isAutoApprove}
              aria-label=${t("ui.tools.auto_approve_x", { name: tool.name })} onChange=${(e) => flip(tool, { autoApprove: e.currentTarget.checked })} /></td>
            <td><button type="button" aria-expanded=${trying === tool.name}
              onClick=${() => setTrying(trying === tool.name ? null : tool.name)}>${t("ui.tools.try")}</button></td>
          </tr>`;
        })}
      </tbody>
    </table>
    ${trying ? html`<${TryTool} key=${trying} server=${server} tool=${tools.find((each) => each.name === trying)} />` : null}
  </div>`;
}

// The servers a turn was started without (`metadata.unavailableServers`: their tools could
// not be listed), each said in words above the answer: "GitHub is unreachable: its tools are
// left out". The list is kept with the turn, so a reload shows it too.

import { html } from "../html.js";
import { t } from "../i18n.js";

/** The servers `message`'s turn left out: [{serverId, name, code, kind}], none when it left none out. */
export function leftOutOf(message) {
  const servers = message?.metadata?.unavailableServers;
  return Array.isArray(servers) ? servers.filter((s) => s && typeof s.name === "string") : [];
}

function words(server) {
  const params = { server: server.name };
  switch (server.kind) {
    case "unreachable":
      return t("ui.chat.left_out_unreachable", params);
    case "sign_in":
      return t("ui.chat.left_out_sign_in", params);
    default:
      return t("ui.chat.left_out_failed", params);
  }
}

export function LeftOut({ message }) {
  const servers = leftOutOf(message);
  if (servers.length === 0) return null;
  return html`<ul class="left-out" aria-label=${t("ui.chat.left_out_label")}>
    ${servers.map((s) => html`<li key=${s.serverId || s.name} data-server=${s.serverId}>${words(s)}</li>`)}
  </ul>`;
}

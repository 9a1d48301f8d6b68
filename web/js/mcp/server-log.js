// The pure half of a server's log panel (GET /api/mcp-servers/{id}/logs: the last lines the
// server sent as MCP `notifications/message`, oldest first, each `{at, level, logger?, text}`):
// the lines in the order the panel shows them, each level's colour and name, and the time of
// day a line is shown at. The panel itself is server-log-panel.js.

import { t } from "../i18n.js";

/** The lines newest first, as the panel lists them; the API's array is left as it is. */
export function newestFirst(lines) {
  return [...(lines || [])].reverse();
}

/**
 * The badge's colour class for a level (RFC 5424's, as MCP names them): debug, info and
 * notice are muted, warning is amber, error and everything above it red. A level this UI
 * does not know is muted: a line is never hidden or alarming for its level's spelling.
 */
export function levelClass(level) {
  if (level === "warning") return "level-warning";
  if (["error", "critical", "alert", "emergency"].includes(level)) return "level-error";
  return "level-muted";
}

/** A level in the reader's language (a level this UI does not know, as the server names it). */
export function levelText(level) {
  const text = {
    debug: t("ui.log.level_debug"),
    info: t("ui.log.level_info"),
    notice: t("ui.log.level_notice"),
    warning: t("ui.log.level_warning"),
    error: t("ui.log.level_error"),
    critical: t("ui.log.level_critical"),
    alert: t("ui.log.level_alert"),
    emergency: t("ui.log.level_emergency"),
  };
  return text[level] || String(level ?? "");
}

/** `date`'s local time of day as HH:MM:SS (24 hours); "--:--:--" for an invalid date. */
export function clockTime(date) {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) return "--:--:--";
  return [date.getHours(), date.getMinutes(), date.getSeconds()]
    .map((part) => String(part).padStart(2, "0"))
    .join(":");
}

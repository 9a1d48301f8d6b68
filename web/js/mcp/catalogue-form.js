// The logic of "Add from catalogue": the form an entry's settings are filled in with, what is
// still missing, and the body of POST /api/catalogue/{name}/add. Kept apart from the panel so
// it is tested without a browser.

import { t } from "../i18n.js";

/** The input type of a setting: a secret is masked as it is typed. */
export function fieldType(kind) {
  return kind === "secret" ? "password" : "text";
}

/** An empty form for `entry`: its name as the server's, every setting blank. */
export function formFor(entry) {
  return {
    name: entry.name,
    values: Object.fromEntries((entry.settings || []).map((s) => [s.name, ""])),
  };
}

/** The labels of the required settings still blank. */
export function missing(entry, form) {
  return (entry.settings || [])
    .filter((s) => s.required && !String(form.values[s.name] ?? "").trim())
    .map((s) => s.label);
}

/**
 * The add request's body: the entry's settings that are filled in (trimmed; blanks are left
 * out, which the server reads as unset), and the name when it is not the entry's own.
 */
export function bodyFrom(entry, form) {
  const settings = {};
  for (const setting of entry.settings || []) {
    const value = String(form.values[setting.name] ?? "").trim();
    if (value) settings[setting.name] = value;
  }
  const body = { settings };
  const name = String(form.name ?? "").trim();
  if (name && name !== entry.name) body.name = name;
  return body;
}

/** Where an entry comes from, in the reader's language. */
export function sourceLabel(source) {
  return source === "modelscope" ? t("ui.catalogue.source_modelscope") : t("ui.catalogue.source_reference");
}

/** How an entry is launched, as one line: its command line or its URL. */
export function launchLine(entry) {
  const launch = entry.launch || {};
  return launch.url || [launch.command, ...(launch.args || [])].join(" ");
}

/** The badge of a server added from the catalogue (`presetType` from GET /api/catalogue/servers). */
export function presetBadge(presetType) {
  if (!presetType) return null;
  return presetType === "modelscope" ? t("ui.server.preset_modelscope") : t("ui.server.preset");
}

/** The caller's preset marks as a map from server id to `presetType`. */
export function presetsById(marks) {
  return Object.fromEntries((marks || []).map((m) => [m.serverId, m.presetType]));
}

/** The locale key of each `advice` a missing launcher comes with (GET /api/catalogue). */
const LAUNCHER_ADVICE = {
  install_node: "ui.catalogue.launcher_missing_node",
  install_uv: "ui.catalogue.launcher_missing_uv",
  check_path: "ui.catalogue.launcher_missing_path",
};

/**
 * What an entry whose launcher is missing on the server's machine says before anyone sets it
 * up (`entry.missingLauncher`: `{command, advice}`), or null when the launcher is there.
 */
export function launcherNotice(entry) {
  const missing = entry.missingLauncher;
  if (!missing) return null;
  const key = LAUNCHER_ADVICE[missing.advice] || "ui.catalogue.launcher_missing";
  return t(key, { command: missing.command });
}

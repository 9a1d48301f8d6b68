// The view editor's state, kept apart from the page so it can be tested: a view
// either follows an assistant or lists servers, each with the tools it offers (all, or those
// checked) and how their names are exported (the gateway's `mcp__server__tool`, the tools'
// own names, or a prefix), and how clients are shown them: every tool, or the search tools
// with the pinned ones (`toolExposure: "search"`). `formFrom` reads a saved view into the
// form, `bodyFrom` writes the API's body, `problems` says what must change before saving (the
// server checks again, including names that collide).

/** The rules the server applies (switchboard_core::view). */
export const NAME_RULE = /^[a-z0-9_-]{1,64}$/;
export const PREFIX_RULE = /^[A-Za-z0-9_-]{0,32}$/;

/** How a server's tools are named: the template, their own names, or a prefix. */
export const NAMING = ["template", "own", "prefix"];

/**
 * When a call of a client that accepts tasks runs as a task of Switchboard's (tools their
 * servers run as tasks always do): never, once a call of the tool took `slowAfterSecs`, always.
 */
export const RUN_AS_TASK = ["never", "slow", "always"];
export const MAX_SLOW_AFTER_SECS = 86400;

/** How `tools/list` shows the view's tools: all of them, or `search_tools`, `describe_tool`, `call_tool` and the pinned ones. */
export const EXPOSURE = ["all", "search"];

/** One server's row of the form. */
function row(server, chosen) {
  const prefix = chosen?.prefix;
  return {
    serverId: server.id,
    name: server.name || server.id,
    included: !!chosen,
    allTools: !chosen?.tools,
    tools: [...(chosen?.tools || [])],
    naming: prefix === undefined || prefix === null ? "template" : prefix === "" ? "own" : "prefix",
    prefix: prefix || "",
  };
}

/**
 * The form for `view` (null: a new one), with a row for each of `servers` (the person's
 * servers, `{id, name}`) and one for a server the view names that no longer exists.
 */
export function formFrom(view, servers) {
  const chosen = new Map((view?.servers || []).map((s) => [s.serverId, s]));
  const rows = (servers || []).map((s) => row(s, chosen.get(s.id)));
  for (const [id, s] of chosen) {
    if (!rows.some((r) => r.serverId === id)) rows.push(row({ id, name: id }, s));
  }
  return {
    name: view?.name || "",
    description: view?.description || "",
    mode: view?.assistantId ? "assistant" : "servers",
    assistantId: view?.assistantId || "",
    servers: rows,
    runAsTask: view?.tasks?.runAsTask || "never",
    slowAfterSecs: view?.tasks?.slowAfterSecs === undefined ? "" : String(view.tasks.slowAfterSecs),
    exposure: view?.toolExposure || "all",
    pinned: (view?.pinnedTools || []).map((p) => ({ ...p })),
  };
}

/** The pins `form` sends: in `search` mode only, and of servers (and tools) the view still offers. */
function pinsOf(form) {
  if (form.exposure !== "search") return [];
  if (form.mode === "assistant") return form.pinned;
  return form.pinned.filter((p) => {
    const r = form.servers.find((each) => each.serverId === p.serverId && each.included);
    return r && (p.tool === undefined || r.allTools || r.tools.includes(p.tool));
  });
}

/** The API's body (`ViewSpec`) for `form`. */
export function bodyFrom(form) {
  const body = { name: form.name.trim() };
  const description = form.description.trim();
  if (description) body.description = description;
  if (form.runAsTask !== "never") {
    body.tasks = { runAsTask: form.runAsTask };
    const secs = form.slowAfterSecs.trim();
    if (form.runAsTask === "slow" && secs) body.tasks.slowAfterSecs = Number(secs);
  }
  if (form.exposure === "search") body.toolExposure = "search";
  const pinned = pinsOf(form);
  if (pinned.length) body.pinnedTools = pinned;
  if (form.mode === "assistant") {
    body.assistantId = form.assistantId;
    return body;
  }
  body.servers = form.servers
    .filter((r) => r.included)
    .map((r) => {
      const server = { serverId: r.serverId };
      if (!r.allTools) server.tools = [...new Set(r.tools)].sort();
      if (r.naming === "own") server.prefix = "";
      else if (r.naming === "prefix") server.prefix = r.prefix.trim();
      return server;
    });
  return body;
}

/** What must change before `form` can be saved: `[{field, key, params?}]`, `key` a `ui.*` text. */
export function problems(form) {
  const found = [];
  if (!NAME_RULE.test(form.name.trim())) found.push({ field: "name", key: "ui.gateway.name_rule" });
  const secs = form.slowAfterSecs.trim();
  if (form.runAsTask === "slow" && secs && !(/^\d+$/.test(secs) && Number(secs) >= 1 && Number(secs) <= MAX_SLOW_AFTER_SECS)) {
    found.push({ field: "slowAfterSecs", key: "ui.gateway.slow_after_rule" });
  }
  if (form.mode === "assistant") {
    if (!form.assistantId) found.push({ field: "assistantId", key: "ui.gateway.pick_assistant" });
    return found;
  }
  const included = form.servers.filter((r) => r.included);
  if (included.length === 0) found.push({ field: "servers", key: "ui.gateway.pick_server" });
  for (const r of included) {
    if (!r.allTools && r.tools.length === 0) {
      found.push({ field: `tools-${r.serverId}`, key: "ui.gateway.pick_tool", params: { server: r.name } });
    }
    if (r.naming === "prefix" && (!r.prefix.trim() || !PREFIX_RULE.test(r.prefix.trim()))) {
      found.push({ field: `prefix-${r.serverId}`, key: "ui.gateway.prefix_rule", params: { server: r.name } });
    }
  }
  return found;
}

/** `form` with the server row `serverId` changed by `change` (an object of fields). */
export function withRow(form, serverId, change) {
  return { ...form, servers: form.servers.map((r) => (r.serverId === serverId ? { ...r, ...change } : r)) };
}

/** `form` with `tool` of the server `serverId` checked or not. */
export function withTool(form, serverId, tool, checked) {
  const r = form.servers.find((each) => each.serverId === serverId);
  if (!r) return form;
  const tools = checked ? [...new Set([...r.tools, tool])] : r.tools.filter((each) => each !== tool);
  return withRow(form, serverId, { tools });
}

/** Whether every tool of the server `serverId` is pinned. */
export function serverPinned(form, serverId) {
  return form.pinned.some((p) => p.serverId === serverId && p.tool === undefined);
}

/** `form` with every tool of the server `serverId` pinned or not (its single-tool pins kept). */
export function withServerPin(form, serverId, pinned) {
  const rest = form.pinned.filter((p) => !(p.serverId === serverId && p.tool === undefined));
  return { ...form, pinned: pinned ? [...rest, { serverId }] : rest };
}

/** What a view offers, in a few words: its assistant, or its servers' names. */
export function summary(view, servers, assistants) {
  if (view.assistantId) {
    const assistant = (assistants || []).find((a) => a.id === view.assistantId);
    return { key: "ui.gateway.follows", params: { name: assistant?.name || view.assistantId } };
  }
  const names = (view.servers || []).map((s) => (servers || []).find((each) => each.id === s.serverId)?.name || s.serverId);
  return { key: "ui.gateway.offers", params: { servers: names.join(", ") } };
}

// Resources attached to a message (MCP resources), the pure half: which servers a
// conversation may take them from, a resource template's variables and its address once
// they are filled in, and the list of chosen resources (at most MAX_ATTACHMENTS, each once).
// resource-picker.js and attachment-chips.js render them; compose.js puts them in the body.

/** The most resources one message may carry; the API refuses more. */
export const MAX_ATTACHMENTS = 8;

/**
 * The servers a conversation's assistant uses, as `[{id, name}]` in the assistant's order;
 * without an assistant, every server (the run uses them all). `servers` as GET
 * /api/mcp-servers answers; switched-off ones offer nothing and are left out, as are ids
 * the list no longer has.
 */
export function conversationServers(assistant, servers) {
  const list = (servers || []).filter((s) => s && s.enabled !== false);
  const byId = new Map(list.map((s) => [s.id, s]));
  const chosen = assistant ? (assistant.serverIds || []).map((id) => byId.get(id)).filter(Boolean) : list;
  return chosen.map((s) => ({ id: s.id, name: s.name || s.id }));
}

// A template's expressions: `{name}` (level 1) and `{+name}` (reserved: a path keeps its "/").
const EXPRESSION = /\{(\+?)([A-Za-z0-9_.%]+)\}/g;

/** The variables of an RFC 6570 template, each once, in order. */
export function templateVariables(template) {
  const names = [];
  for (const [, , name] of String(template || "").matchAll(EXPRESSION)) {
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The template with each variable replaced by its value from `values`, percent-encoded
 * (`{+name}` keeps reserved characters such as "/"); a variable without a value expands to
 * nothing, as RFC 6570 says of an undefined one.
 */
export function expandTemplate(template, values) {
  return String(template || "").replace(EXPRESSION, (whole, reserved, name) => {
    const value = values?.[name];
    if (value == null) return "";
    return reserved ? encodeURI(String(value)).replace(/%25([0-9A-Fa-f]{2})/g, "%$1") : encodeURIComponent(String(value));
  });
}

/** The variables of `template` still empty in `values`. */
export function unfilled(template, values) {
  return templateVariables(template).filter((name) => !String(values?.[name] ?? "").trim());
}

/**
 * `list` with `item` ({serverId, serverName, uri, name}) added: `{list}`, or `{list, refused}`
 * unchanged when it is there already ("duplicate") or the list is full ("full").
 */
export function withAttachment(list, item) {
  if (list.some((a) => a.serverId === item.serverId && a.uri === item.uri)) return { list, refused: "duplicate" };
  if (list.length >= MAX_ATTACHMENTS) return { list, refused: "full" };
  return { list: [...list, item] };
}

/** `list` without the resource `uri` of `serverId`. */
export function withoutAttachment(list, serverId, uri) {
  return list.filter((a) => !(a.serverId === serverId && a.uri === uri));
}

/** Whether `list` holds the resource `uri` of `serverId`. */
export const isAttached = (list, serverId, uri) => list.some((a) => a.serverId === serverId && a.uri === uri);

/** A stored message's attachments (`metadata.attachments`), only well-formed ones. */
export function storedAttachments(message) {
  const list = message?.metadata?.attachments;
  return (Array.isArray(list) ? list : []).filter((a) => a && typeof a.uri === "string");
}

// Prompts as slash commands (MCP prompts), the pure half: when the message box offers them
// (its text starts with "/"), each prompt named `/<server name>:<prompt name>`, the list
// filtered by what follows the slash, what stays in the box once one is chosen, and the
// arguments it needs. slash-list.js renders the list and the arguments' form.

/** What follows the slash, when the text starts with one (its first line); else null. */
export function slashQuery(text) {
  if (typeof text !== "string" || !text.startsWith("/")) return null;
  return text.slice(1).split("\n")[0];
}

/**
 * The prompts as commands, from `groups` = `[{server: {id, name}, prompts?, error?}]`:
 * `[{serverId, serverName, prompt, command}]`, in the servers' order.
 */
export function promptEntries(groups) {
  return (groups || []).flatMap(({ server, prompts }) =>
    (Array.isArray(prompts) ? prompts : [])
      .filter((p) => p && typeof p.name === "string")
      .map((prompt) => ({
        serverId: server.id,
        serverName: server.name,
        prompt,
        command: `/${server.name}:${prompt.name}`,
      })),
  );
}

/**
 * The entries whose command matches `query` (case-insensitive): those starting with it first,
 * then those containing it; an entry is kept too when the query is its whole command followed
 * by more text (the person typed the command and went on writing).
 */
export function filterPrompts(entries, query) {
  const q = (query || "").toLowerCase();
  if (!q.trim()) return entries;
  const name = (e) => e.command.slice(1).toLowerCase();
  const typedWhole = (e) => q.startsWith(name(e)) && /^\s/.test(q.slice(name(e).length));
  const starts = entries.filter((e) => name(e).startsWith(q) || typedWhole(e));
  const contains = entries.filter((e) => !starts.includes(e) && name(e).includes(q));
  return [...starts, ...contains];
}

/** The text left in the box once `entry` is chosen: what was written after its command, if it was. */
export function afterCommand(text, entry) {
  const command = entry.command.toLowerCase();
  const typed = (text || "").slice(0, command.length).toLowerCase();
  const next = (text || "").slice(command.length);
  if (typed !== command || (next && !/^\s/.test(next))) return "";
  return next.replace(/^[ \t]+/, "").replace(/^\n/, "");
}

/** A prompt's arguments as declared: `[{name, description, required}]`. */
export function promptArgs(prompt) {
  const args = prompt?.arguments;
  return (Array.isArray(args) ? args : [])
    .filter((a) => a && typeof a.name === "string")
    .map((a) => ({ name: a.name, description: a.description || "", required: a.required === true }));
}

/** The required arguments still empty in `values`. */
export function missingArguments(prompt, values) {
  return promptArgs(prompt)
    .filter((a) => a.required && !String(values?.[a.name] ?? "").trim())
    .map((a) => a.name);
}

/** The arguments as sent: each declared one given a value (not blank), by name. */
export function argumentValues(prompt, values) {
  const out = {};
  for (const { name } of promptArgs(prompt)) {
    const value = values?.[name];
    if (typeof value === "string" && value.trim()) out[name] = value;
  }
  return out;
}

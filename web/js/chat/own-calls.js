// The calls Switchboard answers itself rather than a server: a search of the tools the model
// was not shown yet (`search_tools`) and a read of more of a result too large to be given
// whole (`read_result`). Both are stored as tool calls on no server (`serverId` empty, the
// server's name `switchboard`), done at once and never awaiting approval. Pure functions.

/** The own server's name, as the calls carry it. */
export const OWN_SERVER = "switchboard";

/** Where a search's result keeps what it found. */
const SEARCH_META = "switchboard/toolSearch";

/**
 * "search" or "read" when `call` is one Switchboard answered, else null. A call of these names
 * that was refused before it ran (a model asking for a search it was not offered) failed as
 * any unknown tool does, and is shown as one.
 */
export function ownCallKind(call) {
  if (!call || call.serverId !== "" || (call.serverName && call.serverName !== OWN_SERVER)) return null;
  if (call.status === "error") return null;
  if (call.toolName === "search_tools") return "search";
  if (call.toolName === "read_result") return "read";
  return null;
}

/**
 * What a search asked and found: {query, tools: [{name, server, tool, description}]}. The
 * query is the result's (what was searched) or, before the result, the model's arguments.
 */
export function searchOf(call) {
  const found = call?.response?._meta?.[SEARCH_META];
  const asked = call?.arguments?.query;
  const query = typeof found?.query === "string" ? found.query : typeof asked === "string" ? asked.trim() : "";
  const tools = (Array.isArray(found?.tools) ? found.tools : [])
    .filter((tool) => tool && typeof tool.name === "string")
    .map((tool) => ({
      name: tool.name,
      server: typeof tool.server === "string" ? tool.server : "",
      tool: typeof tool.tool === "string" ? tool.tool : tool.name,
      description: typeof tool.description === "string" ? tool.description : "",
    }));
  return { query, tools };
}

/** What a read asked for: {handle, offset, query}, `offset` and `query` null when not given. */
export function readOf(call) {
  const args = call?.arguments || {};
  return {
    handle: typeof args.handle === "string" ? args.handle : "",
    offset: Number.isInteger(args.offset) ? args.offset : null,
    query: typeof args.query === "string" && args.query.trim() ? args.query.trim() : null,
  };
}

/** The text the model was answered with (the result's first text part), or "". */
export function answerText(call) {
  const parts = call?.response?.content;
  if (!Array.isArray(parts)) return "";
  const text = parts.find((part) => part?.type === "text" && typeof part.text === "string");
  return text ? text.text : "";
}

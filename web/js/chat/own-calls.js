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

/**
 * The searches a provider made with its own tool search in round `index` of `message`
 * (Anthropic's, kept verbatim in `metadata.providerBlocks`, one list per round), as calls
 * the search block shows: {id, serverId: "", serverName, toolName: "search_tools", status,
 * arguments: {query}, response} with the tools each found, named as the model calls them.
 */
export function nativeSearchesOf(message, index) {
  const blocks = message?.metadata?.providerBlocks?.[index];
  if (!Array.isArray(blocks)) return [];
  const results = new Map();
  for (const block of blocks) {
    if (block?.type === "tool_search_tool_result" && typeof block.tool_use_id === "string") {
      results.set(block.tool_use_id, block.content?.tool_references || []);
    }
  }
  return blocks
    .filter((block) => block?.type === "server_tool_use" && String(block.name || "").startsWith("tool_search_tool"))
    .map((block) => {
      const query = typeof block.input?.query === "string" ? block.input.query : "";
      const tools = (results.get(block.id) || [])
        .filter((reference) => typeof reference?.tool_name === "string")
        .map((reference) => {
          const [, server = "", tool = reference.tool_name] = reference.tool_name.split("__");
          return { name: reference.tool_name, server, tool, description: "" };
        });
      return {
        id: String(block.id),
        serverId: "",
        serverName: OWN_SERVER,
        toolName: "search_tools",
        status: "done",
        arguments: { query },
        response: { _meta: { [SEARCH_META]: { query, tools } } },
      };
    });
}

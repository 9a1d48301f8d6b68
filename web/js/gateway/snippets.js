// What to paste into an MCP client to reach a view of the gateway (issue 16): Claude Desktop
// launches `switchboard mcp --stdio --view NAME` (it uses the local store, so no token);
// Cursor and VS Code reach `<origin>/mcp/v/NAME` over HTTP with a bearer token, best one
// limited to the view. Pure: the settings page shows these and copies them.

/** The gateway's URL of the view `name` on the server at `origin`. */
export function viewUrl(origin, name) {
  return `${String(origin).replace(/\/+$/, "")}/mcp/v/${encodeURIComponent(name)}`;
}

/** Stands for the token until one is made (the reader replaces it). */
export const TOKEN_PLACEHOLDER = "<token>";

/**
 * The snippets for the view `name`: `[{client, file, text}]`, one per client, `text` the
 * whole JSON to paste. `token` is the secret of a token limited to the view, when one was
 * just made; otherwise a placeholder.
 */
export function snippets({ origin, name, token }) {
  const url = viewUrl(origin, name);
  const headers = { Authorization: `Bearer ${token || TOKEN_PLACEHOLDER}` };
  const json = (value) => JSON.stringify(value, null, 2);
  return [
    {
      client: "claude",
      file: "claude_desktop_config.json",
      text: json({
        mcpServers: { switchboard: { command: "switchboard", args: ["mcp", "--stdio", "--view", name] } },
      }),
    },
    {
      client: "cursor",
      file: ".cursor/mcp.json",
      text: json({ mcpServers: { switchboard: { url, headers } } }),
    },
    {
      client: "vscode",
      file: ".vscode/mcp.json",
      text: json({ servers: { switchboard: { type: "http", url, headers } } }),
    },
  ];
}

// What to paste into an MCP client to reach a view of the gateway. Claude Desktop launches
// a command: on the machine that runs Switchboard, `switchboard mcp --stdio` on the same data
// and as the same person (the server says how, `GET /api/mcp/connect`), so it works whatever
// directory Claude starts it in; elsewhere, mcp-remote bridging to the view's URL with a
// token. Cursor and VS Code reach `<origin>/mcp/v/NAME` over HTTP with a bearer token, best
// one limited to the view. Pure: the settings page shows these and copies them.

/** The gateway's URL of the view `name` on the server at `origin`. */
export function viewUrl(origin, name) {
  return `${String(origin).replace(/\/+$/, "")}/mcp/v/${encodeURIComponent(name)}`;
}

/** Stands for the token until one is made (the reader replaces it). */
export const TOKEN_PLACEHOLDER = "<token>";

/** The bridge Claude Desktop runs to reach a remote view, pinned. */
export const MCP_REMOTE = "mcp-remote@0.15.1";

/**
 * The snippets for the view `name`: `[{client, file, text, launch}]`, one per client, `text`
 * the whole JSON to paste, `launch` how Claude Desktop's snippet starts (`stdio`: this
 * machine's command; `remote`: mcp-remote). `token` is the secret of a token limited to the
 * view, when one was just made; otherwise a placeholder. `stdio` is `GET /api/mcp/connect`'s
 * `{command, args}`, when this machine's command may be offered.
 */
export function snippets({ origin, name, token, stdio }) {
  const url = viewUrl(origin, name);
  const bearer = `Bearer ${token || TOKEN_PLACEHOLDER}`;
  const headers = { Authorization: bearer };
  const json = (value) => JSON.stringify(value, null, 2);
  const claude = stdio
    ? { command: stdio.command, args: [...stdio.args, "--view", name] }
    : {
        // mcp-remote reads the header from the environment so the token's space survives
        // Claude Desktop's argument handling on every platform.
        command: "npx",
        args: ["-y", MCP_REMOTE, url, "--header", "Authorization:${SWITCHBOARD_AUTH}"],
        env: { SWITCHBOARD_AUTH: bearer },
      };
  return [
    {
      client: "claude",
      file: "claude_desktop_config.json",
      launch: stdio ? "stdio" : "remote",
      text: json({ mcpServers: { switchboard: claude } }),
    },
    {
      client: "cursor",
      file: ".cursor/mcp.json",
      launch: "http",
      text: json({ mcpServers: { switchboard: { url, headers } } }),
    },
    {
      client: "vscode",
      file: ".vscode/mcp.json",
      launch: "http",
      text: json({ servers: { switchboard: { type: "http", url, headers } } }),
    },
  ];
}

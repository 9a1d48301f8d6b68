// What the message box offers from a conversation's servers, loaded from the API: which
// servers they are (attachments.js decides), their resources and resource templates, and
// their prompts. A server that fails to answer is a group with its `error`; the others show.

import { get, seg } from "../api.js";
import { conversationServers } from "./attachments.js";

/**
 * The conversation's servers, `[{id, name}]`: its assistant's (from `assistants` as the chat
 * page loaded them, else GET /api/assistants/{id}), or all of them without one.
 */
export async function loadConversationServers(assistantId, assistants) {
  const known = (assistants || []).find((a) => a.id === assistantId);
  const [servers, assistant] = await Promise.all([
    get("/api/mcp-servers"),
    known || !assistantId ? known ?? null : get(`/api/assistants/${seg(assistantId)}`),
  ]);
  return conversationServers(assistant, servers);
}

/** Each server's resources and templates: `[{server, resources, templates} | {server, error}]`. */
export function loadResources(servers) {
  return Promise.all(
    servers.map((server) =>
      get(`/api/mcp-servers/${seg(server.id)}/resources`).then(
        (listed) => ({
          server,
          resources: Array.isArray(listed?.resources) ? listed.resources : [],
          templates: Array.isArray(listed?.templates) ? listed.templates : [],
        }),
        (error) => ({ server, error }),
      ),
    ),
  );
}

/** Each server's prompts: `[{server, prompts} | {server, error}]`. */
export function loadPrompts(servers) {
  return Promise.all(
    servers.map((server) =>
      get(`/api/mcp-servers/${seg(server.id)}/prompts`).then(
        (prompts) => ({ server, prompts: Array.isArray(prompts) ? prompts : [] }),
        (error) => ({ server, error }),
      ),
    ),
  );
}

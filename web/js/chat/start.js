// How the chat's first screen decides: which assistant it offers first, what starting a
// conversation asks of the API, when Enter sends, and when it says that no model provider is
// configured. Pure functions; the page (js/chat/start-panel.js) does the calls.
//
// Whether a provider exists: GET /api/me says so (`providerConfigured`, true when one is
// stored or the server has one from its environment, OPENAI_API_KEY ...), and the notice
// shows as soon as it says none. An older server, or a failed GET /api/me, leaves it unknown:
// then an empty GET /api/providers alone does not mean sending will fail, and the notice
// waits for a send to be refused as invalid (400 VALIDATION_ERROR, which is how POST
// .../messages answers "there is no model provider") while no provider is stored.

/** Where the assistant of the last conversation started in this browser is kept. */
export const LAST_ASSISTANT_KEY = "switchboard.lastAssistant";

/**
 * The assistant's id to offer first: the one used last when it still exists ("" when the
 * last conversation was started without one), else the first of the list, else none ("").
 */
export function preselect(assistants, remembered) {
  const list = assistants || [];
  if (remembered === "") return "";
  if (remembered && list.some((a) => a.id === remembered)) return remembered;
  return list[0]?.id ?? "";
}

/**
 * The body of POST /api/conversations for a conversation titled `title` (its first
 * message's, compose.js titleOf).
 */
export function newConversation(assistantId, title) {
  const body = { title };
  if (assistantId) body.assistantId = assistantId;
  return body;
}

/** Whether a key press in a message box sends it: Enter alone, not while composing (IME). */
export function sendsOnKey(event) {
  return event.key === "Enter" && !event.shiftKey && !event.isComposing;
}

/**
 * Whether to say that no model provider is configured: none is stored (`providers` as
 * GET /api/providers answered; null while unknown) and sending was refused as invalid.
 */
export function providerMissing(providers, sendError) {
  if (!Array.isArray(providers) || providers.length > 0 || !sendError) return false;
  return sendError.status === 400 && sendError.code === "VALIDATION_ERROR";
}

/**
 * Whether the first screen says that no model provider is configured: `configured` is GET
 * /api/me's `providerConfigured` (undefined while unknown), which decides when it is known;
 * otherwise a send refused for want of one (providerMissing) does.
 */
export function showsNoProvider(configured, providers, sendError) {
  if (configured === false) return true;
  if (configured === true) return false;
  return providerMissing(providers, sendError);
}

/** The first line of a message, cut to a title's length at a word. */
export function titleFrom(content) {
  const line = content.trim().split("\n")[0].trim();
  if (line.length <= 60) return line;
  const cut = line.slice(0, 60);
  return `${cut.slice(0, cut.lastIndexOf(" ") > 30 ? cut.lastIndexOf(" ") : 60)}…`;
}

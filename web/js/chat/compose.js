// What the message box sends (POST /api/conversations/{id}/messages), the pure half:
// `{content, attachments?, prompt?}` from the text written, the resources attached
// (attachments.js) and the prompt chosen as a slash command (slash.js) with its arguments.

import { MAX_ATTACHMENTS } from "./attachments.js";
import { argumentValues, missingArguments } from "./slash.js";
import { titleFrom } from "./start.js";

/**
 * The body for `draft` (the box's text), `attachments` (`[{serverId, uri, ...}]`) and `prompt`
 * (null, or `{entry, values}`: the chosen command and its arguments as typed): `{body}`, or
 * `{missing}` (the required arguments left empty), or `{empty: true}` when there is nothing
 * to send (no text and no prompt; a prompt may go without text).
 */
export function composeMessage({ draft, attachments = [], prompt = null }) {
  const content = (draft || "").trim();
  if (prompt) {
    const missing = missingArguments(prompt.entry.prompt, prompt.values);
    if (missing.length) return { missing };
  } else if (!content) {
    return { empty: true };
  }
  const body = { content };
  if (attachments.length) {
    body.attachments = attachments.slice(0, MAX_ATTACHMENTS).map(({ serverId, uri }) => ({ serverId, uri }));
  }
  if (prompt) {
    body.prompt = {
      serverId: prompt.entry.serverId,
      name: prompt.entry.prompt.name,
      arguments: argumentValues(prompt.entry.prompt, prompt.values),
    };
  }
  return { body };
}

/** Whether the box has something to send: text, or a chosen prompt. */
export function canSend(draft, prompt) {
  return Boolean(prompt) || Boolean((draft || "").trim());
}

/** The title a new conversation takes from its first message: its text, else the command used. */
export function titleOf(body, prompt) {
  return titleFrom(body.content || prompt?.entry.command || "");
}

// OAuth sign-in to a remote MCP server, the pure half: which of Sign in and Sign
// out a server's card offers for its status, and what the settings page says when the
// authorization server's redirect brings the browser back to it
// (`/settings/mcp?signedIn=ID`, or `?signInFailed=ID&reason=CODE`, from GET /oauth/callback).
//
// A server that was never used since Switchboard started is `disconnected` whether or not the
// person signed in (connections open on first use), so an OAuth server that is not connected
// offers Sign in; `needs_sign_in` says for certain that it is needed. Servers run on a node
// sign in the same way (the host keeps the tokens and sends them with each request).

import { t } from "../i18n.js";

/** The query parameters the callback's redirect adds to the settings page. */
const SIGN_IN_PARAMS = ["signedIn", "signInFailed", "reason"];

/** Whether `server` (as GET /api/mcp-servers lists it) uses OAuth sign-in. */
export function usesOAuth(server) {
  return server?.auth?.type === "oauth" && server.transport !== "stdio";
}

/**
 * What the card offers for `server` in connection state `state`: `{signIn, signOut, needed}`,
 * `needed` when the server said a sign-in is required (the button is then the primary one).
 */
export function signInActions(server, state) {
  const none = { signIn: false, signOut: false, needed: false };
  if (!usesOAuth(server)) return none;
  if (state === "needs_sign_in") return { signIn: true, signOut: false, needed: true };
  if (state === "connected") return { signIn: false, signOut: true, needed: false };
  if (state === "disconnected" || state === "error") return { ...none, signIn: true };
  return none; // connecting: wait and see
}

/** Whether the authorization URL the start route gave may be opened: http(s) only. */
export function openableUrl(url) {
  try {
    return ["https:", "http:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * The outcome of a sign-in the page was loaded with, from its query string (`location.search`):
 * `{serverId, ok: true}`, `{serverId, ok: false, reason}` (reason "" when not given), or null
 * when the page was not reached from a sign-in. A failure named wins over a success.
 */
export function signInReturn(search) {
  const query = new URLSearchParams(search || "");
  const failed = query.get("signInFailed");
  if (failed) return { serverId: failed, ok: false, reason: query.get("reason") || "" };
  const signedIn = query.get("signedIn");
  if (signedIn) return { serverId: signedIn, ok: true };
  return null;
}

/** `search` without the sign-in's parameters (other parameters kept), "" when none is left. */
export function withoutSignInQuery(search) {
  const query = new URLSearchParams(search || "");
  for (const name of SIGN_IN_PARAMS) query.delete(name);
  const rest = query.toString();
  return rest ? `?${rest}` : "";
}

/**
 * What the page says about `outcome` (from signInReturn): `{ok, text, code}`, naming the server
 * by its name in `servers` (its id until the list is loaded, or when it is not in it); `code`
 * is the failure's reason, shown beside the text.
 */
export function signInNotice(outcome, servers) {
  const name = (servers || []).find((s) => s.id === outcome.serverId)?.name || outcome.serverId;
  if (outcome.ok) return { ok: true, text: t("ui.mcp.signed_in", { name }), code: "" };
  return { ok: false, text: failureText(outcome.reason, name), code: outcome.reason };
}

/** Why a sign-in failed, from the error code the callback gave (a generic text for others). */
function failureText(reason, name) {
  switch (reason) {
    case "MCP_AUTH_FAILED":
      return t("ui.mcp.sign_in_refused", { name });
    case "MCP_UNREACHABLE":
      return t("ui.mcp.sign_in_unreachable", { name });
    case "MCP_TIMEOUT":
      return t("ui.mcp.sign_in_timeout", { name });
    case "DESTINATION_NOT_ALLOWED":
      return t("ui.mcp.sign_in_destination", { name });
    default:
      return t("ui.mcp.sign_in_failed", { name });
  }
}

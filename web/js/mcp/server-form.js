// A server's settings as the edit dialog holds them, and the API body they become. Lists
// (args) are one per line; maps (env, headers) are rows of name and value; a secret value
// the API sent masked is sent back masked, which keeps the stored one. `node` is where it
// runs: absent from the body for this machine. OAuth sign-in keeps its client secret in the
// same field as the other kinds' secret, and its scopes as one line of text. Root folders
// (MCP roots, any transport) are one per line; none is no `roots` key, which clears them: PUT
// replaces the whole stored server, so a key left out is a list emptied. Sampling (the
// server asking the assistant's model, MCP `sampling/createMessage`): answered without asking
// or not, and a cap on the tokens one request may take; the defaults (review each, 1024) are
// no `sampling` key.

import { t } from "../i18n.js";

/** The transports, named in the reader's language. */
export const transports = () => [
  ["stdio", t("ui.server.transport_stdio")],
  ["streamable_http", t("ui.server.transport_http")],
  ["sse", t("ui.server.transport_sse")],
];

/** What the API shows in place of a secret; sent back, it keeps the stored one. */
export const MASK = "********";

/** The kinds of authentication, named in the reader's language. */
export const authTypes = () => [
  ["none", t("ui.server.auth_none")],
  ["api_key", t("ui.server.api_key")],
  ["bearer", t("ui.server.bearer_token")],
  ["oauth", t("ui.server.auth_oauth")],
];

/** A sampling request's token cap when the server has no setting of its own. */
export const SAMPLING_MAX_TOKENS = 1024;
/** The highest cap the API takes. */
export const SAMPLING_MAX_TOKENS_LIMIT = 32768;

/** The dialog's state for `server` (as GET /api/mcp-servers shows it), or for a new one. */
export function formFrom(server) {
  const s = server || {};
  const auth = s.auth || { type: "none" };
  const secretEnv = new Set(s.secretEnv || []);
  return {
    name: s.name || "",
    transport: s.transport || "stdio",
    url: s.url || "",
    command: s.command || "",
    args: (s.args || []).join("\n"),
    // The stored arguments go back as they are unless the text was edited (an empty or
    // multi-line argument would not survive a round trip through lines).
    originalArgs: s.args || [],
    argsEdited: false,
    cwd: s.cwd || "",
    roots: (s.roots || []).join("\n"),
    env: Object.entries(s.env || {}).map(([name, value]) => ({ name, value, secret: secretEnv.has(name) })),
    headers: Object.entries(s.headers || {}).map(([name, value]) => ({ name, value })),
    authType: auth.type || "none",
    authHeader: auth.header || "X-API-Key",
    authSecret: auth.key || auth.token || auth.clientSecret || "",
    oauthClientId: auth.clientId || "",
    oauthScopes: (auth.scopes || []).join(" "),
    timeout: s.timeout != null ? String(s.timeout) : "",
    enabled: s.enabled !== false,
    // "" is this machine; a node's name is kept as it is, configured or not.
    node: s.node || "",
    disabledTools: s.disabledTools || [],
    autoApprovedTools: s.autoApprovedTools || [],
    samplingAuto: s.sampling?.autoApprove === true,
    samplingMaxTokens: String(s.sampling?.maxTokens ?? SAMPLING_MAX_TOKENS),
  };
}

/**
 * The `sampling` setting of the form, or null when it is the default (each request reviewed,
 * capped at SAMPLING_MAX_TOKENS). Throws when the cap is not a whole number in range.
 */
export function samplingFrom(form) {
  const text = String(form.samplingMaxTokens ?? "").trim();
  const cap = text === "" ? SAMPLING_MAX_TOKENS : Number(text);
  if (!Number.isInteger(cap) || cap < 1 || cap > SAMPLING_MAX_TOKENS_LIMIT) {
    throw new Error(t("ui.server.bad_sampling_cap", { max: SAMPLING_MAX_TOKENS_LIMIT }));
  }
  const auto = form.samplingAuto === true;
  return auto || cap !== SAMPLING_MAX_TOKENS ? { autoApprove: auto, maxTokens: cap } : null;
}

/** The body of POST/PUT /api/mcp-servers, or throws an Error naming the field at fault. */
export function bodyFrom(form) {
  const body = {
    name: form.name.trim(),
    transport: form.transport,
    enabled: form.enabled,
    disabledTools: form.disabledTools,
    autoApprovedTools: form.autoApprovedTools,
  };
  if (!body.name) throw new Error(t("ui.server.needs_name"));
  if (form.node) body.node = form.node;
  if (form.transport === "stdio") {
    if (!form.command.trim()) throw new Error(t("ui.server.needs_command"));
    body.command = form.command.trim();
    body.args = form.argsEdited
      ? form.args.split("\n").map((a) => a.trim()).filter(Boolean)
      : form.originalArgs;
    if (form.cwd.trim()) body.cwd = form.cwd.trim();
    const env = rows(form.env);
    if (Object.keys(env).length) body.env = env;
    const secret = form.env.filter((r) => r.secret && r.name.trim()).map((r) => r.name.trim());
    if (secret.length) body.secretEnv = secret;
  } else {
    if (!form.url.trim()) throw new Error(t("ui.server.needs_url"));
    body.url = form.url.trim();
    const headers = rows(form.headers);
    if (Object.keys(headers).length) body.headers = headers;
    if (form.authType === "api_key") body.auth = { type: "api_key", header: form.authHeader.trim(), key: form.authSecret };
    else if (form.authType === "bearer") body.auth = { type: "bearer", token: form.authSecret };
    else if (form.authType === "oauth") body.auth = oauthFrom(form);
    else body.auth = { type: "none" };
  }
  const roots = rootsFrom(form.roots || "");
  if (roots.length) body.roots = roots;
  const sampling = samplingFrom(form);
  if (sampling) body.sampling = sampling;
  if (form.timeout.trim()) {
    const seconds = Number(form.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(t("ui.server.bad_timeout"));
    body.timeout = seconds;
  }
  return body;
}

/** Roots a server may be given; the API refuses more. */
export const MAX_ROOTS = 64;

/**
 * The root folders written one per line, blank lines dropped; each must be an absolute path or
 * a `file:` URI, as the API checks (it names `roots[i]`; the message here quotes the line).
 */
export function rootsFrom(text) {
  const roots = text.split("\n").map((r) => r.trim()).filter(Boolean);
  const bad = roots.find((r) => !r.startsWith("/") && !r.startsWith("file:"));
  if (bad !== undefined) throw new Error(t("ui.server.bad_root", { root: bad }));
  if (roots.length > MAX_ROOTS) throw new Error(t("ui.server.too_many_roots", { max: MAX_ROOTS }));
  return roots;
}

/**
 * The `auth` of an OAuth server: the client ID and secret when given (a secret needs its
 * client ID), and the scopes, written separated by spaces or commas, when any.
 */
function oauthFrom(form) {
  const auth = { type: "oauth" };
  const clientId = (form.oauthClientId || "").trim();
  const secret = form.authSecret || "";
  if (clientId) auth.clientId = clientId;
  if (secret.trim()) {
    if (!clientId) throw new Error(t("ui.server.oauth_secret_needs_client_id"));
    auth.clientSecret = secret;
  }
  const scopes = splitScopes(form.oauthScopes || "");
  if (scopes.length) auth.scopes = scopes;
  return auth;
}

/** Scopes written as text, separated by spaces, commas or new lines. */
export function splitScopes(text) {
  return text.split(/[\s,]+/).filter(Boolean);
}

function rows(list) {
  const out = {};
  for (const { name, value } of list) if (name.trim()) out[name.trim()] = value;
  return out;
}

/**
 * The form after a change that would make a masked secret mean something else: switching
 * the auth type, changing the OAuth client ID the secret belongs to, renaming a masked header
 * or variable, or making a masked value non-secret.
 * The mask is cleared then, so the person types the value again instead of storing the mask.
 */
export function withoutStaleMasks(before, after) {
  const next = { ...after };
  const authMoved = before.authType !== after.authType || before.oauthClientId !== after.oauthClientId;
  if (authMoved && after.authSecret === MASK) next.authSecret = "";
  const rows = (old, now) =>
    now.map((row, i) => {
      const was = old[i];
      const moved = was && (was.name !== row.name || (was.secret && !row.secret));
      return moved && row.value === MASK ? { ...row, value: "" } : row;
    });
  next.env = rows(before.env, after.env);
  next.headers = rows(before.headers, after.headers);
  return next;
}

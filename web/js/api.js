// The HTTP API as the UI calls it: the bearer token, JSON bodies, and errors in the API's
// one shape ({code, message, hint}) raised as ApiError so every page can show them the same
// way. Requests say the UI's language (Accept-Language), so messages and hints come in it.

import { locale, t } from "./i18n.js";

const TOKEN_KEY = "switchboard.token";

export class ApiError extends Error {
  constructor(status, code, message, hint) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint || "";
  }
}

/** Listeners told when the server answers 401, so the token prompt can show. */
const unauthorizedListeners = new Set();

export function onUnauthorized(listener) {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function token() {
  return localStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(value) {
  if (value) localStorage.setItem(TOKEN_KEY, value);
  else localStorage.removeItem(TOKEN_KEY);
}

export function authHeaders() {
  const secret = token();
  return secret ? { Authorization: `Bearer ${secret}` } : {};
}

/**
 * Calls the API. `body` is sent as JSON. Answers the parsed JSON (or null for 204), or
 * throws ApiError with the server's code and message.
 */
export async function api(method, path, body) {
  return (await call(method, path, body)).data;
}

/** A GET of a list that comes in pages: `{items, next}`, `next` the cursor of the page after
 * (`X-Next-Cursor`), null on the last page. */
export async function getPage(path) {
  const { data, response } = await call("GET", path);
  return { items: data || [], next: response.headers.get("X-Next-Cursor") };
}

async function call(method, path, body) {
  const headers = { ...authHeaders(), Accept: "application/json", "Accept-Language": locale() };
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, "NETWORK_ERROR", t("ui.error.network", { detail: e.message }));
  }
  if (response.status === 204) return { data: null, response };
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    if (response.status === 401) unauthorizedListeners.forEach((l) => l());
    const code = data?.code || `HTTP_${response.status}`;
    const message = data?.message || text || response.statusText;
    throw new ApiError(response.status, code, message, data?.hint);
  }
  return { data, response };
}

export const get = (path) => api("GET", path);
export const post = (path, body) => api("POST", path, body ?? {});
export const put = (path, body) => api("PUT", path, body);
export const patch = (path, body) => api("PATCH", path, body);
export const del = (path) => api("DELETE", path);

/** A path segment, escaped. */
export const seg = (value) => encodeURIComponent(value);

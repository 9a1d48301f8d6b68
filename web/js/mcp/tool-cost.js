// What tool definitions cost each model request (GET /api/tools/cost), as the settings show
// it: per server on its card, and per assistant in its editor. Estimated tokens, so said as
// "about"; numbers grouped the reader's way.

import { locale } from "../i18n.js";

/** `n` tokens as the reader writes numbers ("12,345", "12,345"), "?" when not a number. */
export function tokensText(n, tag = locale()) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "?";
  return new Intl.NumberFormat(tag).format(Math.round(n));
}

/** One server's part of `cost`: {tools, tokens}, or null when its tools were not counted. */
export function serverCost(cost, serverId) {
  const found = Array.isArray(cost?.servers) ? cost.servers.find((s) => s.serverId === serverId) : null;
  if (!found || typeof found.tokens !== "number") return null;
  return { tools: found.tools ?? 0, tokens: found.tokens };
}

/** How much of the whole a deferred request saves, as a whole percentage (0 when nothing). */
export function savedPercent(cost) {
  if (!cost || !(cost.tokens > 0) || typeof cost.deferredTokens !== "number") return 0;
  return Math.max(0, Math.round((1 - cost.deferredTokens / cost.tokens) * 100));
}

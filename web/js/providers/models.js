// What the providers page and the chat header make of a provider's models: a short summary
// for a Test's outcome, the provider a found local server becomes when the person adds it,
// the options of a chat's model picker, and a chat's settings as PUT
// /api/conversations/{id}/settings takes them. Pure, so the unit tests run them in Node.

/** The first `shown` models, then how many more: "a, b, c, +4". */
export function modelSummary(models, shown = 3) {
  const listed = (models || []).slice(0, shown).join(", ");
  const more = (models || []).length - shown;
  return more > 0 ? `${listed}, +${more}` : listed;
}

/**
 * The body of POST /api/providers for a local server found by GET /api/local-providers:
 * named after the server (`fallbackName` for a port that has none), another number when the
 * person already has a provider of that name, its first model as the default.
 */
export function providerFromFound(found, takenNames, fallbackName) {
  const base = found.name || fallbackName;
  const taken = new Set(takenNames || []);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base} ${n}`;
  return { name, kind: "openai", baseUrl: found.baseUrl, defaultModel: found.models[0] };
}

/** The models a picker offers: the provider's, and the chat's own choice even when the
 * provider no longer lists it (so the picker shows what the chat uses). */
export function modelOptions(models, chosen) {
  const options = [...(models || [])];
  if (chosen && !options.includes(chosen)) options.unshift(chosen);
  return options;
}

/** A chat's own settings as stored on the conversation (absent fields are null). */
export function settingsOf(conversation) {
  return {
    model: conversation?.model ?? null,
    systemPrompt: conversation?.systemPrompt ?? null,
    temperature: conversation?.temperature ?? null,
  };
}

/** A temperature as typed: `{value}` (null for empty), or `{error: true}` when it is not a
 * number from 0 to 2. */
export function temperatureFrom(text) {
  const trimmed = String(text ?? "").trim();
  if (trimmed === "") return { value: null };
  const value = Number(trimmed);
  if (!Number.isFinite(value) || value < 0 || value > 2) return { error: true };
  return { value };
}

/** The origin (scheme, host, port) of `url`, as the server compares them; `url` itself
 * when it does not parse. */
export function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

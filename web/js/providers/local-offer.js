// The first start's offer: with no provider yet, the model servers running on this machine
// (GET /api/local-providers: Ollama, LM Studio, llama.cpp, vLLM on their usual ports) are
// shown, and one click adds one. Nothing is added before that click. A person who may not
// reach this machine (a member behind the destination guard) is shown nothing.

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { get, post } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { modelSummary, providerFromFound } from "./models.js";

function serverName(found) {
  return found.name || t("ui.providers.local_port", { port: found.port });
}

function foundText(found) {
  const params = { name: serverName(found), url: found.baseUrl, count: found.models.length, models: modelSummary(found.models) };
  if (found.models.length === 0) return t("ui.providers.found_none_models", params);
  return t(found.models.length === 1 ? "ui.providers.found_one" : "ui.providers.found_many", params);
}

/** `providers`: the person's (for a free name); `onAdded()` once one was added. */
export function LocalOffer({ providers, onAdded }) {
  // null: not looked yet or looking; [] nothing found; "refused": not for this person.
  const [found, setFound] = useState(null);
  const [looking, setLooking] = useState(false);
  const [error, setError] = useState(null);
  const look = async () => {
    setLooking(true);
    setError(null);
    try {
      setFound(await get("/api/local-providers"));
    } catch (e) {
      setFound(e.status === 403 ? "refused" : []);
      if (e.status !== 403) setError(e);
    } finally {
      setLooking(false);
    }
  };
  useEffect(() => {
    look();
  }, []);
  const add = async (server) => {
    setError(null);
    try {
      await post("/api/providers", providerFromFound(server, (providers || []).map((p) => p.name), serverName(server)));
      onAdded();
    } catch (e) {
      setError(e);
    }
  };
  if (found === "refused") return null;
  return html`<section class="card local-offer" aria-label=${t("ui.providers.look_local")} aria-busy=${looking}>
    ${looking ? html`<p class="muted" role="status">${t("ui.providers.looking")}</p>` : null}
    ${!looking && Array.isArray(found) && found.length === 0
      ? html`<p class="muted" role="status" data-role="none-found">${t("ui.providers.none_found")}</p>`
      : null}
    ${(Array.isArray(found) ? found : []).map((server) => html`<div class="found" key=${server.port} data-port=${server.port}>
      <p role="status">${foundText(server)}</p>
      ${server.models.length
        ? html`<button type="button" class="primary" onClick=${() => add(server)}>${t("ui.providers.add_local", { name: serverName(server) })}</button>`
        : null}
    </div>`)}
    <div class="actions">
      <button type="button" class="quiet" onClick=${look} disabled=${looking}>${t("ui.providers.look_local")}</button>
    </div>
    <${ErrorNote} error=${error} />
  </section>`;
}

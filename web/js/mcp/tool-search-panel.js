// Search the tools (GET /api/tools/search) as a model with deferred tools does: words of a
// request, English or Chinese, or a tool's name; the best tools first, with their servers and
// what they do. Shows what a model's search would find before an assistant relies on it.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { get } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";

/** Tools the box shows at most. */
const LIMIT = 10;

export function ToolSearchPanel() {
  const [query, setQuery] = useState("");
  const [results, setResults] = useState(null); // {query, results} of the last search
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const search = async (event) => {
    event.preventDefault();
    const q = query.trim();
    if (!q) return;
    setBusy(true);
    setError(null);
    try {
      const found = await get(`/api/tools/search?q=${encodeURIComponent(q)}&limit=${LIMIT}`);
      setResults({ query: q, results: found.results || [] });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="card tool-search" aria-labelledby="tool-search-title">
    <h2 id="tool-search-title">${t("ui.tool_search.title")}</h2>
    <p class="muted small">${t("ui.tool_search.hint")}</p>
    <form class="tool-search-form" role="search" onSubmit=${search}>
      <label for="tool-search-q" class="visually-hidden">${t("ui.tool_search.label")}</label>
      <input id="tool-search-q" type="search" value=${query} placeholder=${t("ui.tool_search.placeholder")}
        onInput=${(e) => setQuery(e.currentTarget.value)} />
      <button type="submit" disabled=${busy || !query.trim()}>${t("ui.tool_search.search")}</button>
    </form>
    <${ErrorNote} error=${error} />
    ${results
      ? results.results.length === 0
        ? html`<p class="muted" role="status">${t("ui.tool_search.none", { query: results.query })}</p>`
        : html`<ol class="found-tools" data-role="tool-search-results" aria-label=${t("ui.tool_search.results", { query: results.query })}>
            ${results.results.map((tool) => html`<li key=${tool.name} data-tool-name=${tool.name}>
              <code>${tool.tool}</code> <span class="server">${tool.server}</span>
              ${tool.description ? html`<span class="description muted small">${tool.description}</span>` : null}
            </li>`)}
          </ol>`
      : null}
  </section>`;
}

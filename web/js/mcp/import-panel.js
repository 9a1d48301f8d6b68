// Import the servers of a Claude Desktop / Cursor `mcpServers` file (or VS Code's mcp.json):
// the server reads the file, adds what it can and says why it skipped the rest.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { post } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";

export function ImportPanel({ onImported }) {
  const [report, setReport] = useState(null);
  const [error, setError] = useState(null);
  const pick = async (event) => {
    const file = event.currentTarget.files?.[0];
    event.currentTarget.value = "";
    if (!file) return;
    setError(null);
    setReport(null);
    try {
      const text = await file.text();
      setReport(await post("/api/import/mcp-servers", { text }));
      onImported();
    } catch (e) {
      setError(e);
    }
  };
  return html`<section class="card import" aria-labelledby="import-title">
    <h2 id="import-title">${t("ui.import.title")}</h2>
    <p class="muted">${t("ui.import.formats")}</p>
    <label for="import-file">${t("ui.import.file")}</label>
    <input id="import-file" type="file" accept=".json,application/json" onChange=${pick} />
    <${ErrorNote} error=${error} />
    ${report
      ? html`<div role="status" class="import-report">
          <p>${t("ui.import.imported", { count: report.imported.length, format: report.format })}</p>
          ${report.skipped.length
            ? html`<ul>${report.skipped.map((s) => html`<li key=${s.name}><strong>${s.name}</strong> ${t("ui.import.skipped")} <code>${s.code}</code> ${s.message}</li>`)}</ul>`
            : null}
        </div>`
      : null}
  </section>`;
}

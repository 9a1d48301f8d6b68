// Import the servers of a Claude Desktop / Cursor `mcpServers` file (or VS Code's mcp.json):
// the server reads the file, adds what it can and says why it skipped the rest.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { post } from "../api.js";
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
    <h2 id="import-title">Import</h2>
    <p class="muted">A <code>claude_desktop_config.json</code>, Cursor <code>mcp.json</code> or VS Code <code>mcp.json</code>.</p>
    <label for="import-file">Servers file</label>
    <input id="import-file" type="file" accept=".json,application/json" onChange=${pick} />
    <${ErrorNote} error=${error} />
    ${report
      ? html`<div role="status" class="import-report">
          <p>Imported ${report.imported.length} from ${report.format}.</p>
          ${report.skipped.length
            ? html`<ul>${report.skipped.map((s) => html`<li key=${s.name}><strong>${s.name}</strong> skipped: <code>${s.code}</code> ${s.message}</li>`)}</ul>`
            : null}
        </div>`
      : null}
  </section>`;
}

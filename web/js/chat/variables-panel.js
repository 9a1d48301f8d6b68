// The conversation's variables (seed 000's ChatRequest.context): what tool nodes fill their
// mapped parameters from in this conversation. Shown and set here, stored whole with
// PUT /api/conversations/{id}/variables. Values are typed as JSON or plain text (variables.js).

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { put, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { RowsEditor } from "../mcp/rows-editor.js";
import { rowsFrom, variablesFrom } from "./variables.js";

/** `variables`: the conversation's, as loaded; `onSaved(variables)` with what was stored. */
export function VariablesPanel({ conversationId, variables, onSaved }) {
  const [rows, setRows] = useState(() => rowsFrom(variables));
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const save = async (event) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    const { variables: next, errors } = variablesFrom(rows);
    if (errors.length) return setError({ code: "VALIDATION_ERROR", message: t(errors[0].key, { n: errors[0].index + 1 }) });
    try {
      const answer = await put(`/api/conversations/${seg(conversationId)}/variables`, { variables: next });
      const stored = answer?.variables ?? next;
      setRows(rowsFrom(stored));
      setSaved(true);
      onSaved(stored);
    } catch (e) {
      setError(e);
    }
  };
  return html`<form class="variables-panel" id="conversation-variables" onSubmit=${save} aria-label=${t("ui.chat.variables")}>
    <p class="muted small">${t("ui.chat.variables_help")}</p>
    <${RowsEditor} id="conversation-vars" legend=${t("ui.chat.variables")} rows=${rows}
      onChange=${(next) => { setSaved(false); setRows(next); }} />
    <div class="actions">
      <button type="submit" class="primary">${t("ui.chat.variables_save")}</button>
      ${saved ? html`<span class="muted small" role="status">${t("ui.chat.variables_saved")}</span>` : null}
    </div>
    <${ErrorNote} error=${error} />
  </form>`;
}

// Try a tool: a form generated from its input schema, the call, and its result.

import { html } from "../html.js";
import { t } from "../i18n.js";
import { useMemo, useState } from "../../vendor/hooks.js";
import { post } from "../api.js";
import { SchemaForm, collect, fieldFor, initialValue } from "../schema-form.js";
import { ToolResult } from "../chat/tool-result.js";
import { ErrorNote } from "../ui/error-note.js";

export function TryTool({ server, tool }) {
  const schema = tool.inputSchema || { type: "object" };
  const field = useMemo(() => fieldFor(schema), [tool.name]);
  const [state, setState] = useState(() => initialValue(field));
  const [problems, setProblems] = useState([]);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [calling, setCalling] = useState(false);

  const call = async (event) => {
    event.preventDefault();
    setError(null);
    setResult(null);
    const { value, errors } = collect(field, state);
    setProblems(errors);
    if (errors.length) return;
    setCalling(true);
    try {
      setResult(await post("/api/mcp/tools/call", {
        serverId: server.id,
        toolName: tool.name,
        arguments: value ?? {},
      }));
    } catch (e) {
      setError(e);
    } finally {
      setCalling(false);
    }
  };

  return html`<form class="try-tool" novalidate data-tool=${tool.name} onSubmit=${call} aria-label=${t("ui.try.label", { name: tool.name })}>
    <h3>${t("ui.try.title")} <code>${tool.name}</code></h3>
    <${SchemaForm} schema=${schema} value=${state} onChange=${setState} errors=${problems}
      idPrefix=${`try-${idSafe(server.id)}-${idSafe(tool.name)}`} />
    ${problems.length
      ? html`<ul class="error" role="alert">${problems.map((p) => html`<li>${p.path ? html`<code>${p.path}</code>: ` : null}${p.message}</li>`)}</ul>`
      : null}
    <div class="actions"><button type="submit" class="primary" disabled=${calling}>${calling ? t("ui.try.calling") : t("ui.try.call")}</button></div>
    <${ErrorNote} error=${error} />
    ${result
      ? html`<div class=${`result ${result.isError ? "is-error" : ""}`} data-role="result" role="status">
          <div class="result-label">${result.isError ? t("ui.try.tool_error") : t("ui.try.result")}</div>
          <${ToolResult} result=${result} />
        </div>`
      : null}
  </form>`;
}

/** Ids may not hold spaces; tool and server names might. */
function idSafe(text) {
  return String(text).replace(/[^A-Za-z0-9_-]/g, "_");
}

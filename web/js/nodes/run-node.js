// "Run" a saved node as a workflow engine would (POST /api/tool-nodes/{id}/execute): sample
// variables as JSON, the arguments the model would give in a form of the schema it would
// see (mapped parameters hidden), and then seed 002's ToolCallResult: the arguments as they
// were resolved and sent, every attempt with its time, and the tool's result.

import { html } from "../html.js";
import { useMemo, useState } from "../../vendor/hooks.js";
import { post, seg } from "../api.js";
import { t } from "../i18n.js";
import { SchemaForm, collect, fieldFor, initialValue } from "../schema-form.js";
import { ToolResult } from "../chat/tool-result.js";
import { ErrorNote } from "../ui/error-note.js";
import { offeredSchema } from "./mapping.js";

/** The sample variables a run starts with: each declared one, at its default ("" without one). */
export function sampleVariables(decls) {
  return Object.fromEntries(decls.filter((d) => d?.name).map((d) => [d.name, d.default ?? ""]));
}

export function RunNode({ node, infos, variables }) {
  const tools = (node.selectedTools || []).filter((x) => x.enabled !== false);
  const [tool, setTool] = useState(tools[0]?.name ?? "");
  const [varsText, setVarsText] = useState(() => JSON.stringify(sampleVariables(variables), null, 2));
  const selected = tools.find((x) => x.name === tool);
  const schema = useMemo(
    () => offeredSchema(infos.find((i) => i.name === tool)?.inputSchema, selected?.parameterMappings),
    [tool, infos, node],
  );
  const field = useMemo(() => fieldFor(schema), [schema]);
  const [args, setArgs] = useState(() => initialValue(field));
  const [problems, setProblems] = useState([]);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [running, setRunning] = useState(false);
  const id = `run-${node.id}`;

  const run = async (event) => {
    event.preventDefault();
    setError(null);
    setResult(null);
    let vars;
    try {
      vars = JSON.parse(varsText || "{}");
    } catch (e) {
      return setError({ code: "VALIDATION_ERROR", message: t("ui.nodes.run_bad_variables", { detail: e.message }) });
    }
    if (vars === null || typeof vars !== "object" || Array.isArray(vars)) {
      return setError({ code: "VALIDATION_ERROR", message: t("ui.nodes.run_variables_object") });
    }
    const { value, errors } = collect(field, args);
    setProblems(errors);
    if (errors.length) return;
    setRunning(true);
    try {
      setResult(await post(`/api/tool-nodes/${seg(node.id)}/execute`, { tool, variables: vars, arguments: value ?? {} }));
    } catch (e) {
      setError(e);
    } finally {
      setRunning(false);
    }
  };

  return html`<form class="run-node" onSubmit=${run} novalidate aria-label=${t("ui.nodes.run_label", { name: node.name })}>
    <h3>${t("ui.nodes.run_title")}</h3>
    ${tools.length > 1
      ? html`<div class="field"><label for=${`${id}-tool`}>${t("ui.nodes.run_tool")}</label>
          <select id=${`${id}-tool`} value=${tool} onChange=${(e) => { setTool(e.currentTarget.value); setArgs(undefined); }}>
            ${tools.map((x) => html`<option value=${x.name} selected=${x.name === tool}>${x.name}</option>`)}
          </select></div>`
      : null}
    ${tools.length === 0 ? html`<p class="muted">${t("ui.nodes.run_no_tools")}</p>` : null}
    <div class="field">
      <label for=${`${id}-vars`}>${t("ui.nodes.run_variables")}</label>
      <textarea id=${`${id}-vars`} rows="3" spellcheck="false" value=${varsText} onInput=${(e) => setVarsText(e.currentTarget.value)}></textarea>
    </div>
    <fieldset>
      <legend>${t("ui.nodes.run_arguments")}</legend>
      <${SchemaForm} key=${tool} schema=${schema} value=${args ?? initialValue(field)} onChange=${setArgs} errors=${problems} idPrefix=${`${id}-args`} />
    </fieldset>
    <div class="actions"><button type="submit" class="primary" disabled=${running || !tool}>${running ? t("ui.try.calling") : t("ui.nodes.run")}</button></div>
    <${ErrorNote} error=${error} />
    ${result ? html`<${RunResult} result=${result} />` : null}
  </form>`;
}

function RunResult({ result }) {
  const attempts = Array.isArray(result.attempts) ? result.attempts : [];
  return html`<div class=${`result ${result.isError || result.success === false ? "is-error" : ""}`} data-role="run-result" role="status">
    <div class="result-label">${t("ui.nodes.resolved_arguments")}</div>
    <pre class="arguments" data-role="resolved-arguments">${JSON.stringify(result.arguments ?? {}, null, 2)}</pre>
    <div class="result-label">${t("ui.nodes.attempts", { count: attempts.length, ms: result.durationMs ?? 0 })}</div>
    <ol class="attempts">
      ${attempts.map((a, i) => html`<li key=${i}>${t("ui.nodes.attempt", { n: a.attempt ?? i + 1, ms: a.durationMs ?? 0 })}
        ${a.error ? html` <code>${typeof a.error === "object" ? a.error.code : a.error}</code>` : null}</li>`)}
    </ol>
    ${result.error ? html`<p class="result-error"><code>${result.error.code}</code> ${result.error.message}</p>` : null}
    <div class="result-label">${result.isError ? t("ui.try.tool_error") : t("ui.try.result")}</div>
    <${ToolResult} result=${{ content: result.content ?? [], structuredContent: result.structuredContent }} />
  </div>`;
}

// One parameter of a ticked tool: who fills it. "Model decides" leaves it to the model (it
// stays in the schema the model sees); a literal is typed in the schema form of that one
// parameter; a variable is picked from the built-ins and the declared ones; a template is
// free text with {{...}} inside. The logic is mapping.js; this only draws it.

import { html } from "../html.js";
import { t } from "../i18n.js";
import { SchemaForm } from "../schema-form.js";
import { literalSchema } from "./mapping.js";

const modes = () => [
  ["model", t("ui.nodes.mode_model")],
  ["literal", t("ui.nodes.mode_literal")],
  ["variable", t("ui.nodes.mode_variable")],
  ["template", t("ui.nodes.mode_template")],
];

const sources = () => ({
  builtin: t("ui.nodes.source_builtin"),
  node: t("ui.nodes.source_node"),
  assistant: t("ui.nodes.source_assistant"),
});

/**
 * `choice`: see mapping.js; `options`: variableOptions(...); `onMode(mode)`, `onChoice(choice)`.
 * `error`: the first problem of this mapping, already in words.
 */
export function MappingChooser({ id, param, schema, inputSchema, required, choice, options, onMode, onChoice, error }) {
  const mode = choice?.mode ?? "model";
  return html`<div class="mapping" data-param=${param} data-mode=${mode}>
    <div class="mapping-head">
      <code>${param}</code>${required ? html`<span aria-hidden="true"> *</span>` : null}
      <select id=${`${id}-mode`} aria-label=${t("ui.nodes.fill_x", { name: param })} value=${mode}
        onChange=${(e) => onMode(e.currentTarget.value)}>
        ${modes().map(([v, text]) => html`<option value=${v} selected=${v === mode}>${text}</option>`)}
      </select>
    </div>
    ${schema?.description && mode !== "literal" ? html`<p class="muted small">${schema.description}</p>` : null}
    ${mode === "literal"
      ? html`<${SchemaForm} schema=${literalSchema(inputSchema, param)} value=${choice.state} idPrefix=${`${id}-literal`}
          onChange=${(state) => onChoice({ ...choice, state })} />`
      : null}
    ${mode === "variable"
      ? html`<div class="field">
          <label for=${`${id}-variable`}>${t("ui.nodes.variable")}</label>
          <select id=${`${id}-variable`} value=${choice.variable} onChange=${(e) => onChoice({ ...choice, variable: e.currentTarget.value })}>
            <option value="">${t("ui.form.choose")}</option>
            ${options.map((o) => html`<option value=${o.name} selected=${o.name === choice.variable}>${o.name} (${sources()[o.source]})</option>`)}
          </select>
        </div>`
      : null}
    ${mode === "template"
      ? html`<div class="field">
          <label for=${`${id}-template`}>${t("ui.nodes.template")}</label>
          <input id=${`${id}-template`} value=${choice.text} placeholder=${t("ui.nodes.template_placeholder")}
            aria-describedby=${`${id}-template-hint`} onInput=${(e) => onChoice({ ...choice, text: e.currentTarget.value })} />
          <small id=${`${id}-template-hint`}>${t("ui.nodes.template_hint", { names: options.map((o) => o.name).join(", ") })}</small>
        </div>`
      : null}
    ${error ? html`<p class="error small" role="alert">${error}</p>` : null}
  </div>`;
}

/**
 * The tool-node editor's state and the node it stands for: the pure half of the Tools
 * section (seed 002's MCPToolConfig). Every change the person makes is one function here
 * from state to state, and `nodeFrom` builds the ToolNode JSON the API takes (the shared
 * contract: name, serverId, selectedTools[{name, enabled, parameterMappings}], retryOnError,
 * maxRetries, timeoutMs, variables, assistantId). No DOM, no API: it runs in Node, where
 * web/tests/unit/node-state.test.mjs checks seed 002's property 1 on it with fast-check.
 *
 * State: `{id, assistantId, name, serverId, tools: [{name, enabled, choices: {param: choice}}],
 * retryOnError, maxRetries (text), timeoutMs (text, "" = the server's default), variables
 * (rows, see variables.js)}`. `tools` holds the ticked tools, in the order they were ticked;
 * a choice is described in mapping.js. `infos` everywhere is the server's tool list
 * (`[{name, description, inputSchema}]`), which gives each parameter its schema.
 */

import { choiceFor, choiceFrom, mappingFrom } from "./mapping.js";
import { declsFrom, rowFrom } from "./variables.js";

/** Seed 002's defaults: no retry, 3 retries once it is on; the server caps retries at 10. */
export const DEFAULT_MAX_RETRIES = 3;
export const MAX_RETRIES = 10;

/** `object[key] = value` as an own property, also for a parameter called "__proto__". */
const define = (object, key, value) =>
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });

const schemaOf = (infos, tool) => (infos || []).find((t) => t.name === tool)?.inputSchema ?? { type: "object" };

/** A new node on `serverId` (of `assistantId`, when it belongs to an assistant). */
export function newNode({ serverId = "", assistantId = null, name = "" } = {}) {
  return {
    id: null, assistantId, name, serverId, tools: [],
    retryOnError: false, maxRetries: String(DEFAULT_MAX_RETRIES), timeoutMs: "", variables: [],
  };
}

/** The state that edits a stored node (the API's StoredToolNode). */
export function editorFrom(stored, infos) {
  return {
    id: stored.id ?? null,
    assistantId: stored.assistantId ?? null,
    name: stored.name ?? "",
    serverId: stored.serverId ?? stored.mcpServer?.id ?? "",
    tools: (stored.selectedTools || []).map((t) => ({
      name: t.name,
      enabled: t.enabled !== false,
      choices: Object.fromEntries(
        Object.entries(t.parameterMappings || {}).map(([p, m]) => [p, choiceFrom(m, schemaOf(infos, t.name), p)]),
      ),
    })),
    retryOnError: stored.retryOnError === true,
    maxRetries: String(stored.maxRetries ?? DEFAULT_MAX_RETRIES),
    timeoutMs: stored.timeoutMs == null ? "" : String(stored.timeoutMs),
    variables: (stored.variables || []).map(rowFrom),
  };
}

/** Name, retry policy or timeout changed (`patch` of those fields). */
export const setFields = (state, patch) => ({ ...state, ...patch });

/** Another server: its tools are not this one's, so the selection starts over. */
export const setServer = (state, serverId) => (serverId === state.serverId ? state : { ...state, serverId, tools: [] });

/** Ticks (`on`) or unticks tool `name`. */
export function selectTool(state, name, on) {
  const has = state.tools.some((t) => t.name === name);
  if (on && !has) return { ...state, tools: [...state.tools, { name, enabled: true, choices: {} }] };
  if (!on && has) return { ...state, tools: state.tools.filter((t) => t.name !== name) };
  return state;
}

const editTool = (state, name, edit) => ({ ...state, tools: state.tools.map((t) => (t.name === name ? edit(t) : t)) });

/** Seed 002's `enabled` of a ticked tool: kept in the node with its mappings, but not offered. */
export const setToolEnabled = (state, name, enabled) => editTool(state, name, (t) => ({ ...t, enabled }));

/** The choice for `param` of `tool`, replaced. "model" removes the mapping. */
export function setChoice(state, tool, param, choice) {
  return editTool(state, tool, (t) => {
    const choices = { ...t.choices };
    if (!choice || choice.mode === "model") delete choices[param];
    else define(choices, param, choice);
    return { ...t, choices };
  });
}

/** Switches `param` of `tool` to `mode` ("model", "literal", "variable", "template"). */
export function setMode(state, tool, param, mode, infos) {
  const selected = state.tools.find((t) => t.name === tool);
  if (!selected) return state;
  const previous = selected.choices[param] ?? { mode: "model" };
  if (previous.mode === mode) return state;
  return setChoice(state, tool, param, choiceFor(mode, schemaOf(infos, tool), param, previous));
}

/** The node's own variable rows, replaced. */
export const setVariables = (state, variables) => ({ ...state, variables });

/**
 * The ToolNode JSON of `state`: `{node, errors}`. Errors are `{path, key, params}`: `path`
 * names the field as the server does (`selectedTools[0].parameterMappings.owner`), `key` a
 * locale key and `params` what fills it. The node means something only without errors.
 */
export function nodeFrom(state, infos) {
  const errors = [];
  const fail = (path, key, params = {}) => errors.push({ path, key, params });
  const name = state.name.trim();
  if (!name) fail("name", "ui.nodes.err_name");
  if (!state.serverId) fail("serverId", "ui.nodes.err_server");

  const maxRetries = Number(state.maxRetries);
  if (String(state.maxRetries).trim() === "" || !Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES) {
    fail("maxRetries", "ui.nodes.err_retries", { max: MAX_RETRIES });
  }
  let timeoutMs = null;
  if (String(state.timeoutMs).trim() !== "") {
    timeoutMs = Number(state.timeoutMs);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) fail("timeoutMs", "ui.nodes.err_timeout");
  }

  const { decls, errors: varErrors } = declsFrom(state.variables);
  varErrors.forEach((e) => fail(`variables[${e.index}]`, e.key, { name: e.name }));

  const selectedTools = state.tools.map((tool, i) => {
    const schema = schemaOf(infos, tool.name);
    const parameterMappings = {};
    for (const [param, choice] of Object.entries(tool.choices)) {
      const { mapping, errors: mapErrors } = mappingFrom(choice, schema, param);
      const path = `selectedTools[${i}].parameterMappings.${param}`;
      mapErrors.forEach((e) => fail(path, e.key, { name: e.name ?? "", detail: e.detail ?? "", param }));
      if (mapping !== undefined) define(parameterMappings, param, mapping);
    }
    return { name: tool.name, enabled: tool.enabled, parameterMappings };
  });
  if (!selectedTools.length) fail("selectedTools", "ui.nodes.err_no_tools");

  const node = {
    name,
    serverId: state.serverId,
    selectedTools,
    retryOnError: state.retryOnError === true,
    maxRetries: Number.isInteger(maxRetries) ? maxRetries : DEFAULT_MAX_RETRIES,
    timeoutMs: Number.isInteger(timeoutMs) && timeoutMs > 0 ? timeoutMs : null,
    variables: decls,
  };
  if (state.assistantId) node.assistantId = state.assistantId;
  return { node, errors };
}

/** The tools a node would offer (ticked and enabled), for the Run form's choice. */
export const enabledTools = (state) => state.tools.filter((t) => t.enabled).map((t) => t.name);

// Where a server runs: this machine, or one of the MCP nodes the configuration declares
// (GET /api/nodes: [{name, state: "connecting"|"up"|"down", lastError?, version?, url?}]).
// The pure half of the form's "Runs on" selector and of the card's "on NAME" label; a node
// the server names but the configuration no longer declares is shown as unknown, never dropped.

import { t } from "../i18n.js";

/** A node's state in the reader's language (a state this UI does not know, as the API names it). */
export function nodeStateText(state) {
  const text = {
    up: t("ui.mcp_node.state_up"),
    down: t("ui.mcp_node.state_down"),
    connecting: t("ui.mcp_node.state_connecting"),
    unknown: t("ui.mcp_node.state_unknown"),
  };
  return text[state] || state;
}

/**
 * The selector's options, `[value, text]`: this machine (value ""), each configured node with
 * its state, and `current` as unknown when the server names a node that is not configured.
 */
export function nodeOptions(nodes, current) {
  const options = [["", t("ui.mcp_node.this_machine")]];
  for (const node of nodes || []) {
    options.push([node.name, t("ui.mcp_node.option", { name: node.name, state: nodeStateText(node.state) })]);
  }
  if (current && !(nodes || []).some((n) => n.name === current)) {
    options.push([current, t("ui.mcp_node.option", { name: current, state: nodeStateText("unknown") })]);
  }
  return options;
}

/**
 * Whether the form shows the selector: when a node is configured, or when the server already
 * names one (so that a node removed from the configuration can be changed to this machine).
 */
export function showsNodeChoice(nodes, current) {
  return (nodes || []).length > 0 || !!current;
}

/**
 * The card's label for `server` given the node list: null for a server on this machine, else
 * `{name, state, text, stateText, lastError}` (state "unknown" for a node not configured, and
 * while the list has not been loaded yet, `nodes` null, "connecting").
 */
export function nodeLabel(server, nodes) {
  const name = server?.node;
  if (!name) return null;
  const node = nodes === null || nodes === undefined ? { state: "connecting" } : nodes.find((n) => n.name === name);
  const state = node ? node.state : "unknown";
  return {
    name,
    state,
    text: t("ui.mcp_node.on", { name }),
    stateText: nodeStateText(state),
    lastError: node?.lastError || (node ? "" : nodes ? t("ui.mcp_node.not_configured", { name }) : ""),
  };
}

/**
 * The line the card shows under the server for its node (or "" for none): a node that is not
 * configured says so; a node that is not up gives its error, unless the server's own last
 * error (`status.lastError`, which names the node when it cannot be reached) already says it.
 */
export function nodeNote(label, status) {
  if (!label || label.state === "up" || !label.lastError) return "";
  if (label.state === "unknown") return label.lastError;
  if ((status?.lastError || "").includes(label.lastError)) return "";
  return t("ui.mcp_node.node_error", { name: label.name, error: label.lastError });
}

/**
 * `run` called at most once per `wait` ms however often `request()` is called: the first
 * request schedules one run `wait` ms later, and requests until then join it. `cancel()` drops
 * a scheduled run (the page closed). Timers are injectable for tests.
 */
export function coalesced(run, wait, timers = globalThis) {
  let timer = null;
  return {
    request() {
      if (timer !== null) return;
      timer = timers.setTimeout(() => {
        timer = null;
        run();
      }, wait);
    },
    cancel() {
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
    },
  };
}

// A call Switchboard answered itself, inline among the tool calls but as what it is: a search
// of the tools ("Searched tools for “query”" with the tools it found, their servers and what
// they do) or a read of more of a large result ("Read more of a result", where it read, and
// what it gave the model). Never an approval: these calls need none.

import { html } from "../html.js";
import { t } from "../i18n.js";
import { answerText, ownCallKind, readOf, searchOf } from "./own-calls.js";
import { ToolResult } from "./tool-result.js";

export function OwnCallBlock({ call }) {
  const kind = ownCallKind(call);
  const label = kind === "search" ? t("ui.own_call.searched", { query: searchOf(call).query }) : t("ui.own_call.read");
  return html`<section class=${`tool-call own-call status-${call.status}`} data-call-id=${call.id}
      data-tool=${call.toolName} data-status=${call.status} data-kind=${kind} aria-label=${label}>
    <header>
      <span class="tool-name">${label}</span>
      ${kind === "search" ? html`<span class="badge" data-role="found-count">${foundWords(searchOf(call).tools.length)}</span>` : null}
    </header>
    ${kind === "search" ? html`<${Found} call=${call} />` : html`<${Read} call=${call} />`}
  </section>`;
}

function foundWords(count) {
  if (count === 0) return t("ui.own_call.found_none");
  return count === 1 ? t("ui.own_call.found_one") : t("ui.own_call.found", { count });
}

function Found({ call }) {
  const { tools } = searchOf(call);
  if (call.isError) return html`<${ToolResult} result=${call.response} />`;
  if (tools.length === 0) return null;
  return html`<ul class="found-tools" data-role="found-tools" aria-label=${t("ui.own_call.found_label")}>
    ${tools.map((tool) => html`<li key=${tool.name} data-tool-name=${tool.name}>
      <code>${tool.tool}</code> <span class="server">${tool.server}</span>
      ${tool.description ? html`<span class="description muted small">${tool.description}</span>` : null}
    </li>`)}
  </ul>`;
}

function Read({ call }) {
  const { offset, query } = readOf(call);
  const where = query !== null
    ? t("ui.own_call.read_query", { query })
    : t("ui.own_call.read_offset", { offset: offset ?? 0 });
  const text = answerText(call);
  return html`<p class="muted small" data-role="read-where">${where}</p>
    ${call.response !== undefined
      ? html`<details>
          <summary>${t("ui.own_call.read_given")}</summary>
          ${text ? html`<pre class="result-text">${text}</pre>` : html`<${ToolResult} result=${call.response} />`}
        </details>`
      : null}`;
}

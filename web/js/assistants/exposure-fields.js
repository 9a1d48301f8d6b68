// The assistant editor's tool exposure: which tools its model is shown on every request (all,
// deferred: its pinned tools and a search for the rest, or auto: all until they pass the
// budget), the tools it pins, and what its tools cost each request as saved (GET
// /api/tools/cost?assistantId=): with every tool, deferred, and which of the two its runs do.

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { get, seg } from "../api.js";
import { t } from "../i18n.js";
import { Checkbox, Select } from "../ui/fields.js";
import { savedPercent, tokensText } from "../mcp/tool-cost.js";
import { PinnedPicker } from "./pinned-picker.js";

const exposureOptions = () => [
  ["auto", t("ui.exposure.auto")],
  ["all", t("ui.exposure.all")],
  ["deferred", t("ui.exposure.deferred")],
];

/** What the exposure `value` does, in a sentence. */
export function exposureHint(value) {
  const hints = { all: t("ui.exposure.all_hint"), deferred: t("ui.exposure.deferred_hint") };
  return hints[value] ?? t("ui.exposure.auto_hint");
}

/** `form`: the editor's {toolExposure, pinnedTools, nativeToolSearch, serverIds}; `assistant`: as saved (null while new). */
export function ExposureFields({ form, set, servers, assistant }) {
  return html`<fieldset class="exposure" data-role="exposure">
    <legend>${t("ui.exposure.title")}</legend>
    <${Select} id="assistant-exposure" label=${t("ui.exposure.label")} value=${form.toolExposure}
      options=${exposureOptions()} hint=${exposureHint(form.toolExposure)}
      onChange=${(v) => set({ toolExposure: v })} />
    <${Checkbox} id="assistant-native-search" label=${t("ui.exposure.native_search")}
      checked=${form.nativeToolSearch === true} onChange=${(v) => set({ nativeToolSearch: v })} />
    <${PinnedPicker} pins=${form.pinnedTools} servers=${servers} serverIds=${form.serverIds}
      onChange=${(pins) => set({ pinnedTools: pins })} />
    <${ToolCost} assistant=${assistant} />
  </fieldset>`;
}

function ToolCost({ assistant }) {
  const [cost, setCost] = useState(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!assistant) return;
    setFailed(false);
    get(`/api/tools/cost?assistantId=${seg(assistant.id)}`).then(setCost, () => setFailed(true));
  }, [assistant?.id, assistant?.updatedAt]);
  if (!assistant) return html`<p class="muted small" data-role="tool-cost">${t("ui.exposure.cost_save_first")}</p>`;
  if (failed) return html`<p class="muted small" data-role="tool-cost">${t("ui.exposure.cost_unknown")}</p>`;
  if (!cost) return html`<p class="muted small" data-role="tool-cost" aria-busy="true">${t("ui.common.loading")}</p>`;
  return html`<dl class="tool-cost" data-role="tool-cost" data-defers=${String(cost.defers)}>
    <div><dt>${t("ui.exposure.cost_all")}</dt>
      <dd data-role="cost-all">${t("ui.exposure.cost_tokens_tools", { tokens: tokensText(cost.tokens), count: cost.tools })}</dd></div>
    <div><dt>${t("ui.exposure.cost_deferred")}</dt>
      <dd data-role="cost-deferred">${t("ui.exposure.cost_tokens_saved", { tokens: tokensText(cost.deferredTokens), percent: savedPercent(cost) })}</dd></div>
    <div><dt>${t("ui.exposure.cost_now")}</dt>
      <dd data-role="cost-now">${cost.defers ? t("ui.exposure.now_defers") : t("ui.exposure.now_all")}</dd></div>
  </dl>`;
}

// A server's sampling setting in its dialog (server-form.js turns it into the body): the
// server's requests to the assistant's model answered without asking, and the most tokens
// one may take.

import { html } from "../html.js";
import { t } from "../i18n.js";
import { Checkbox, TextField } from "../ui/fields.js";
import { SAMPLING_MAX_TOKENS, SAMPLING_MAX_TOKENS_LIMIT } from "./server-form.js";

export function SamplingFields({ form, set }) {
  return html`<fieldset class="sampling-settings" data-role="sampling">
    <legend>${t("ui.server.sampling")}</legend>
    <p class="muted small">${t("ui.server.sampling_hint")}</p>
    <${Checkbox} id="server-sampling-auto" label=${t("ui.server.sampling_auto")} checked=${form.samplingAuto}
      onChange=${(v) => set({ samplingAuto: v })} />
    <${TextField} id="server-sampling-max-tokens" label=${t("ui.server.sampling_max_tokens")} type="number" step="1"
      min="1" max=${String(SAMPLING_MAX_TOKENS_LIMIT)} value=${form.samplingMaxTokens} placeholder=${String(SAMPLING_MAX_TOKENS)}
      onInput=${(v) => set({ samplingMaxTokens: v })} hint=${t("ui.server.sampling_max_tokens_hint", { max: SAMPLING_MAX_TOKENS_LIMIT })} />
  </fieldset>`;
}

// The language switch in the page's header: English or 简体中文, each named in its own
// language. The choice is kept for the signed-in user through the API (PATCH /api/me), and
// in this browser otherwise (see i18n.js).

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { LOCALES, chooseLocale, locale, t } from "../i18n.js";

export function LanguageSwitch({ signedIn }) {
  const [error, setError] = useState(null);
  const change = async (event) => {
    setError(null);
    try {
      await chooseLocale(event.currentTarget.value, signedIn);
    } catch (e) {
      setError(e);
    }
  };
  return html`<label class="language">
    <span class="visually-hidden">${t("ui.lang.label")}</span>
    <select id="language-switch" onChange=${change} title=${error ? error.message : undefined}>
      ${LOCALES.map((l) => html`<option value=${l} selected=${l === locale()}>${t(`ui.lang.${l}`)}</option>`)}
    </select>
  </label>`;
}

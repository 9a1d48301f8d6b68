// Asks for an API token when the server answers 401 (it runs with tokens; `switchboard
// serve` prints the admin's on first start and `switchboard users token` makes more).

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { ApiError, get, setToken, token } from "../api.js";
import { t } from "../i18n.js";
import { Dialog } from "./dialog.js";
import { ErrorNote } from "./error-note.js";
import { TextField } from "./fields.js";

export function TokenPrompt({ onSignedIn }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    const previous = token();
    setToken(value.trim());
    try {
      await get("/api/conversations");
      onSignedIn();
    } catch (e) {
      setToken(previous);
      setError(e instanceof ApiError && e.status === 401
        ? { code: "UNAUTHORIZED", message: t("ui.signin.invalid") }
        : e);
    }
  };
  return html`<${Dialog} title=${t("ui.signin.title")} onClose=${() => {}} closable=${false}>
    <form onSubmit=${submit}>
      <p>${t("ui.signin.needs_token")}</p>
      <${TextField} id="token-input" label=${t("ui.signin.token")} type="password" required value=${value}
        onInput=${setValue} hint=${t("ui.signin.token_hint")} />
      <${ErrorNote} error=${error} />
      <div class="actions"><button type="submit" class="primary">${t("ui.signin.submit")}</button></div>
    </form>
  <//>`;
}

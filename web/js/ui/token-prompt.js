// Asks for an API token when the server answers 401 (it runs with tokens; `switchboard
// serve` prints the admin's on first start and `switchboard users token` makes more).

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { ApiError, get, setToken, token } from "../api.js";
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
        ? { code: "UNAUTHORIZED", message: "That token is not valid." }
        : e);
    }
  };
  return html`<${Dialog} title="Sign in" onClose=${() => {}} closable=${false}>
    <form onSubmit=${submit}>
      <p>This Switchboard needs an API token.</p>
      <${TextField} id="token-input" label="API token" type="password" required value=${value}
        onInput=${setValue} hint="Printed by the first start of switchboard serve, or made with switchboard users token." />
      <${ErrorNote} error=${error} />
      <div class="actions"><button type="submit" class="primary">Sign in</button></div>
    </form>
  <//>`;
}

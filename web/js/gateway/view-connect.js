// Connecting a client to a view: a token limited to the view (its secret shown once), the
// view's tokens to revoke, and the snippet each client takes, with a copy button.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { del, get, post, seg } from "../api.js";
import { t } from "../i18n.js";
import { Dialog } from "../ui/dialog.js";
import { ErrorNote } from "../ui/error-note.js";
import { TextField } from "../ui/fields.js";
import { useLoaded } from "../ui/use-loaded.js";
import { snippets } from "./snippets.js";

export function ViewConnectDialog({ view, onClose }) {
  const tokensPath = `/api/mcp/views/${seg(view.id)}/tokens`;
  const { data: tokens, error, setError, reload } = useLoaded(() => get(tokensPath));
  const [label, setLabel] = useState("");
  const [issued, setIssued] = useState(null);

  const create = async (event) => {
    event.preventDefault();
    setError(null);
    try {
      setIssued(await post(tokensPath, { label }));
      setLabel("");
      reload();
    } catch (e) {
      setError(e);
    }
  };
  const revoke = async (token) => {
    if (!confirm(t("ui.gateway.revoke_confirm", { label: token.label }))) return;
    try {
      await del(`${tokensPath}/${seg(token.id)}`);
      if (issued?.id === token.id) setIssued(null);
      reload();
    } catch (e) {
      setError(e);
    }
  };

  return html`<${Dialog} title=${t("ui.gateway.connect_title", { name: view.name })} onClose=${onClose} wide>
    <p class="muted">${t("ui.gateway.token_intro", { name: view.name })}</p>
    <form class="view-token" onSubmit=${create}>
      <${TextField} id="view-token-label" label=${t("ui.gateway.token_label")} value=${label} onInput=${setLabel} />
      <button type="submit" class="primary">${t("ui.gateway.create_token")}</button>
    </form>
    ${issued
      ? html`<div class="token-once" role="status">
          <p>${t("ui.gateway.token_once")}</p>
          <code data-secret>${issued.secret}</code> <${CopyButton} text=${issued.secret} />
        </div>`
      : null}
    <${ErrorNote} error=${error} />
    <h3>${t("ui.gateway.tokens")}</h3>
    ${tokens?.length === 0 ? html`<p class="muted">${t("ui.gateway.no_tokens")}</p>` : null}
    <ul class="view-tokens">
      ${(tokens || []).map((token) => html`<li key=${token.id}>${token.label}
        <button type="button" class="danger" onClick=${() => revoke(token)}>${t("ui.gateway.revoke")}</button></li>`)}
    </ul>
    ${snippets({ origin: location.origin, name: view.name, token: issued?.secret }).map(
      (s) => html`<section class="snippet" key=${s.client} data-client=${s.client}>
        <h3>${t(`ui.gateway.client_${s.client}`)}</h3>
        <p class="muted small">${t(s.client === "claude" ? "ui.gateway.stdio_hint" : "ui.gateway.http_hint", { file: s.file })}</p>
        <pre><code>${s.text}</code></pre>
        <${CopyButton} text=${s.text} />
      </section>`,
    )}
  <//>`;
}

/** Copies `text`, then says it did (or that it could not). */
function CopyButton({ text }) {
  const [state, setState] = useState("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
  };
  return html`<button type="button" class="copy" onClick=${copy}>${t("ui.gateway.copy")}</button>
    ${state === "copied" ? html`<span role="status" class="muted small">${t("ui.gateway.copied")}</span>` : null}
    ${state === "failed" ? html`<span role="alert" class="error small">${t("ui.gateway.copy_failed")}</span>` : null}`;
}

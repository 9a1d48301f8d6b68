// Connecting a client to a view: which of its tools ask a person before they run and what a
// client that cannot be asked gets, a token limited to the view (its secret shown once), the
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
  // How this machine's clients launch the gateway, and what unasked clients get.
  const { data: connect } = useLoaded(() => get("/api/mcp/connect"));
  // The view as it is now: which of its tools ask a person.
  const { data: detail } = useLoaded(() => get(`/api/mcp/views/${seg(view.id)}`));
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
    <${Approvals} asking=${detail?.asking} unapproved=${connect?.unapproved} />
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
    ${snippets({ origin: location.origin, name: view.name, token: issued?.secret, stdio: connect?.stdio }).map(
      (s) => html`<section class="snippet" key=${s.client} data-client=${s.client} data-launch=${s.launch}>
        <h3>${t(`ui.gateway.client_${s.client}`)}</h3>
        <p class="muted small">${t(`ui.gateway.${s.launch}_hint`, { file: s.file })}</p>
        <pre><code>${s.text}</code></pre>
        <${CopyButton} text=${s.text} />
      </section>`,
    )}
  <//>`;
}

/**
 * Which of the view's tools ask a person (`asking`, exported names; null while loading) and
 * what a client without elicitation gets for them (`unapproved`: `refuse` or `run`).
 */
function Approvals({ asking, unapproved }) {
  if (!asking) return null;
  return html`<section class="view-approvals" aria-labelledby="view-approvals-title">
    <h3 id="view-approvals-title">${t("ui.gateway.approvals")}</h3>
    ${asking.length === 0
      ? html`<p class="muted">${t("ui.gateway.asking_none")}</p>`
      : html`<p>${t("ui.gateway.asking_some")}</p>
          <ul class="asking">${asking.map((name) => html`<li key=${name}><code>${name}</code></li>`)}</ul>
          ${unapproved ? html`<p class="muted small">${t(`ui.gateway.unapproved_${unapproved}`)}</p>` : null}`}
  </section>`;
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

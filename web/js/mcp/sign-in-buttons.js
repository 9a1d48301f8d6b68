// A server card's Sign in and Sign out, for servers that use OAuth sign-in. Sign
// in asks the API to start (POST .../oauth/start) and opens the authorization server's page
// in a new tab; the page's own link stays beside the button, since a tab opened "noopener"
// cannot be seen from here and a popup blocker may have stopped it. The sign-in ends on that
// tab (the settings page with `?signedIn=ID`); this tab learns of it from the status events.
// Sign out forgets the person's tokens (DELETE .../oauth), then `onSignedOut` reads the status.

import { html } from "../html.js";
import { useState } from "../../vendor/hooks.js";
import { api, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { openableUrl, signInActions } from "./sign-in.js";

export function SignInButtons({ server, state, onSignedOut }) {
  const [busy, setBusy] = useState(false);
  const [link, setLink] = useState(null);
  const [error, setError] = useState(null);
  const actions = signInActions(server, state);
  if (!actions.signIn && !actions.signOut) return null;
  const path = `/api/mcp-servers/${seg(server.id)}/oauth`;

  const signIn = async () => {
    setBusy(true);
    setError(null);
    setLink(null);
    try {
      const { authorizationUrl } = await api("POST", `${path}/start`);
      if (!openableUrl(authorizationUrl)) {
        setError({ message: t("ui.server.sign_in_bad_url") });
        return;
      }
      window.open(authorizationUrl, "_blank", "noopener");
      setLink(authorizationUrl);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const signOut = async () => {
    setBusy(true);
    setError(null);
    try {
      await api("DELETE", path);
      setLink(null);
      onSignedOut();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return html`<div class="sign-in" data-role="sign-in">
    <div class="actions">
      ${actions.signIn
        ? html`<button type="button" class=${actions.needed ? "primary" : ""} onClick=${signIn} disabled=${busy}>
            ${busy ? t("ui.server.signing_in") : t("ui.server.sign_in")}</button>`
        : null}
      ${actions.signOut
        ? html`<button type="button" class="quiet" onClick=${signOut} disabled=${busy}>${t("ui.server.sign_out")}</button>`
        : null}
    </div>
    ${link && actions.signIn
      ? html`<p class="muted small" role="status">${t("ui.server.sign_in_opened")}${" "}<a href=${link} target="_blank" rel="noopener noreferrer" data-role="sign-in-link">${t("ui.server.sign_in_open_link")}</a></p>`
      : null}
    <${ErrorNote} error=${error} />
  </div>`;
}

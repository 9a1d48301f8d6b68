// The application: navigation, the language switch, the page for the current path, and the
// token prompt. A change of language renders every page again in it. On a phone's width the
// header folds its navigation, language and sign-out into a menu (ui/header-menu.js).

import { html } from "./html.js";
import { useEffect, useLayoutEffect, useState } from "../vendor/hooks.js";
import { get, onUnauthorized, setToken, token } from "./api.js";
import { adoptLocale, locale, onLocaleChange, t } from "./i18n.js";
import { restart } from "./events.js";
import { follow, usePath } from "./router.js";
import { ChatPage } from "./pages/chat.js";
import { McpSettingsPage } from "./pages/mcp-settings.js";
import { AssistantsPage } from "./pages/assistants.js";
import { ProvidersPage } from "./pages/providers.js";
import { HeaderMenu } from "./ui/header-menu.js";
import { LanguageSwitch } from "./ui/language-switch.js";
import { TokenPrompt } from "./ui/token-prompt.js";

const nav = () => [
  ["/", t("ui.nav.chat")],
  ["/assistants", t("ui.nav.assistants")],
  ["/settings/mcp", t("ui.nav.mcp")],
  ["/providers", t("ui.nav.providers")],
];

export function App() {
  const path = usePath();
  const [needsToken, setNeedsToken] = useState(false);
  const [session, setSession] = useState(0);
  const [lang, setLang] = useState(locale());
  const [me, setMe] = useState(null);
  useEffect(() => onUnauthorized(() => setNeedsToken(true)), []);
  useEffect(() => onLocaleChange(setLang), []);
  // In the same commit as the text: an effect runs a frame later, and the page was briefly
  // in one language while saying it was in the other.
  useLayoutEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  // Once signed in, the user's stored language wins over this browser's.
  useEffect(() => {
    if (needsToken) return;
    get("/api/me").then(
      (user) => {
        setMe(user);
        adoptLocale(user.locale);
      },
      () => setMe(null),
    );
  }, [session, needsToken]);
  const signedIn = () => {
    setNeedsToken(false);
    setSession((n) => n + 1);
    restart();
  };
  const signOut = () => {
    setToken("");
    setNeedsToken(true);
    setSession((n) => n + 1);
    restart();
  };
  return html`
    <a class="skip" href="#main">${t("ui.nav.skip")}</a>
    <header class="top">
      <span class="brand">Switchboard</span>
      <${HeaderMenu} path=${path}>
        <nav aria-label=${t("ui.nav.main")}>
          ${nav().map(([href, text]) => html`<a href=${href} onClick=${follow}
            aria-current=${current(path, href) ? "page" : undefined}>${text}</a>`)}
        </nav>
        <${LanguageSwitch} signedIn=${me !== null && !needsToken} />
        ${token() ? html`<button type="button" class="quiet" onClick=${signOut}>${t("ui.nav.sign_out")}</button>` : null}
      </${HeaderMenu}>
    </header>
    <main id="main" key=${`${session}-${lang}`}>${needsToken ? null : page(path)}</main>
    ${needsToken ? html`<${TokenPrompt} onSignedIn=${signedIn} />` : null}
  `;
}

function current(path, href) {
  return href === "/" ? path === "/" || path.startsWith("/chat") : path.startsWith(href);
}

function page(path) {
  const chat = path.match(/^\/chat\/([^/]+)$/);
  if (path === "/" || path === "/chat" || chat) return html`<${ChatPage} conversationId=${chat ? decoded(chat[1]) : null} />`;
  if (path === "/settings/mcp" || path === "/settings") return html`<${McpSettingsPage} />`;
  if (path === "/assistants") return html`<${AssistantsPage} />`;
  if (path === "/providers") return html`<${ProvidersPage} />`;
  return html`<section class="page"><h1>${t("ui.notfound.title")}</h1><p>${t("ui.notfound.text", { path })}</p></section>`;
}

function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

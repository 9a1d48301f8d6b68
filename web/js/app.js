// The application: navigation, the page for the current path, and the token prompt.

import { html } from "./html.js";
import { useEffect, useState } from "../vendor/hooks.js";
import { onUnauthorized, setToken, token } from "./api.js";
import { restart } from "./events.js";
import { follow, usePath } from "./router.js";
import { ChatPage } from "./pages/chat.js";
import { McpSettingsPage } from "./pages/mcp-settings.js";
import { AssistantsPage } from "./pages/assistants.js";
import { ProvidersPage } from "./pages/providers.js";
import { TokenPrompt } from "./ui/token-prompt.js";

const NAV = [
  ["/", "Chat"],
  ["/assistants", "Assistants"],
  ["/settings/mcp", "MCP servers"],
  ["/providers", "Providers"],
];

export function App() {
  const path = usePath();
  const [needsToken, setNeedsToken] = useState(false);
  const [session, setSession] = useState(0);
  useEffect(() => onUnauthorized(() => setNeedsToken(true)), []);
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
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">Switchboard</span>
      <nav aria-label="Main">
        ${NAV.map(([href, text]) => html`<a href=${href} onClick=${follow}
          aria-current=${current(path, href) ? "page" : undefined}>${text}</a>`)}
      </nav>
      ${token() ? html`<button type="button" class="quiet" onClick=${signOut}>Sign out</button>` : null}
    </header>
    <main id="main" key=${session}>${needsToken ? null : page(path)}</main>
    ${needsToken ? html`<${TokenPrompt} onSignedIn=${signedIn} />` : null}
  `;
}

function current(path, href) {
  return href === "/" ? path === "/" || path.startsWith("/chat") : path.startsWith(href);
}

function page(path) {
  const chat = path.match(/^\/chat\/([^/]+)$/);
  if (path === "/" || chat) return html`<${ChatPage} conversationId=${chat ? decoded(chat[1]) : null} />`;
  if (path === "/settings/mcp" || path === "/settings") return html`<${McpSettingsPage} />`;
  if (path === "/assistants") return html`<${AssistantsPage} />`;
  if (path === "/providers") return html`<${ProvidersPage} />`;
  return html`<section class="page"><h1>Not found</h1><p>There is no page ${path}.</p></section>`;
}

function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

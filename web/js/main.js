import { html, render } from "./html.js";
import { App } from "./app.js";
import { get, patch } from "./api.js";
import { createI18n, install } from "./i18n.js";

// The words first (the page's language, its texts), then the page.
const i18n = createI18n({
  load: (locale) => get(`/api/locales/${encodeURIComponent(locale)}`).catch(() => ({})),
  storage: localStorage,
  remember: (locale) => patch("/api/me", { locale }),
});
install(i18n);
await i18n.start(navigator.languages);

render(html`<${App} />`, document.getElementById("app"));

// The header's navigation, language and sign-out, folded into a menu on a phone's width
// (app.css decides when; at a desktop's width they stand in the header as they are and the
// Menu button is not shown). Choosing a page, tapping outside the menu or Escape closes it.

import { html } from "../html.js";
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";

const MENU_ID = "top-menu";

const bars = html`<svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="18" height="18" fill="none"
  stroke="currentColor" stroke-width="2" stroke-linecap="round"><path d="M4 6h16M4 12h16M4 18h16" /></svg>`;

/** `path` is the page shown: a change of it closes the menu. */
export function HeaderMenu({ path, children }) {
  const [open, setOpen] = useState(false);
  const button = useRef(null);
  const menu = useRef(null);
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return undefined;
    const outside = (event) => {
      if (!menu.current?.contains(event.target) && !button.current?.contains(event.target)) setOpen(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);
  const escape = (event) => {
    if (event.key !== "Escape" || !open) return;
    event.preventDefault();
    setOpen(false);
    button.current?.focus();
  };
  return html`<button type="button" class="menu-button" ref=${button} aria-expanded=${open} aria-controls=${MENU_ID}
      onClick=${() => setOpen(!open)} onKeyDown=${escape}>${bars}${t("ui.nav.menu")}</button>
    <div id=${MENU_ID} ref=${menu} class=${open ? "top-menu open" : "top-menu"} onKeyDown=${escape}>${children}</div>`;
}

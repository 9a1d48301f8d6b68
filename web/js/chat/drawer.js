// The list of conversations as a drawer, on a phone's width (app.css decides when): a button
// opens it over the page; choosing a conversation, tapping outside it or Escape closes it.
// At a desktop's width the list is always shown and the button is not.

import { html } from "../html.js";
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";

const DRAWER_ID = "conversation-drawer";

const bars = html`<svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="18" height="18" fill="none"
  stroke="currentColor" stroke-width="2" stroke-linecap="round"><path d="M4 6h16M4 12h16M4 18h16" /></svg>`;

/**
 * The drawer's state, `{id, open, toggle, close, dismiss, button}`; a change of `current`
 * (the conversation shown) closes it. Closed by Escape or a tap outside, the focus goes back
 * to its button; opened, to the drawer.
 */
export function useDrawer(current) {
  const [open, setOpen] = useState(false);
  const button = useRef(null);
  const refocus = useRef(false);
  useEffect(() => setOpen(false), [current]);
  // Read by the Escape listener, which is there from the start: a key pressed as soon as
  // the drawer shows, before this render's effects have run, still closes it.
  const shown = useRef(open);
  shown.current = open;
  const dismiss = () => {
    refocus.current = true;
    setOpen(false);
  };
  useEffect(() => {
    const escape = (event) => {
      if (event.key !== "Escape" || !shown.current) return;
      event.preventDefault();
      dismiss();
    };
    document.addEventListener("keydown", escape);
    return () => document.removeEventListener("keydown", escape);
  }, []);
  useEffect(() => {
    if (open) {
      document.getElementById(DRAWER_ID)?.focus();
      return;
    }
    if (refocus.current) button.current?.focus();
    refocus.current = false;
  }, [open]);
  return {
    id: DRAWER_ID,
    open,
    button,
    toggle: () => setOpen(!open),
    close: () => setOpen(false),
    dismiss,
  };
}

export function DrawerButton({ drawer }) {
  return html`<button type="button" class="drawer-button" ref=${drawer.button} aria-expanded=${drawer.open}
    aria-controls=${drawer.id} onClick=${drawer.toggle}>${bars}${t("ui.chat.conversations")}</button>`;
}

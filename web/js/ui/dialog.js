// A modal dialog on the native <dialog> element: focus stays inside, Escape closes it, and
// the browser gives it the dialog role and its accessible name from the title.

import { html } from "../html.js";
import { useEffect, useRef } from "../../vendor/hooks.js";
import { t } from "../i18n.js";

let next = 0;

export function Dialog({ title, onClose, children, wide, closable = true }) {
  const ref = useRef(null);
  const titleId = useRef(`dialog-title-${++next}`).current;
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.open && dialog.close();
  }, []);
  const cancel = (event) => {
    event.preventDefault();
    onClose();
  };
  return html`
    <dialog ref=${ref} class=${wide ? "wide" : ""} aria-labelledby=${titleId} onCancel=${cancel}>
      <header class="dialog-head">
        <h2 id=${titleId}>${title}</h2>
        ${closable ? html`<button type="button" class="icon" aria-label=${t("ui.common.close")} onClick=${onClose}>×</button>` : null}
      </header>
      ${children}
    </dialog>
  `;
}

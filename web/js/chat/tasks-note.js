// Above the message box while the conversation's last turn waits on tasks (tool calls that
// run as tasks): what it waits on, with a button that cancels them; when the person sends a
// message meanwhile, the choice of waiting for them (the message is kept and sent once the
// turn has ended) or cancelling them and sending it now; then, while it waits, that it will
// be sent, with the same way out.

import { html } from "../html.js";
import { t } from "../i18n.js";

export function TasksNote({ tasksPending, choosing, queued, onWait, onCancelAndSend, onBack, onDrop, onCancelTasks }) {
  if (choosing) {
    return html`<div class="tasks-note" role="group" aria-label=${t("ui.chat.tasks_choice_label")} data-role="tasks-choice">
      <p>${t("ui.chat.tasks_choice")}</p>
      <div class="actions">
        <button type="button" class="primary" onClick=${onWait}>${t("ui.chat.tasks_wait")}</button>
        <button type="button" class="danger" onClick=${onCancelAndSend}>${t("ui.chat.tasks_cancel_send")}</button>
        <button type="button" class="quiet" onClick=${onBack}>${t("ui.chat.tasks_back")}</button>
      </div>
    </div>`;
  }
  if (queued) {
    return html`<div class="tasks-note" data-role="tasks-queued">
      <p role="status">${t("ui.chat.tasks_queued")}</p>
      <div class="actions">
        <button type="button" class="danger" onClick=${onCancelAndSend}>${t("ui.chat.tasks_cancel_send")}</button>
        <button type="button" class="quiet" onClick=${onDrop}>${t("ui.chat.tasks_drop")}</button>
      </div>
    </div>`;
  }
  if (tasksPending > 0) {
    const one = tasksPending === 1;
    return html`<div class="tasks-note" data-role="tasks-waiting">
      <p role="status">${t(one ? "ui.chat.tasks_waiting_one" : "ui.chat.tasks_waiting_many", { count: tasksPending })}</p>
      <button type="button" class="quiet" onClick=${onCancelTasks}>${t(one ? "ui.chat.tasks_cancel_one" : "ui.chat.tasks_cancel_many")}</button>
    </div>`;
  }
  return null;
}

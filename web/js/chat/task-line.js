// The task a tool call runs as (MCP tasks), in the call's block: its status, what the server
// last said of its progress, how long it has been running (counted live), and Cancel while
// it runs (POST /api/messages/{id}/tool-calls/{callId}/cancel: the call ends cancelled, the
// server is told, and the turn goes on with the model told so).

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { post, seg } from "../api.js";
import { t } from "../i18n.js";
import { waitsOnTask } from "./state.js";
import { durationWords, elapsedSeconds } from "./task-time.js";
import { ErrorNote } from "../ui/error-note.js";

const statusText = () => ({
  working: t("ui.task.status_working"),
  input_required: t("ui.task.status_input_required"),
  completed: t("ui.task.status_completed"),
  failed: t("ui.task.status_failed"),
  cancelled: t("ui.task.status_cancelled"),
});

/** The time now, again every second while `live`. */
function useNow(live) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!live) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [live]);
  return now;
}

export function TaskLine({ call, messageId }) {
  const task = call.task;
  const live = waitsOnTask(call);
  const now = useNow(live);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await post(`/api/messages/${seg(messageId)}/tool-calls/${seg(call.id)}/cancel`);
    } catch (e) {
      // 409: it ended meanwhile; its end comes with the call's update.
      if (e.status !== 409) setError(e);
    } finally {
      setBusy(false);
    }
  };
  const [key, values] = durationWords(elapsedSeconds(task.createdAt, now));
  return html`<div class="task-line" data-role="task" data-task-status=${task.status}>
    <span class="task-label">${t("ui.task.label")}</span>
    <span class=${`badge task-status task-${task.status}`} data-role="task-status">${statusText()[task.status] || task.status}</span>
    ${task.statusMessage ? html`<span class="task-message" data-role="task-message">${task.statusMessage}</span>` : null}
    ${live ? html`<span class="task-elapsed muted" data-role="task-elapsed">${t("ui.task.elapsed", { time: t(key, values) })}</span>` : null}
    ${live
      ? html`<button type="button" class="quiet" disabled=${busy} onClick=${cancel}>${t("ui.task.cancel")}</button>`
      : null}
    <${ErrorNote} error=${error} />
  </div>`;
}

// What a conversation shows, and how each live event changes it. Pure functions: the page
// keeps the result in state, and the API's history (GET /api/conversations/{id}) is the
// truth it is reloaded from when the stream says events were missed or a run ended.

import { ownCallKind } from "./own-calls.js";

/** A history as loaded: {id, title, messages, running} plus the run's failure, if any. */
export function fromHistory(history) {
  return { ...history, failure: null };
}

/** `view` after `event`, or `view` itself when the event is not about it. */
export function applyEvent(view, event) {
  if (!view || event.conversationId !== view.id) return view;
  switch (event.type) {
    case "message.created":
      return { ...view, running: true, messages: upsert(view.messages, event.message) };
    case "message.delta":
      return editMessage(view, event.messageId, (m) => withDelta(m, event.delta));
    case "assistant.toolCall.updated":
      return resumedBy(
        editMessage(view, event.messageId, (m) => ({
          ...m,
          toolCalls: upsert(m.toolCalls || [], event.toolCall),
        })),
        view,
        event,
      );
    case "task.updated":
      return editMessage(view, event.messageId, (m) => ({
        ...m,
        toolCalls: (m.toolCalls || []).map((c) =>
          c.id === event.callId && c.task?.id === event.taskId
            ? { ...c, task: { ...c.task, status: event.status, statusMessage: event.statusMessage } }
            : c,
        ),
      }));
    case "run.parked":
      return { ...view, running: false };
    case "message.completed":
      return {
        ...editMessage(view, event.messageId, (m) => ({ ...m, content: event.content })),
        running: false,
      };
    case "run.failed":
      return { ...view, running: false, failure: { code: event.code, message: event.message } };
    default:
      return view;
  }
}

/**
 * `view`, a history just loaded, with the events that arrived while it loaded (a run started
 * just before the conversation opened: the first screen sends, then shows it). The history
 * may already hold any of them, so only what cannot count twice is applied: tool calls and
 * ends replace what they name (in order, so the newest wins), a created message is added
 * when the history lacks it, and text deltas only to a message added so (the history has
 * the others' text, or their completion brings it whole).
 */
export function caughtUp(view, events) {
  const added = new Set();
  return events.reduce((v, event) => {
    if (event.type === "message.delta" && !added.has(event.messageId)) return v;
    if (event.type === "message.created") {
      if (v.messages.some((m) => m.id === event.message.id)) return { ...v, running: true };
      added.add(event.message.id);
    }
    return applyEvent(v, event);
  }, view);
}

/**
 * `view` reloaded from `history` after its run ended: its `running` may still be true for
 * the moment the server takes to let go of the run after announcing its end. Why a run
 * failed is kept with its turn (`metadata.failure` of the last message); a failure only
 * announced (`run.failed`) and not found there stays shown.
 */
export function settled(view, history) {
  const messages = history.messages || [];
  const stored = messages[messages.length - 1]?.metadata?.failure;
  return { ...fromHistory(history), running: false, failure: stored ? null : (view?.failure ?? null) };
}

/**
 * A message with `delta` added to its current round, as the server stores it: the text of
 * each round in `metadata.rounds`, the content their non-empty texts joined.
 */
export function withDelta(message, delta) {
  const rounds = Array.isArray(message.metadata?.rounds) ? [...message.metadata.rounds] : [];
  const calls = message.toolCalls || [];
  // The round being written: the one after the last round that made calls.
  const current = Math.max(rounds.length - 1, ...calls.map((c) => c.round + 1), 0);
  while (rounds.length <= current) rounds.push("");
  rounds[current] += delta;
  const content = rounds.map((r) => r.trim()).filter(Boolean).join("\n\n");
  return { ...message, content, metadata: { ...message.metadata, rounds } };
}

/** Whether a call runs as a task: its turn waits for the task's end without a run. */
export function waitsOnTask(call) {
  return call.status === "invoking" && call.task != null;
}

/** The calls of the conversation's last turn that run as tasks (the turn waits on them). */
export function pendingTasks(view) {
  const last = view?.messages?.[view.messages.length - 1];
  if (!last || last.role !== "assistant") return [];
  return (last.toolCalls || []).filter(waitsOnTask);
}

/**
 * `next`, the view after `event` ended a call that ran as a task, with the turn running
 * again when no other call of it still waits on a task: the server goes on with the turn.
 */
function resumedBy(next, view, event) {
  const message = view.messages.find((m) => m.id === event.messageId);
  const before = message?.toolCalls?.find((c) => c.id === event.toolCall.id);
  if (!before || !waitsOnTask(before) || event.toolCall.status === "invoking") return next;
  if (pendingTasks(next).length > 0) return next;
  return { ...next, running: true };
}

/** Whether a call waits for the person to approve or reject it (never one Switchboard answers). */
export function awaitsDecision(call) {
  return call.status === "pending" && call.approved == null && ownCallKind(call) === null;
}

/**
 * An assistant message as the rounds it took: each round's text then the calls it made.
 * The stored `metadata.rounds` holds the finished rounds' texts; while an answer streams,
 * the text beyond them is the last round's.
 */
export function roundsOf(message) {
  const texts = Array.isArray(message.metadata?.rounds) ? [...message.metadata.rounds] : [];
  const calls = message.toolCalls || [];
  const joined = texts.map((t) => t.trim()).filter(Boolean).join("\n\n");
  const content = message.content || "";
  if (content.length > joined.length && content.startsWith(joined)) {
    const last = Math.max(texts.length, ...calls.map((c) => c.round + 1), 0);
    while (texts.length < last) texts.push("");
    texts.push(content.slice(joined.length).trim());
  }
  const count = Math.max(texts.length, ...calls.map((c) => c.round + 1), 0);
  const rounds = [];
  for (let i = 0; i < count; i++) {
    rounds.push({ text: texts[i] || "", calls: calls.filter((c) => c.round === i) });
  }
  return rounds;
}

function upsert(list, item) {
  const at = list.findIndex((x) => x.id === item.id);
  if (at < 0) return [...list, item];
  const copy = [...list];
  copy[at] = { ...copy[at], ...item };
  return copy;
}

function editMessage(view, id, edit) {
  const at = view.messages.findIndex((m) => m.id === id);
  if (at < 0) return view;
  const messages = [...view.messages];
  messages[at] = edit(messages[at]);
  return { ...view, messages };
}

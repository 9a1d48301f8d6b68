// A turn's life as the page shows it, besides the live events (state.js): a failed turn's
// stored failure, the "thinking" moment before the model says anything, and how the
// conversation looks the moment a turn is run again (retried, regenerated, or its message
// edited and sent again), before the run's own events arrive. Pure functions.

import { roundsOf } from "./state.js";

const TERMINAL = new Set(["done", "error", "cancelled"]);

/**
 * The failure a turn's message keeps (`metadata.failure`, served in the reader's language:
 * {code, message, hint}), or null.
 */
export function failureOf(message) {
  const failure = message?.metadata?.failure;
  if (!failure || typeof failure.code !== "string" || typeof failure.message !== "string") return null;
  return { code: failure.code, message: failure.message, hint: typeof failure.hint === "string" ? failure.hint : "" };
}

/**
 * Whether the model is being asked and has said nothing yet: a run goes on, and its turn has
 * no answer yet, or its last round has neither text nor a call still waiting or running
 * (the round after the calls' results).
 */
export function isThinking(view) {
  if (!view?.running) return false;
  const last = view.messages[view.messages.length - 1];
  if (!last) return false;
  if (last.role === "user") return true;
  if (last.role !== "assistant" || failureOf(last)) return false;
  const rounds = roundsOf(last);
  const round = rounds[rounds.length - 1];
  if (!round) return true;
  if (round.calls.length === 0) return !round.text;
  return round.calls.every((call) => TERMINAL.has(call.status));
}

/** The last message of the person's before the message `id` (what an answer answered). */
export function questionBefore(messages, id) {
  const at = messages.findIndex((m) => m.id === id);
  for (let i = at - 1; i >= 0; i--) if (messages[i].role === "user") return messages[i];
  return null;
}

/**
 * `view` as a fork at the message `id` leaves it, while the run it starts begins: the
 * messages after it gone, and the message itself too unless `keep` (an edited message is
 * replaced by the one its run announces).
 */
export function forked(view, id, { keep }) {
  const at = view.messages.findIndex((m) => m.id === id);
  if (at < 0) return view;
  return { ...view, running: true, failure: null, messages: view.messages.slice(0, keep ? at + 1 : at) };
}

/**
 * `view` as a retry of the failed turn `id` leaves it: the failure gone and a round that broke
 * off dropped (it is asked anew: `metadata.roundsDone` says which rounds finished), as the
 * server stores it.
 */
export function retrying(view, id) {
  const messages = view.messages.map((m) => {
    if (m.id !== id) return m;
    const metadata = { ...m.metadata };
    delete metadata.failure;
    const rounds = Array.isArray(metadata.rounds) ? metadata.rounds : null;
    const done = metadata.roundsDone;
    if (!rounds || typeof done !== "number" || rounds.length <= done) return { ...m, metadata };
    const kept = rounds.slice(0, done);
    const content = kept.map((r) => r.trim()).filter(Boolean).join("\n\n");
    return { ...m, content, metadata: { ...metadata, rounds: kept } };
  });
  return { ...view, running: true, failure: null, messages };
}

/** Whether `message` is the conversation's failed last turn, which Retry runs again. */
export function canRetry(view, message) {
  const last = view.messages[view.messages.length - 1];
  return !view.running && last?.id === message.id && failureOf(message) !== null;
}

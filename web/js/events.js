// The live event stream (GET /api/events) shared by every page.
//
// Read with fetch rather than EventSource: EventSource cannot send the Authorization header
// the API needs. The SSE framing is parsed here (a few lines; a library would be as large as
// the parser). On a dropped connection it reconnects with Last-Event-ID, so nothing is missed
// that the server still holds; when the server says `stream.reset`, listeners reload.

import { authHeaders } from "./api.js";

const listeners = new Set();
let started = false;
let lastId = "";
let controller = null;
let backoff = 500;

/** Calls `listener(event)` with each event's parsed data (with its `type`). */
export function subscribe(listener) {
  listeners.add(listener);
  if (!started) {
    started = true;
    run();
  }
  return () => listeners.delete(listener);
}

let wake = null;

/** Reconnects at once with the current token (after signing in or out). */
export function restart() {
  backoff = 500;
  controller?.abort();
  wake?.();
}

function emit(event) {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch (e) {
      console.error("event listener failed", e);
    }
  }
}

async function run() {
  for (;;) {
    controller = new AbortController();
    try {
      const headers = { ...authHeaders(), Accept: "text/event-stream" };
      if (lastId) headers["Last-Event-ID"] = lastId;
      const response = await fetch("/api/events", { headers, signal: controller.signal });
      if (response.ok && response.body) {
        backoff = 500;
        emit({ type: "stream.open" });
        await read(response.body);
      }
    } catch {
      // Dropped or aborted: reconnect below.
    }
    // Wait before reconnecting; restart() cuts the wait short.
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, backoff);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
    backoff = Math.min(backoff * 2, 10000);
  }
}

async function read(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      dispatch(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
    }
  }
}

function dispatch(block) {
  let id = null;
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") id = value;
    else if (field === "data") data.push(value);
  }
  if (id) lastId = id;
  if (data.length === 0) return;
  try {
    emit(JSON.parse(data.join("\n")));
  } catch {
    // Not JSON: not one of ours.
  }
}

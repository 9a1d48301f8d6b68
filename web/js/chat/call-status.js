// What a tool call's badge says: its status, but a call the person rejected says so rather
// than "cancelled" (the API keeps `cancelled` with `approved: false`).

/** The status word's key for `call` (`ui.call.status_<key>`). */
export function statusKey(call) {
  return call.status === "cancelled" && call.approved === false ? "rejected" : call.status;
}

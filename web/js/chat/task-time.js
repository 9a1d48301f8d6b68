// How long a call's task has been running, in words: pure, so the tool call's block
// (task-line.js) and its tests read the same time.

/** Whole seconds from `createdAt` (milliseconds since the epoch) to `now`; never below 0. */
export function elapsedSeconds(createdAt, now) {
  if (typeof createdAt !== "number" || typeof now !== "number") return 0;
  return Math.max(0, Math.floor((now - createdAt) / 1000));
}

/**
 * A duration of `seconds` as the locale key and values that say it: seconds under a
 * minute, minutes and seconds under an hour, hours and minutes past it.
 */
export function durationWords(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return ["ui.task.time_s", { s }];
  if (s < 3600) return ["ui.task.time_ms", { m: Math.floor(s / 60), s: s % 60 }];
  return ["ui.task.time_hm", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) }];
}

// The conversation list grouped by when each conversation was last active, as people know
// it from other chat apps: Today, Yesterday, Previous 7 days, Previous 30 days, then one
// group per month, newest first. Days are the reader's calendar days (local time), so a
// conversation from 23:50 yesterday is Yesterday, not Today, and a change of clocks
// (daylight saving) moves nothing. Pure: `now` is given.

const DAY = 24 * 60 * 60 * 1000;

/** Midnight (local time) of the day of `time`, in ms. */
function startOfDay(time) {
  const d = new Date(time);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** How many calendar days lie between the day of `time` and the day of `now` (0: the same). */
export function daysBefore(time, now) {
  return Math.round((startOfDay(now) - startOfDay(time)) / DAY);
}

/**
 * The group of a conversation last active at `time` (ms), seen at `now` (ms): "today",
 * "yesterday", "week" (2 to 7 days before), "month" (8 to 30 days before), else its month
 * as "YYYY-MM". A time after now (another machine's clock) is today.
 */
export function groupOf(time, now) {
  const days = daysBefore(time, now);
  if (days <= 0) return "today";
  if (days === 1) return "yesterday";
  if (days <= 7) return "week";
  if (days <= 30) return "month";
  const d = new Date(time);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}`;
}

/**
 * `conversations` (newest first, each with `updatedAt` in ms) in their groups, in the same
 * order: `[{key, items}]`, each group once. A conversation out of order (one that moved up
 * while the list was read) joins its group rather than opening a second one.
 */
export function groupByDate(conversations, now) {
  const groups = new Map();
  for (const conversation of conversations || []) {
    const key = groupOf(conversation.updatedAt, now);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(conversation);
  }
  return [...groups].map(([key, items]) => ({ key, items }));
}

/**
 * The heading of group `key`: the words of the four named ones from `words`
 * ({today, yesterday, week, month}), a month's name and year in `locale`.
 */
export function groupLabel(key, words, locale) {
  if (Object.prototype.hasOwnProperty.call(words, key)) return words[key];
  const [year, month] = key.split("-").map(Number);
  return new Intl.DateTimeFormat(locale, { year: "numeric", month: "long" }).format(new Date(year, month - 1, 1));
}

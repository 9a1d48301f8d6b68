// The conversation list grouped by date: Today, Yesterday, Previous 7 days, Previous 30
// days, then by month, counted in the reader's calendar days. "Now" is fixed, and so is the
// time zone (one with daylight saving, so a change of clocks is crossed on purpose).

process.env.TZ = "Europe/Berlin";

const { test } = await import("node:test");
const assert = (await import("node:assert/strict")).default;
const { daysBefore, groupByDate, groupLabel, groupOf } = await import("../../js/chat/date-groups.js");

// Tuesday 28 July 2026, 10:30 in Berlin.
const now = new Date(2026, 6, 28, 10, 30).getTime();
const at = (month, day, hour = 12, minute = 0) => new Date(2026, month - 1, day, hour, minute).getTime();

test("today and yesterday are calendar days, not 24-hour spans", () => {
  assert.equal(groupOf(at(7, 28, 0, 1), now), "today");
  assert.equal(groupOf(at(7, 28, 10, 29), now), "today");
  assert.equal(groupOf(at(7, 27, 23, 59), now), "yesterday", "eleven hours ago, but yesterday");
  assert.equal(groupOf(at(7, 27, 0, 0), now), "yesterday");
  assert.equal(groupOf(at(7, 26, 23, 59), now), "week");
});

test("the previous 7 days, then the previous 30, then each month", () => {
  assert.equal(groupOf(at(7, 21), now), "week", "7 days before");
  assert.equal(groupOf(at(7, 20), now), "month", "8 days before");
  assert.equal(groupOf(at(6, 28), now), "month", "30 days before");
  assert.equal(groupOf(at(6, 27), now), "2026-06", "31 days before");
  assert.equal(groupOf(at(1, 5), now), "2026-01");
  assert.equal(groupOf(new Date(2025, 11, 31, 23, 0).getTime(), now), "2025-12");
});

test("a time after now (another clock) is today", () => {
  assert.equal(groupOf(now + 60_000, now), "today");
  assert.equal(groupOf(at(7, 30), now), "today");
});

test("a change of clocks moves no day", () => {
  // Summer time began on 29 March 2026 at 02:00: that day had 23 hours.
  const after = new Date(2026, 2, 30, 0, 30).getTime();
  assert.equal(daysBefore(new Date(2026, 2, 29, 23, 30).getTime(), after), 1);
  assert.equal(daysBefore(new Date(2026, 2, 28, 23, 30).getTime(), after), 2);
  // And ended on 25 October 2026 at 03:00: that day had 25 hours.
  const autumn = new Date(2026, 9, 26, 0, 30).getTime();
  assert.equal(daysBefore(new Date(2026, 9, 25, 0, 30).getTime(), autumn), 1);
  assert.equal(daysBefore(new Date(2026, 9, 24, 23, 59).getTime(), autumn), 2);
});

test("a newest-first list becomes its groups in order, each group once", () => {
  const c = (id, updatedAt) => ({ id, updatedAt });
  const list = [
    c("a", at(7, 28, 9)),
    c("b", at(7, 27, 22)),
    c("c", at(7, 25)),
    c("d", at(7, 10)),
    c("e", at(5, 31)),
    c("f", at(5, 2)),
    c("g", new Date(2025, 11, 1).getTime()),
  ];
  const groups = groupByDate(list, now);
  assert.deepEqual(
    groups.map((g) => [g.key, g.items.map((i) => i.id)]),
    [["today", ["a"]], ["yesterday", ["b"]], ["week", ["c"]], ["month", ["d"]], ["2026-05", ["e", "f"]], ["2025-12", ["g"]]],
  );
  // One that moved up while the list was read joins its group.
  const moved = groupByDate([c("a", at(7, 28, 9)), c("d", at(7, 10)), c("x", at(7, 28, 8))], now);
  assert.deepEqual(moved.map((g) => [g.key, g.items.map((i) => i.id)]), [["today", ["a", "x"]], ["month", ["d"]]]);
  assert.deepEqual(groupByDate(null, now), []);
});

test("the named groups take the words given; a month is named in the reader's language", () => {
  const words = { today: "Today", yesterday: "Yesterday", week: "Previous 7 days", month: "Previous 30 days" };
  assert.equal(groupLabel("today", words, "en-US"), "Today");
  assert.equal(groupLabel("month", words, "en-US"), "Previous 30 days");
  assert.equal(groupLabel("2026-05", words, "en-US"), "May 2026");
  assert.equal(groupLabel("2025-12", words, "zh-Hans"), "2025年12月");
});

// The conversation list a page at a time: GET /api/conversations answers the newest page,
// and a full page says where the next one starts (`X-Next-Cursor`, taken back as `after`).

/** How many conversations a page holds. */
export const PAGE = 100;

/** The path of the page after `cursor` (the first page without one). */
export function pagePath(cursor) {
  const first = `/api/conversations?limit=${PAGE}`;
  return cursor ? `${first}&after=${encodeURIComponent(cursor)}` : first;
}

/**
 * The list shown once `page` is read after `shown` (null for the first page): the page's
 * conversations after those shown, none twice (one may have moved up meanwhile: the newest
 * copy, which came first, is kept).
 */
export function withPage(shown, page) {
  const seen = new Set((shown || []).map((c) => c.id));
  return [...(shown || []), ...page.filter((c) => !seen.has(c.id))];
}

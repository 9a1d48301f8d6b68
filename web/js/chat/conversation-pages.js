// The conversation list a page at a time: GET /api/conversations answers the newest page,
// and a full page says where the next one starts (`X-Next-Cursor`, taken back as `after`).
// A search (`q`: the title or a message holds the text) is paged the same way.

/** How many conversations a page holds. */
export const PAGE = 100;

/** The path of the page after `cursor` (the first page without one), of those `query` finds. */
export function pagePath(cursor, query = "") {
  let path = `/api/conversations?limit=${PAGE}`;
  const text = searchText(query);
  if (text) path += `&q=${encodeURIComponent(text)}`;
  return cursor ? `${path}&after=${encodeURIComponent(cursor)}` : path;
}

/** What a search box's `value` searches for: its text without the spaces around it ("": none). */
export function searchText(value) {
  return String(value ?? "").trim();
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

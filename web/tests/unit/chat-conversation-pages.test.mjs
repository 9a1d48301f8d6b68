// The conversation list read a page at a time.

import { test } from "node:test";
import assert from "node:assert/strict";
import { pagePath, searchText, withPage } from "../../js/chat/conversation-pages.js";

test("the first page has no cursor; the next ones take it as `after`", () => {
  assert.equal(pagePath(null), "/api/conversations?limit=100");
  assert.equal(pagePath("1795919110586:01a2"), "/api/conversations?limit=100&after=1795919110586%3A01a2");
});

test("a search asks for the text typed, without the spaces around it, on every page", () => {
  assert.equal(pagePath(null, "  Lisbon trip "), "/api/conversations?limit=100&q=Lisbon%20trip");
  assert.equal(pagePath("17:01a2", "100% & more"), "/api/conversations?limit=100&q=100%25%20%26%20more&after=17%3A01a2");
  assert.equal(pagePath(null, "   "), "/api/conversations?limit=100", "blank: no search");
  assert.equal(searchText(undefined), "");
});

test("a page goes after what is shown, and a conversation that moved is shown once", () => {
  const c = (id) => ({ id });
  assert.deepEqual(withPage(null, [c("a"), c("b")]), [c("a"), c("b")]);
  assert.deepEqual(withPage([c("a"), c("b")], [c("c"), c("d")]).map((x) => x.id), ["a", "b", "c", "d"]);
  // `b` was written to meanwhile: it moved to the first page, and the next page has it too.
  assert.deepEqual(withPage([c("b"), c("a")], [c("b"), c("c")]).map((x) => x.id), ["b", "a", "c"]);
});

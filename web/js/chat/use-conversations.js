// The conversation list as the chat page shows it: the newest page, the pages read after it
// with "More conversations", and the search that narrows it (the title or a message holds
// the text). Typing waits for a pause before it asks the API; when answers cross, only the
// one for what the box says now is shown.

import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { getPage } from "../api.js";
import { pagePath, searchText, withPage } from "./conversation-pages.js";

/** How long typing pauses before the list is searched, in ms. */
const PAUSE = 250;

/**
 * `{conversations, next, query, setQuery, shownFor, more, reload, error}`: `conversations`
 * is null until the first page is read; `next` is the cursor of the page after (null on the
 * last one); `query` is what the search box says, and `shownFor` the text the conversations
 * shown were found by ("" for none).
 */
export function useConversations() {
  const [query, setQuery] = useState("");
  const [searching, setSearching] = useState("");
  const [list, setList] = useState({ items: null, next: null, text: "" });
  const [error, setError] = useState(null);
  const latest = useRef(0);

  const read = async (text, cursor, shown) => {
    const ticket = ++latest.current;
    try {
      const page = await getPage(pagePath(cursor, text));
      if (ticket !== latest.current) return;
      setList({ items: withPage(shown, page.items), next: page.next, text });
      setError(null);
    } catch (e) {
      if (ticket === latest.current) setError(e);
    }
  };

  useEffect(() => {
    const text = searchText(query);
    if (text === searching) return undefined;
    const timer = setTimeout(() => setSearching(text), PAUSE);
    return () => clearTimeout(timer);
  }, [query]);
  useEffect(() => {
    read(searching, null, null);
  }, [searching]);

  return {
    conversations: list.items,
    next: list.next,
    query,
    setQuery,
    shownFor: list.text,
    more: () => read(searching, list.next, list.items),
    reload: () => read(searching, null, null),
    error,
  };
}

// The side list of conversations: a search box (the title or a message holds the text), the
// conversations grouped by when they were last active (date-groups.js), and "More
// conversations" while there are more pages.

import { html } from "../html.js";
import { locale, t } from "../i18n.js";
import { follow } from "../router.js";
import { groupByDate, groupLabel } from "./date-groups.js";

const SEARCH_ID = "conversation-search";

/**
 * `list` is what useConversations answers; `current` the open conversation's id; `onChoose`
 * is told when the person opens one (after the navigation).
 */
export function ConversationList({ list, current, onChoose }) {
  const { conversations, next, query, setQuery, shownFor, more } = list;
  const words = {
    today: t("ui.chat.group_today"),
    yesterday: t("ui.chat.group_yesterday"),
    week: t("ui.chat.group_week"),
    month: t("ui.chat.group_month"),
  };
  const groups = groupByDate(conversations, Date.now());
  const open = (event) => {
    follow(event);
    onChoose?.();
  };
  return html`<div class="conversation-list" data-results-for=${shownFor}>
    <div class="conversation-search" role="search">
      <label for=${SEARCH_ID} class="visually-hidden">${t("ui.chat.search")}</label>
      <input id=${SEARCH_ID} type="search" placeholder=${t("ui.chat.search")} value=${query} autocomplete="off"
        onInput=${(e) => setQuery(e.currentTarget.value)} />
    </div>
    ${groups.map((group) => {
      const heading = `conversation-group-${group.key}`;
      return html`<section key=${group.key} class="conversation-group" data-group=${group.key} aria-labelledby=${heading}>
        <h2 id=${heading}>${groupLabel(group.key, words, locale())}</h2>
        <ul>
          ${group.items.map((c) => html`<li key=${c.id}>
            <a href=${`/chat/${c.id}`} onClick=${open} aria-current=${c.id === current ? "page" : undefined}>
              ${c.title || t("ui.chat.new_conversation")}</a>
          </li>`)}
        </ul>
      </section>`;
    })}
    ${conversations && conversations.length === 0 && shownFor
      ? html`<p class="muted small no-match" role="status">${t("ui.chat.no_match", { text: shownFor })}</p>`
      : null}
    ${next
      ? html`<button type="button" class="more-conversations" onClick=${more}>${t("ui.chat.more_conversations")}</button>`
      : null}
  </div>`;
}

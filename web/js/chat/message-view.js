// One message: the person's (user-message.js: their text, the prompt and resources it
// carried), or the assistant's rounds with their tool calls inline, after the servers the
// turn was started without (left-out.js).

import { html } from "../html.js";
import { useMemo } from "../../vendor/hooks.js";
import { renderMarkdown } from "../markdown.js";
import { t } from "../i18n.js";
import { LeftOut } from "./left-out.js";
import { roundsOf } from "./state.js";
import { ToolCallBlock } from "./tool-call-block.js";
import { UserMessage } from "./user-message.js";

export function MessageView({ message }) {
  if (message.role === "user") return html`<${UserMessage} message=${message} />`;
  if (message.role !== "assistant") return null;
  return html`<article class="message assistant" data-message-id=${message.id} aria-label=${t("ui.message.assistant")}>
    <${LeftOut} message=${message} />
    ${roundsOf(message).map(
      (round, i) => html`<div class="round" key=${i}>
        ${round.text ? html`<${Markdown} text=${round.text} />` : null}
        ${round.calls.map((call) => html`<${ToolCallBlock} key=${call.id} call=${call} messageId=${message.id} />`)}
      </div>`,
    )}
  </article>`;
}

function Markdown({ text }) {
  // Rendered again only when this text changed, not on every delta of another round.
  const rendered = useMemo(() => renderMarkdown(text), [text]);
  return html`<div class="markdown" dangerouslySetInnerHTML=${{ __html: rendered }}></div>`;
}

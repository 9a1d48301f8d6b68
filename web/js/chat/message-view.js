// One message: the person's (user-message.js: their text, the prompt and resources it
// carried, Edit), or the assistant's rounds with their tool calls inline (the searches and
// reads Switchboard answered itself, and a provider's own tool searches, as own-call-block.js
// shows them), after the servers the turn was started without (left-out.js), its failure if
// the turn failed (turn-failure.js: Retry on the last one), Copy and Regenerate. `turn` holds what the conversation lets a
// message do: {running, answering, onResend, onRegenerate, onRetry, canRetry}.

import { html } from "../html.js";
import { useMemo, useState } from "../../vendor/hooks.js";
import { renderMarkdown } from "../markdown.js";
import { t } from "../i18n.js";
import { LeftOut } from "./left-out.js";
import { roundsOf } from "./state.js";
import { failureOf } from "./turns.js";
import { MessageActions } from "./message-actions.js";
import { OwnCallBlock } from "./own-call-block.js";
import { nativeSearchesOf, ownCallKind } from "./own-calls.js";
import { ToolCallBlock } from "./tool-call-block.js";
import { TurnFailure } from "./turn-failure.js";
import { UserMessage } from "./user-message.js";

export function MessageView({ message, turn }) {
  if (message.role === "user") return html`<${UserMessage} message=${message} turn=${turn} />`;
  if (message.role !== "assistant") return null;
  const failure = failureOf(message);
  return html`<article class="message assistant" data-message-id=${message.id} aria-label=${t("ui.message.assistant")}>
    <${LeftOut} message=${message} />
    ${roundsOf(message).map(
      (round, i) => html`<div class="round" key=${i}>
        ${round.text ? html`<${Markdown} text=${round.text} />` : null}
        ${nativeSearchesOf(message, i).map((call) => html`<${OwnCallBlock} key=${call.id} call=${call} />`)}
        ${round.calls.map((call) => ownCallKind(call)
          ? html`<${OwnCallBlock} key=${call.id} call=${call} />`
          : html`<${ToolCallBlock} key=${call.id} call=${call} messageId=${message.id} />`)}
      </div>`,
    )}
    ${failure ? html`<${Failure} failure=${failure} message=${message} turn=${turn} />` : null}
    ${turn && !turn.answering(message) && (message.content || !failure)
      ? html`<${MessageActions} text=${message.content || ""}>
          <button type="button" class="quiet" data-action="regenerate" disabled=${turn.running}
            onClick=${() => turn.onRegenerate(message.id)}>${t("ui.message.regenerate")}</button>
        </${MessageActions}>`
      : null}
  </article>`;
}

function Failure({ failure, message, turn }) {
  const [busy, setBusy] = useState(false);
  const retry = turn?.canRetry(message)
    ? async () => {
        setBusy(true);
        try {
          await turn.onRetry(message.id);
        } finally {
          setBusy(false);
        }
      }
    : null;
  return html`<${TurnFailure} failure=${failure} onRetry=${retry} busy=${busy} />`;
}

function Markdown({ text }) {
  // Rendered again only when this text changed, not on every delta of another round.
  const rendered = useMemo(() => renderMarkdown(text), [text]);
  return html`<div class="markdown" dangerouslySetInnerHTML=${{ __html: rendered }}></div>`;
}

// The message box, of an open conversation and of the first screen alike: the text, the
// resources attached to it (Attach opens resource-picker.js; chips above the box), and
// prompts as slash commands (a "/" opens their list above the box; the chosen one's
// arguments are asked there). Enter sends, through `onSend(body, title, options)`, which
// answers whether it was sent; then the box, chips and prompt clear. While the conversation's
// last turn waits on tasks (`tasksPending`), the box stays usable: it says so, offers to
// cancel them (`onStop`), and a message sent asks whether to wait for them (it is kept here
// and sent once the turn has ended) or to cancel them and send it now
// (`options.cancelTasks`). The servers of the assistant
// (`assistantId`), and their prompts, are loaded when first needed and kept until another
// assistant is chosen (on the first screen): then what was taken from a server the new one
// does not use is dropped.

import { html } from "../html.js";
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";
import { MAX_ATTACHMENTS, withAttachment, withoutAttachment } from "./attachments.js";
import { ComposerChips } from "./attachment-chips.js";
import { canSend, composeMessage, titleOf } from "./compose.js";
import { ResourcePicker } from "./resource-picker.js";
import { loadConversationServers, loadPrompts } from "./server-content.js";
import { afterCommand, filterPrompts, promptEntries, slashQuery } from "./slash.js";
import { PromptForm, SlashList, optionId } from "./slash-list.js";
import { sendsOnKey } from "./start.js";
import { TasksNote } from "./tasks-note.js";

const LIST_ID = "slash-list";
const paperclip = html`<svg class="icon-clip" aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="16" height="16"
  fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
  <path d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9" />
</svg>`;
const PICKER_ID = "resource-picker";

/**
 * `inputId` names the text box (one box per page); `autoFocus` gives it the focus at once;
 * `hintId` names what describes it; `waiting` holds sending back (the first screen, while
 * the assistants load).
 */
export function Composer({ assistantId, assistants, running, onSend, onStop, inputId = "composer-input", autoFocus = false,
  hintId, waiting = false, tasksPending = 0 }) {
  const [draft, setDraft] = useState("");
  const [sending, setSending] = useState(false);
  // A message written while tasks run: {body, title} while the person chooses, then kept
  // until the turn has ended.
  const [choosing, setChoosing] = useState(null);
  const [queued, setQueued] = useState(null);
  const [attachments, setAttachments] = useState([]);
  const [picking, setPicking] = useState(false);
  const [prompt, setPrompt] = useState(null); // {entry, values}
  const [missing, setMissing] = useState([]);
  const [loaded, setLoaded] = useState(null); // the prompts: null until loaded, {groups} or {error}
  const [dismissed, setDismissed] = useState(false);
  const [active, setActive] = useState(0);
  const box = useRef(null);
  const attach = useRef(null);
  const servers = useRef(null);
  const promptsAsked = useRef(false);
  const focusArgs = useRef(false);

  useEffect(() => {
    if (autoFocus) box.current?.focus();
  }, []);

  const loadServers = () => {
    servers.current ??= loadConversationServers(assistantId, assistants).catch((e) => {
      servers.current = null;
      throw e;
    });
    return servers.current;
  };

  // Another assistant: its servers are read anew, and what came from the old one's goes.
  const forAssistant = useRef(assistantId);
  useEffect(() => {
    if (forAssistant.current === assistantId) return;
    forAssistant.current = assistantId;
    servers.current = null;
    promptsAsked.current = false;
    setLoaded(null);
    setPicking(false);
    if (attachments.length === 0 && !prompt) return;
    loadServers().then((list) => {
      const kept = new Set(list.map((s) => s.id));
      setAttachments((now) => now.filter((a) => kept.has(a.serverId)));
      setPrompt((now) => (now && !kept.has(now.entry.serverId) ? null : now));
    }, () => {});
  }, [assistantId]);

  const query = slashQuery(draft);
  const listOpen = query !== null && !dismissed;
  const matches = listOpen && loaded?.groups ? filterPrompts(promptEntries(loaded.groups), query) : [];
  const current = Math.min(active, Math.max(matches.length - 1, 0));

  useEffect(() => {
    if (!listOpen || promptsAsked.current) return;
    promptsAsked.current = true;
    const asked = assistantId;
    loadServers()
      .then(loadPrompts)
      .then((groups) => forAssistant.current === asked && setLoaded({ groups }), (error) => {
        if (forAssistant.current !== asked) return;
        promptsAsked.current = false;
        setLoaded({ error });
      });
  }, [listOpen, assistantId]);

  useEffect(() => {
    if (!focusArgs.current) return;
    focusArgs.current = false;
    (document.querySelector(".prompt-form .prompt-arg") || box.current)?.focus();
  }, [prompt]);

  const choose = (entry) => {
    setPrompt({ entry, values: {} });
    setMissing([]);
    setDraft(afterCommand(draft, entry));
    setActive(0);
    focusArgs.current = true;
  };
  const dropPrompt = () => {
    setPrompt(null);
    setMissing([]);
    box.current?.focus();
  };
  const onAttach = (item) => {
    const { list, refused } = withAttachment(attachments, item);
    if (!refused) setAttachments(list);
    return refused;
  };
  const closePicker = () => {
    setPicking(false);
    attach.current?.focus();
  };

  const cleared = () => {
    setDraft("");
    setAttachments([]);
    setPrompt(null);
    setPicking(false);
    setDismissed(false);
  };
  const deliver = async ({ body, title }, options) => {
    setSending(true);
    const sent = await onSend(body, title, options);
    setSending(false);
    return sent;
  };
  const send = async (event) => {
    event.preventDefault();
    if (sending || running || waiting || queued) return;
    const { body, missing: left } = composeMessage({ draft, attachments, prompt });
    setMissing(left ?? []);
    if (!body) return;
    const message = { body, title: titleOf(body, prompt) };
    if (tasksPending > 0) {
      setChoosing(message);
      return;
    }
    if (await deliver(message)) cleared();
  };
  const waitForTasks = () => {
    setQueued(choosing);
    setChoosing(null);
    cleared();
  };
  const cancelAndSend = async () => {
    const message = choosing || queued;
    setChoosing(null);
    setQueued(null);
    if (await deliver(message, { cancelTasks: true })) cleared();
  };
  // The kept message goes once the turn has ended: no task left, no run answering.
  useEffect(() => {
    if (!queued || tasksPending > 0 || running || sending) return;
    const message = queued;
    setQueued(null);
    deliver(message);
  }, [queued, tasksPending, running, sending]);

  const keys = (event) => {
    if (listOpen) {
      const n = matches.length;
      if (event.key === "ArrowDown" && n) {
        event.preventDefault();
        setActive((current + 1) % n);
        return;
      }
      if (event.key === "ArrowUp" && n) {
        event.preventDefault();
        setActive((current - 1 + n) % n);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setDismissed(true);
        return;
      }
      if (sendsOnKey(event) && (n || loaded === null)) {
        // Enter picks the active prompt; while the list loads, it waits for it.
        event.preventDefault();
        if (n) choose(matches[current]);
        return;
      }
    } else if (event.key === "Escape" && prompt) {
      event.preventDefault();
      dropPrompt();
      return;
    }
    if (sendsOnKey(event)) send(event);
  };
  const typed = (event) => {
    const value = event.currentTarget.value;
    if (slashQuery(value) === null) setDismissed(false);
    if (slashQuery(value) !== slashQuery(draft)) setActive(0);
    setDraft(value);
  };

  const missingNote = missing.length ? t("ui.slash.missing", { names: missing.join(", ") }) : "";
  return html`<div class="composer-area">
    ${picking
      ? html`<${ResourcePicker} id=${PICKER_ID} loadServers=${loadServers} attachments=${attachments}
          onAttach=${onAttach} onClose=${closePicker} />`
      : null}
    <form class="composer" novalidate onSubmit=${send}>
      ${listOpen
        ? html`<${SlashList} id=${LIST_ID} loaded=${loaded} entries=${matches} active=${current} onChoose=${choose} />`
        : null}
      ${prompt
        ? html`<${PromptForm} entry=${prompt.entry} values=${prompt.values} missing=${missing}
            onValues=${(values) => setPrompt({ ...prompt, values })} onRemove=${dropPrompt} onEscape=${dropPrompt} />`
        : null}
      <${ComposerChips} attachments=${attachments}
        onRemove=${(a) => setAttachments(withoutAttachment(attachments, a.serverId, a.uri))} />
      ${missingNote ? html`<p class="error composer-problem" role="alert">${missingNote}</p>` : null}
      <${TasksNote} tasksPending=${running ? 0 : tasksPending} choosing=${choosing} queued=${queued}
        onWait=${waitForTasks} onCancelAndSend=${cancelAndSend} onBack=${() => setChoosing(null)}
        onDrop=${() => setQueued(null)} onCancelTasks=${onStop} />
      <div class="composer-row">
        <button type="button" class="attach-button" ref=${attach} aria-expanded=${picking} aria-controls=${PICKER_ID}
          title=${t("ui.attach.hint", { max: MAX_ATTACHMENTS })}
          onClick=${() => (picking ? closePicker() : setPicking(true))}>${paperclip}<span class="attach-label">${t("ui.attach.button")}</span></button>
        <label for=${inputId} class="visually-hidden">${t("ui.chat.message")}</label>
        <textarea id=${inputId} ref=${box} aria-describedby=${hintId} rows="2" placeholder=${prompt ? t("ui.slash.placeholder") : t("ui.chat.placeholder_slash")}
          value=${draft} aria-autocomplete="list" aria-controls=${listOpen ? LIST_ID : undefined}
          aria-activedescendant=${listOpen && matches.length ? optionId(LIST_ID, current) : undefined}
          onInput=${typed} onKeyDown=${keys}></textarea>
        ${running
          ? html`<button type="button" class="danger" onClick=${onStop}>${t("ui.chat.stop")}</button>`
          : html`<button type="submit" class="primary" disabled=${sending || waiting || Boolean(queued) || !canSend(draft, prompt)}>${t("ui.chat.send")}</button>`}
      </div>
    </form>
  </div>`;
}

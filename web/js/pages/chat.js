// The chat page: conversations on the side, the open one's messages with their tool calls,
// a box to write in, and Stop while a run answers; with none open, the first screen's box
// (js/chat/start-panel.js) starts one. Both boxes (js/chat/composer.js) attach resources and
// use prompts as slash commands. Live events update what is shown; a missed stretch
// (stream.reset) or the end of a run reloads it from the API. A message can be copied, the
// person's edited and sent again, an answer regenerated and a failed turn retried
// (js/chat/turns.js). A turn that waits on tasks (tool calls running as tasks) leaves the
// box usable (js/chat/tasks-note.js). On a phone's width the list of conversations is a drawer
// (js/chat/drawer.js) that its button opens.

import { html } from "../html.js";
import { useCallback, useEffect, useRef, useState } from "../../vendor/hooks.js";
import { del, get, patch, post, seg } from "../api.js";
import { t } from "../i18n.js";
import { subscribe } from "../events.js";
import { navigate } from "../router.js";
import { applyEvent, awaitsDecision, caughtUp, fromHistory, pendingTasks, settled } from "../chat/state.js";
import { LAST_ASSISTANT_KEY, preselect } from "../chat/start.js";
import { ConversationList } from "../chat/conversation-list.js";
import { ConversationTitle } from "../chat/conversation-title.js";
import { DrawerButton, useDrawer } from "../chat/drawer.js";
import { useConversations } from "../chat/use-conversations.js";
import { AssistantSelect, StartPanel } from "../chat/start-panel.js";
import { Composer } from "../chat/composer.js";
import { MessageView } from "../chat/message-view.js";
import { canRetry, failureOf, forked, isThinking, questionBefore, retrying } from "../chat/turns.js";
import { Thinking, TurnFailure } from "../chat/turn-failure.js";
import { asksQuestion } from "../chat/question.js";
import { VariablesPanel } from "../chat/variables-panel.js";
import { ChatSettingsPanel, ModelPicker } from "../chat/chat-settings.js";
import { ErrorNote } from "../ui/error-note.js";

export function ChatPage({ conversationId }) {
  const list = useConversations();
  const loadList = list.reload;
  const [error, setError] = useState(null);
  const drawer = useDrawer(conversationId);
  // null until loaded: the first screen sends nothing before it knows whom it talks to.
  const [assistants, setAssistants] = useState(null);
  useEffect(() => {
    get("/api/assistants").then(setAssistants, setError);
  }, []);
  // The assistant a new conversation talks to: the person's pick, else the last one used.
  const [picked, setPicked] = useState(null);
  const assistantId = picked ?? preselect(assistants, localStorage.getItem(LAST_ASSISTANT_KEY));
  const opened = (conversation) => {
    localStorage.setItem(LAST_ASSISTANT_KEY, assistantId);
    loadList();
    navigate(`/chat/${conversation.id}`);
  };
  return html`<div class="chat-layout">
    <div class="chat-bar">
      <${DrawerButton} drawer=${drawer} />
    </div>
    <aside id=${drawer.id} class=${drawer.open ? "conversations open" : "conversations"} tabindex="-1"
      aria-label=${t("ui.chat.conversations")}>
      <${NewChat} assistantId=${assistantId} onCreated=${opened}>
        ${conversationId
          ? html`<${AssistantSelect} id="new-chat-assistant" assistants=${assistants} value=${assistantId} onChange=${setPicked} />`
          : null}
      </${NewChat}>
      <${ConversationList} list=${list} current=${conversationId} onChoose=${drawer.close} />
      <${ErrorNote} error=${list.error} />
      <${ErrorNote} error=${error} />
    </aside>
    ${drawer.open ? html`<div class="drawer-backdrop" onClick=${drawer.dismiss}></div>` : null}
    ${conversationId
      ? html`<${Conversation} key=${conversationId} id=${conversationId} assistants=${assistants || []}
          onChanged=${loadList} />`
      : html`<${StartPanel} assistants=${assistants} assistantId=${assistantId} onAssistant=${setPicked}
          onStarted=${opened} onChanged=${loadList} />`}
  </div>`;
}

/**
 * A conversation with nothing in it yet, with the chosen assistant (to set its variables
 * before writing). Its assistant is chosen beside it (`children`), or on the first screen,
 * where the choice sits above the message box.
 */
function NewChat({ assistantId, onCreated, children }) {
  const [error, setError] = useState(null);
  const create = async (event) => {
    event.preventDefault();
    setError(null);
    try {
      const body = assistantId ? { assistantId } : {};
      onCreated(await post("/api/conversations", body));
    } catch (e) {
      setError(e);
    }
  };
  return html`<form class="new-chat" onSubmit=${create}>
    ${children}
    <button type="submit" class="primary">${t("ui.chat.new_chat")}</button>
    <${ErrorNote} error=${error} />
  </form>`;
}

function Conversation({ id, assistants, onChanged }) {
  const [view, setView] = useState(null);
  const [error, setError] = useState(null);
  const [showVariables, setShowVariables] = useState(false);
  const [showSettings, setShowSettings] = useState(false);
  const end = useRef(null);

  // Reloads may overlap (mount, reconnect, end of a run): only the latest one's answer is
  // shown, so an older snapshot never replaces a newer one. Events that come before the
  // first history is shown (a run the first screen just started) are kept for it: caughtUp.
  const latest = useRef(0);
  const shown = useRef(false);
  const early = useRef([]);
  const reload = useCallback(async (after = fromHistory) => {
    const ticket = ++latest.current;
    try {
      const history = await get(`/api/conversations/${seg(id)}`);
      if (ticket !== latest.current) return;
      if (shown.current) {
        setView((v) => after(history, v));
        return;
      }
      shown.current = true;
      const events = early.current;
      early.current = [];
      setView(caughtUp(after(history, null), events));
    } catch (e) {
      setError(e);
    }
  }, [id]);

  useEffect(() => {
    reload();
    return subscribe((event) => {
      if (event.type === "stream.reset" || event.type === "stream.open") {
        reload();
        return;
      }
      if (!shown.current) {
        if (event.conversationId === id) early.current.push(event);
      } else {
        setView((v) => applyEvent(v, event));
      }
      if (event.conversationId === id && (event.type === "message.completed" || event.type === "run.failed")) {
        reload((history, v) => settled(v, history));
        onChanged();
      }
    });
  }, [id]);

  // Follow the answer as it grows, unless the person scrolled up to read.
  const messages = useRef(null);
  const pinned = useRef(true);
  const onScroll = () => {
    const box = messages.current;
    if (box) pinned.current = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  };
  useEffect(() => {
    if (pinned.current) end.current?.scrollIntoView({ block: "end" });
  }, [view]);

  // Sends what the message box composed (js/chat/composer.js); answers whether it was sent.
  // With `cancelTasks`, the tasks the last turn waits on are cancelled first.
  const send = async (body, title, options) => {
    if (view?.running) return false;
    setError(null);
    setView((v) => (v ? { ...v, failure: null } : v));
    pinned.current = true;
    try {
      const sent = options?.cancelTasks ? { ...body, onPendingTask: "cancel" } : body;
      await post(`/api/conversations/${seg(id)}/messages`, sent);
    } catch (e) {
      setError(e);
      // The turn waits on tasks this page did not know of: show them.
      if (e.code === "TASK_PENDING") reload();
      return false;
    }
    if (!view.title && view.messages.length === 0) {
      // A new conversation is named after its first message.
      try {
        await patch(`/api/conversations/${seg(id)}`, { title });
        setView((v) => (v ? { ...v, title } : v));
        onChanged();
      } catch (e) {
        setError(e);
      }
    }
    return true;
  };
  // A turn run again (Retry, Regenerate, an edited message sent): the page shows the
  // conversation as the server leaves it at once, and a reload still under way from before
  // is not let to bring the old messages back; the run's events follow. A refusal shows why,
  // and the conversation as stored. Answers whether it was sent.
  const again = async (shown, path, body) => {
    if (view?.running) return false;
    setError(null);
    pinned.current = true;
    latest.current++;
    setView((v) => (v ? shown(v) : v));
    try {
      await post(path, body);
      return true;
    } catch (e) {
      setError(e);
      reload();
      return false;
    }
  };
  const turn = {
    running: Boolean(view?.running),
    answering: (message) => Boolean(view?.running) && view.messages[view.messages.length - 1]?.id === message.id,
    canRetry: (message) => canRetry(view, message),
    onRetry: (messageId) => again((v) => retrying(v, messageId), `/api/conversations/${seg(id)}/retry`),
    onResend: (messageId, content) =>
      again((v) => forked(v, messageId, { keep: false }), `/api/messages/${seg(messageId)}/resend`, { content }),
    onRegenerate: (messageId) => {
      const question = questionBefore(view.messages, messageId);
      const shown = (v) => (question ? forked(v, question.id, { keep: true }) : v);
      return again(shown, `/api/messages/${seg(messageId)}/regenerate`);
    },
  };
  const stop = async () => {
    try {
      await post(`/api/conversations/${seg(id)}/cancel`);
    } catch (e) {
      // 409: the run ended meanwhile; show what it left.
      if (e.status === 409) reload((history, v) => settled(v, history));
      else setError(e);
    }
  };
  const remove = async () => {
    if (!confirm(t("ui.chat.confirm_delete"))) return;
    try {
      await del(`/api/conversations/${seg(id)}`);
      onChanged();
      navigate("/");
    } catch (e) {
      setError(e);
    }
  };

  // A chat's own settings as stored (js/chat/chat-settings.js), kept in the view.
  const keepSettings = (stored) =>
    setView((v) => (v ? { ...v, model: stored.model, systemPrompt: stored.systemPrompt, temperature: stored.temperature } : v));

  if (!view) return html`<section class="conversation"><p aria-busy="true">${t("ui.common.loading")}</p><${ErrorNote} error=${error} /></section>`;
  const assistant = assistants.find((a) => a.id === view.assistantId);
  return html`<section class="conversation" aria-label=${t("ui.chat.conversation")}>
    <header class="conversation-head">
      <${ConversationTitle} id=${id} title=${view.title}
        onRenamed=${(saved) => { setView((v) => (v ? { ...v, title: saved.title } : v)); onChanged(); }} />
      ${assistant ? html`<span class="muted">${t("ui.chat.with", { name: assistant.name })}</span>` : null}
      <${ModelPicker} conversation=${view} onSaved=${keepSettings} />
      <button type="button" class="quiet" aria-expanded=${showSettings} aria-controls="chat-settings"
        onClick=${() => setShowSettings(!showSettings)}>${t("ui.chat.settings")}</button>
      <button type="button" class="quiet" aria-expanded=${showVariables} aria-controls="conversation-variables"
        onClick=${() => setShowVariables(!showVariables)}>${t("ui.chat.variables_n", { count: Object.keys(view.variables || {}).length })}</button>
      <button type="button" class="quiet" onClick=${remove}>${t("ui.common.delete")}</button>
    </header>
    ${showSettings ? html`<${ChatSettingsPanel} conversation=${view} onSaved=${keepSettings} />` : null}
    ${showVariables
      ? html`<${VariablesPanel} conversationId=${id} variables=${view.variables}
          onSaved=${(variables) => setView((v) => (v ? { ...v, variables } : v))} />`
      : null}
    <p class="visually-hidden" role="status">${announcement(view)}</p>
    <div class="messages" ref=${messages} onScroll=${onScroll}>
      ${view.messages.map((m) => html`<${MessageView} key=${m.id} message=${m} turn=${turn} />`)}
      ${isThinking(view) ? html`<${Thinking} />` : null}
      ${view.failure ? html`<${TurnFailure} failure=${view.failure} />` : null}
      <div ref=${end}></div>
    </div>
    <${Composer} assistantId=${view.assistantId} assistants=${assistants} running=${view.running}
      tasksPending=${pendingTasks(view).length} onSend=${send} onStop=${stop} />
    <${ErrorNote} error=${error} />
  </section>`;
}

/** What a screen reader is told of the run: once per change, not every word streamed. */
function announcement(view) {
  const failure = view.failure || failureOf(view.messages[view.messages.length - 1]);
  if (failure) return t("ui.chat.failed", { message: failure.message });
  const calls = view.messages.flatMap((m) => m.toolCalls || []);
  const waiting = calls.filter(awaitsDecision).length;
  if (waiting) return t(waiting === 1 ? "ui.chat.waiting_one" : "ui.chat.waiting_many", { count: waiting });
  const asking = calls.filter(asksQuestion).length;
  if (asking) return t(asking === 1 ? "ui.chat.question_one" : "ui.chat.question_many", { count: asking });
  const tasks = view.running ? 0 : pendingTasks(view).length;
  if (tasks) return t(tasks === 1 ? "ui.chat.tasks_waiting_one" : "ui.chat.tasks_waiting_many", { count: tasks });
  return view.running ? t("ui.chat.answering") : "";
}

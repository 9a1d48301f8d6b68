// A server asking the assistant's model in the middle of a tool call (MCP sampling,
// `sampling/createMessage`), the pure half: whether the person is asked to review it, the
// draft they edit, the body of their answer (POST /api/messages/{id}/tool-calls/{callId}/answer,
// as for a server's question) and the line shown once it is decided. sampling-block.js
// renders it.
//
// It is reviewed in two stages, each a question with `mode: "sampling"`: at "request" the
// person sees what the server would send to the model (its messages and system prompt, which
// they may edit) and sends it or rejects it; at "answer" they see the model's draft, may edit
// it, and return it to the server or reject it. A server whose setting answers its sampling
// without asking (`sampling.auto`) is never reviewed: its block only says so.

import { t } from "../i18n.js";

/** The sampling request `call` waits for the person to review, or null. */
export function openSampling(call) {
  const question = call?.question;
  if (call?.status !== "invoking" || !question || question.answer != null) return null;
  if (question.mode !== "sampling" || question.sampling?.auto) return null;
  return question;
}

/** The review's stage: "answer" once the model has answered, else "request". */
export function samplingStage(question) {
  return question?.sampling?.stage === "answer" ? "answer" : "request";
}

/** The messages of a request as shown: `[{role, text}]`, any missing text as "". */
export function samplingMessages(question) {
  const messages = question?.sampling?.messages;
  return (Array.isArray(messages) ? messages : []).map((m) => ({
    role: m?.role === "assistant" ? "assistant" : "user",
    text: typeof m?.text === "string" ? m.text : "",
  }));
}

/** What the person edits, before they touch it: each message's text, the system prompt, the model's answer. */
export function samplingDraft(question) {
  const s = question?.sampling || {};
  return {
    texts: samplingMessages(question).map((m) => m.text),
    systemPrompt: typeof s.systemPrompt === "string" ? s.systemPrompt : "",
    answer: typeof s.answer === "string" ? s.answer : "",
  };
}

/** Whether the person changed the request's messages or system prompt. */
export function requestEdited(question, draft) {
  const original = samplingDraft(question);
  if (draft.systemPrompt !== original.systemPrompt) return true;
  return draft.texts.length !== original.texts.length || draft.texts.some((text, i) => text !== original.texts[i]);
}

/**
 * The answer's request body for `action` ("accept", "decline" or "cancel") given the
 * person's `draft`. Accepting a request sends it as the server asked (no content) unless it
 * was edited: then the messages and system prompt as edited (the system prompt only when the
 * server gave one or the person wrote one; emptied, it is null). Accepting the model's answer
 * returns its text, as edited.
 */
export function samplingBody(question, action, draft = samplingDraft(question)) {
  const body = { questionId: question.id, action };
  if (action !== "accept") return body;
  if (samplingStage(question) === "answer") {
    body.content = { text: draft.answer };
    return body;
  }
  if (!requestEdited(question, draft)) return body;
  const messages = samplingMessages(question).map((m, i) => ({ role: m.role, text: draft.texts[i] ?? m.text }));
  const content = { messages };
  const hadOne = typeof question.sampling?.systemPrompt === "string";
  const written = draft.systemPrompt.trim() ? draft.systemPrompt : null;
  // null takes away the server's; none given and none written sends no key.
  if (hadOne || written !== null) content.systemPrompt = written;
  body.content = content;
  return body;
}

/**
 * The line that replaces the review once decided (`answer` as stored, or as the reply gave
 * it), or null while it waits. A request sent on while the call still runs waits for the
 * model's answer; sampling answered without asking says so.
 */
export function samplingLine(call, answer) {
  const question = call?.question;
  const model = question?.sampling?.model || t("ui.sampling.the_model");
  if (question?.sampling?.auto) return t("ui.sampling.done_auto", { model });
  switch (answer?.action) {
    case "accept":
      return samplingStage(question) === "request" && call.status === "invoking"
        ? t("ui.sampling.sent", { model })
        : t("ui.sampling.done", { model });
    case "decline":
      return t("ui.sampling.rejected");
    case "cancel":
      return t("ui.sampling.cancelled");
    default:
      return null;
  }
}

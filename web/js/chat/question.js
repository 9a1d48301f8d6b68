// A question a server asks the person in the middle of a tool call (MCP elicitation), the
// pure half: whether a call is asking one, the form it shows, the body of the answer
// (POST /api/messages/{id}/tool-calls/{callId}/answer) and what the block says once it is
// answered. question-block.js renders it.
//
// A form question's fields come from its `requestedSchema` through the tool form's code
// (schema-fields.js), prefilled with each property's `default` (SEP-1034). A url question
// sends the person to the server's own page; its link is offered only when it is http(s).

import { t } from "../i18n.js";
import { openableUrl } from "../mcp/sign-in.js";
import { collect, fieldFor, initialValue } from "../schema-fields.js";
import { openSampling } from "./sampling.js";

/**
 * The question `call` waits for the person to answer, or null when it asks none: a form or
 * url question, or a sampling request to review (sampling.js; not one the server's setting
 * answers without asking).
 */
export function openQuestion(call) {
  const question = call?.question;
  if (call?.status !== "invoking" || !question || question.answer != null) return null;
  if (question.mode === "sampling") return openSampling(call);
  return question.mode === "form" || question.mode === "url" ? question : null;
}

/** Whether `call` waits for the person to answer a server's question or review its sampling. */
export const asksQuestion = (call) => openQuestion(call) !== null;

/** The field tree of a form question (no fields when the server sent no schema). */
export function questionField(question) {
  const schema = question?.requestedSchema;
  const usable = schema !== null && typeof schema === "object" && !Array.isArray(schema);
  return fieldFor(usable ? schema : { type: "object", properties: {} });
}

/** The form's state before the person touches it: each field's `default`, else empty. */
export function initialAnswer(field) {
  return initialValue(field);
}

/** Where a url question sends the person, when it may be opened (http or https); else null. */
export function questionLink(question) {
  return question?.mode === "url" && typeof question.url === "string" && openableUrl(question.url) ? question.url : null;
}

/**
 * The answer's request body for `action` ("accept", "decline" or "cancel"): `{body}`, or
 * `{errors}` (as `collect` gives them, by dotted path) when an accepted form is not filled
 * in as its schema asks. Only an accepted form carries the fields, as `content`; a url
 * question's accept says the person is done on the server's page.
 */
export function answerBody(question, action, field, state) {
  if (action === "accept" && question.mode === "form") {
    const { value, errors } = collect(field, state);
    if (errors.length) return { errors };
    return { body: { questionId: question.id, action, content: value ?? {} } };
  }
  return { body: { questionId: question.id, action } };
}

/** The line shown for a given answer. */
export function answeredText(answer) {
  switch (answer?.action) {
    case "accept":
      return t("ui.question.answered_accept");
    case "decline":
      return t("ui.question.answered_decline");
    default:
      return t("ui.question.answered_cancel");
  }
}

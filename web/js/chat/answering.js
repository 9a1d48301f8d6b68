// What a server's question and its sampling review share once the person acts (question-block.js,
// sampling-block.js): the answer posted (POST /api/messages/{id}/tool-calls/{callId}/answer),
// what the reply said kept until the `assistant.toolCall.updated` event brings it, a 409 taken
// as decided elsewhere (another tab), and the focus moved to the line that replaces the
// buttons that had it.

import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { post, seg } from "../api.js";

/**
 * The answering state of the block `id` for `question` of `call`; `waiting`: whether the call
 * still waits for it, as the stored call says. `open` is that, until the reply came.
 */
export function useAnswering({ call, question, messageId, id, waiting }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  // What the reply said before the event came: {answer} or, on a 409, {gone: true}.
  const [local, setLocal] = useState(null);
  const line = useRef(null);
  const refocus = useRef(false);
  const open = waiting && !local;
  useEffect(() => {
    // The buttons that had the focus are gone: it moves to the line that replaced them.
    if (refocus.current && !open) {
      refocus.current = false;
      line.current?.focus();
    }
  }, [open, local, question.answer]);

  const send = async (action, body) => {
    setError(null);
    const inside = document.getElementById(id)?.contains(document.activeElement) ?? false;
    setBusy(true);
    try {
      const updated = await post(`/api/messages/${seg(messageId)}/tool-calls/${seg(call.id)}/answer`, body);
      const stored = updated?.question?.id === question.id ? updated.question.answer : null;
      refocus.current = inside;
      setLocal({ answer: stored ?? { action } });
    } catch (e) {
      if (e.status === 409) {
        refocus.current = inside;
        setLocal({ gone: true });
      } else {
        setError(e);
      }
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, local, open, line, send };
}

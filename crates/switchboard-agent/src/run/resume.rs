//! A call a 2026-07-28 server answered input-required (SEP-2322) while the person was away:
//! what it asked is kept with the call (`ToolCallRecord::pending_input`), so after a restart
//! the call is not lost as an interrupted one but sent again, with the answers given so far
//! and the server's `requestState`, once the person has answered its open question. What the
//! server still needs it asks again, and is asked in the chat as usual.

use switchboard_core::{QuestionMode, ToolCallRecord};
use switchboard_mcp::InputResume;

/// Whether the call waits for the person to answer the question it asks (else it can be sent
/// again now: its question is answered, or it has none a person can answer after a restart).
pub(super) fn waits_for_the_person(call: &ToolCallRecord) -> bool {
    let asking = call
        .pending_input
        .as_ref()
        .is_some_and(|pending| pending.asking.is_some());
    asking
        && call
            .question
            .as_ref()
            .is_some_and(|q| q.answer.is_none() && q.mode != QuestionMode::Sampling)
}

/// The answers to send the call again with: those given before, and the person's answer to
/// its question (a sampling review is asked again rather than resumed half-way).
pub(super) fn answers(call: &ToolCallRecord) -> InputResume {
    let pending = call.pending_input.clone().unwrap_or_default();
    let mut responses: rmcp::model::InputResponses = pending.responses.into_iter().collect();
    if let (Some(key), Some(question)) = (&pending.asking, &call.question)
        && question.mode != QuestionMode::Sampling
        && !responses.contains_key(key)
        && let Some(answer) = &question.answer
        && let Ok(response) = serde_json::to_value(super::questions::result_of(answer))
    {
        responses.insert(key.clone(), response);
    }
    InputResume {
        responses,
        request_state: pending.request_state,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_core::{
        PendingInput, QuestionAction, QuestionAnswer, ServerQuestion, ToolCallStatus,
    };

    fn call(answer: Option<QuestionAnswer>) -> ToolCallRecord {
        let mut call: ToolCallRecord = serde_json::from_value(json!({
            "id": "c", "serverId": "s", "serverName": "s", "toolName": "t",
            "displayName": "t", "arguments": {}, "status": "invoking",
        }))
        .unwrap();
        assert_eq!(call.status, ToolCallStatus::Invoking);
        call.pending_input = Some(PendingInput {
            request_state: Some("sealed".into()),
            requests: serde_json::Map::new(),
            responses: json!({"first": {"action": "decline"}})
                .as_object()
                .cloned()
                .unwrap(),
            asking: Some("second".into()),
        });
        call.question = Some(ServerQuestion {
            id: "q".into(),
            mode: QuestionMode::Form,
            message: "Who?".into(),
            requested_schema: None,
            url: None,
            sampling: None,
            answer,
        });
        call
    }

    #[test]
    fn an_open_question_waits_and_an_answered_one_is_sent_with_the_others() {
        assert!(waits_for_the_person(&call(None)));
        let answered = call(Some(QuestionAnswer {
            action: QuestionAction::Accept,
            content: json!({"name": "Ada"}).as_object().cloned(),
        }));
        assert!(!waits_for_the_person(&answered));
        let resume = answers(&answered);
        assert_eq!(resume.request_state.as_deref(), Some("sealed"));
        assert_eq!(resume.responses["first"], json!({"action": "decline"}));
        assert_eq!(
            resume.responses["second"],
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
    }
}

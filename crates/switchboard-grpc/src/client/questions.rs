//! The host's side of a server's requests during a call on a node: each `question` the node
//! sends is answered by the call's own requester, as the same request would be for a server
//! running here, and its answer (or the requester's JSON-RPC error) goes back under the
//! question's id.

// Sampling is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, ElicitRequestParams, InputRequests, LoggingMessageNotificationParam,
};
use switchboard_mcp::{Requester, ServerRequests};

use crate::pb::{self, question::Ask};
use crate::wire;

/// `question` answered by `requester` (`None`: the call has no one to answer, and the node
/// should not have asked).
pub(super) async fn answer(requester: Option<Requester>, question: pb::Question) -> pb::Answer {
    let answer = match (requester, question.ask) {
        (Some(requester), Some(ask)) => ask_requester(requester.as_ref(), ask).await,
        (None, _) => Err(ErrorData::invalid_request(
            "no one can answer the server's requests for this call",
            None,
        )),
        (_, None) => Err(ErrorData::invalid_request(
            "a request of a kind this host does not know",
            None,
        )),
    };
    wire::answer_to_pb(question.id, answer)
}

/// The answer to a question beyond the ones a call may have open.
pub(super) fn too_many(id: u64) -> pb::Answer {
    wire::answer_to_pb(
        id,
        Err(ErrorData::invalid_request(
            format!(
                "the call already has {} requests waiting for an answer",
                wire::MAX_OPEN_QUESTIONS
            ),
            None,
        )),
    )
}

async fn ask_requester(requester: &dyn ServerRequests, ask: Ask) -> Result<Vec<u8>, ErrorData> {
    match ask {
        Ask::ElicitJson(json) => {
            let params: ElicitRequestParams = wire::from_json(&json, "an elicitation")?;
            wire::to_json(&requester.elicit(params).await?, "an elicitation's answer")
        }
        Ask::SampleJson(json) => {
            let params: CreateMessageRequestParams = wire::from_json(&json, "a sampling request")?;
            wire::to_json(&requester.sample(params).await?, "a sampling answer")
        }
        Ask::InputJson(json) => {
            let requests: InputRequests = wire::from_json(&json, "the input requests")?;
            wire::to_json(&requester.input(requests).await?, "the input responses")
        }
        Ask::KeepInput(kept) => {
            let requests: Option<InputRequests> = if kept.requests_json.is_empty() {
                None
            } else {
                Some(wire::from_json(&kept.requests_json, "the input requests")?)
            };
            requester
                .keep_input(requests.as_ref(), kept.request_state.as_deref())
                .await;
            Ok(b"{}".to_vec())
        }
    }
}

/// A log line of the call, for the requester; one the node wrote wrongly is left out.
pub(super) fn log_line(json: &[u8]) -> Option<LoggingMessageNotificationParam> {
    match wire::from_json(json, "a log message") {
        Ok(params) => Some(params),
        Err(error) => {
            tracing::debug!(%error.message, "a server's log line from the node was left out");
            None
        }
    }
}

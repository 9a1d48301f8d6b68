//! What crosses the hop so that a server's requests during a call reach the host's requester:
//! what the requester can do (sent with `start`), the answers a resumed call carries, and the
//! JSON of the questions and their answers.
//!
//! The questions and answers are MCP's own shapes (`ElicitRequestParams`, `ElicitResult`, a
//! JSON-RPC error, ...) as JSON, as every MCP payload on this protocol is; only which request
//! it is, and its id within the call, are typed.

use rmcp::ErrorData;
use rmcp::model::ClientCapabilities;
use serde::Serialize;
use serde::de::DeserializeOwned;
use switchboard_mcp::{InputResume, ServerRequests};

use crate::pb;

/// Questions one call may have open at once, on the node and on the host.
pub(crate) const MAX_OPEN_QUESTIONS: usize = 32;

/// The host's side: what `requester` can do, for `start`.
pub(crate) fn requester_to_pb(requester: &dyn ServerRequests) -> pb::Requester {
    pb::Requester {
        client_capabilities_json: requester
            .client_capabilities()
            .and_then(|declared| serde_json::to_vec(&declared).ok())
            .unwrap_or_default(),
        waits_for_a_person: requester.waits_for_a_person(),
        answers_roots: requester.answers_roots(),
    }
}

/// What the host's requester said it can do, read on the node.
#[derive(Debug, Clone, Default)]
pub(crate) struct Declared {
    pub(crate) client_capabilities: Option<ClientCapabilities>,
    pub(crate) waits_for_a_person: bool,
    pub(crate) answers_roots: bool,
}

/// Why a field of `start` could not be read (which field; serde's message is not echoed, as
/// it may quote the value).
#[derive(Debug, thiserror::Error)]
#[error("{field} is not the JSON it should be")]
pub(crate) struct Unreadable {
    pub(crate) field: &'static str,
}

pub(crate) fn requester_from_pb(requester: &pb::Requester) -> Result<Declared, Unreadable> {
    let client_capabilities = if requester.client_capabilities_json.is_empty() {
        None
    } else {
        Some(
            serde_json::from_slice(&requester.client_capabilities_json).map_err(|_| {
                Unreadable {
                    field: "requester.client_capabilities_json",
                }
            })?,
        )
    };
    Ok(Declared {
        client_capabilities,
        waits_for_a_person: requester.waits_for_a_person,
        answers_roots: requester.answers_roots,
    })
}

pub(crate) fn resume_to_pb(resume: &InputResume) -> pb::InputResume {
    pb::InputResume {
        // A map of JSON values always serialises.
        responses_json: serde_json::to_vec(&resume.responses).unwrap_or_default(),
        request_state: resume.request_state.clone(),
    }
}

pub(crate) fn resume_from_pb(resume: pb::InputResume) -> Result<InputResume, Unreadable> {
    let responses = if resume.responses_json.is_empty() {
        rmcp::model::InputResponses::new()
    } else {
        serde_json::from_slice(&resume.responses_json).map_err(|_| Unreadable {
            field: "resume.responses_json",
        })?
    };
    Ok(InputResume {
        responses,
        request_state: resume.request_state,
    })
}

/// A question or an answer as JSON; what cannot be written is an internal error the server
/// (or the host's requester) receives.
pub(crate) fn to_json<T: Serialize>(value: &T, what: &str) -> Result<Vec<u8>, ErrorData> {
    serde_json::to_vec(value).map_err(|error| {
        ErrorData::internal_error(
            format!("{what} could not be written as JSON: {error}"),
            None,
        )
    })
}

/// A question or an answer read from its JSON.
pub(crate) fn from_json<T: DeserializeOwned>(json: &[u8], what: &str) -> Result<T, ErrorData> {
    serde_json::from_slice(json).map_err(|error| {
        ErrorData::invalid_params(
            format!(
                "{what} is not the JSON it should be (line {}, column {})",
                error.line(),
                error.column()
            ),
            None,
        )
    })
}

/// The answer to question `id`: its result, or the JSON-RPC error the server receives.
pub(crate) fn answer_to_pb(id: u64, answer: Result<Vec<u8>, ErrorData>) -> pb::Answer {
    let outcome = match answer {
        Ok(json) => pb::answer::Outcome::ResultJson(json),
        Err(error) => pb::answer::Outcome::ErrorJson(
            // An `ErrorData` (a code, a string and a JSON value) always serialises.
            serde_json::to_vec(&error).unwrap_or_default(),
        ),
    };
    pb::Answer {
        id,
        outcome: Some(outcome),
    }
}

/// An answer as the node hands it to the server: the result's JSON, or the error.
pub(crate) fn answer_from_pb(outcome: Option<pb::answer::Outcome>) -> Result<Vec<u8>, ErrorData> {
    match outcome {
        Some(pb::answer::Outcome::ResultJson(json)) => Ok(json),
        Some(pb::answer::Outcome::ErrorJson(json)) => {
            match from_json::<ErrorData>(&json, "the host's error") {
                Ok(error) | Err(error) => Err(error),
            }
        }
        None => Err(ErrorData::internal_error(
            "the host answered the server's request with nothing",
            None,
        )),
    }
}

//! Answering a 2026-07-28 server's input-required result (SEP-2322, multi round-trip
//! requests): the requests it lists go to the call's requester, as the same requests sent
//! during the call would, and the answers are sent back with the retried call. rmcp's own
//! `call_tool` would drive the rounds through the client handler, which cannot know which call
//! they belong to; the connection drives them itself with the call's options.

// Sampling and roots are deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use rmcp::ErrorData;
use rmcp::model::{InputRequest, InputRequests, InputResponses, ListRootsResult, Root};

use crate::connection::CallOptions;
use crate::error::McpError;
use crate::requests::{ServerRequests, declined, no_sampler};

/// The answers to `asked`, keyed as asked, from the call's requester (or the refusals of a
/// call without one). A request for roots is answered with the connection's `roots`, as a
/// session's `roots/list` is, unless the requester passes roots on from a client of its own.
pub(crate) async fn answer(
    server: &str,
    asked: Option<InputRequests>,
    options: &CallOptions,
    roots: &[String],
) -> Result<InputResponses, McpError> {
    let mut asked = asked.unwrap_or_default();
    let mut ours = InputResponses::new();
    if !options
        .requests
        .as_ref()
        .is_some_and(|requester| requester.answers_roots())
    {
        let listed = ListRootsResult::new(roots.iter().cloned().map(Root::new).collect());
        let keys: Vec<String> = asked
            .iter()
            .filter(|(_, request)| matches!(request, InputRequest::ListRoots(_)))
            .map(|(key, _)| key.clone())
            .collect();
        for key in keys {
            asked.remove(&key);
            let answer = to_json(&listed).map_err(|error| McpError::Protocol {
                server: server.to_owned(),
                detail: error.message.to_string(),
            })?;
            ours.insert(key, answer);
        }
    }
    let answers = match &options.requests {
        Some(_) if asked.is_empty() => Ok(InputResponses::new()),
        Some(requester) => requester.input(asked).await,
        None => answer_each::<dyn ServerRequests>(None, asked).await,
    }
    .map(|mut answers| {
        answers.extend(ours);
        answers
    });
    // An input response cannot carry an error: a request the caller refused ends the call.
    answers.map_err(|error| McpError::Protocol {
        server: server.to_owned(),
        detail: format!(
            "the server asked for input the caller refused: {}",
            error.message
        ),
    })
}

/// Each request answered in turn by `requester`; without one, elicitations are declined,
/// sampling refused. Roots are answered with an empty list, as a session's `roots/list` is.
pub(crate) async fn answer_each<R: ServerRequests + ?Sized>(
    requester: Option<&R>,
    asked: InputRequests,
) -> Result<InputResponses, ErrorData> {
    let mut answers = InputResponses::new();
    for (key, request) in asked {
        let answer = match (request, requester) {
            (InputRequest::Elicitation(request), Some(requester)) => {
                to_json(requester.elicit(request.params).await?)?
            }
            (InputRequest::Elicitation(_), None) => to_json(declined())?,
            (InputRequest::CreateMessage(request), Some(requester)) => {
                to_json(requester.sample(request.params).await?)?
            }
            (InputRequest::CreateMessage(_), None) => return Err(no_sampler()),
            (InputRequest::ListRoots(_), _) => to_json(ListRootsResult::default())?,
            // A kind of request this build does not know: nothing sensible to answer.
            (_, _) => {
                return Err(ErrorData::invalid_request(
                    format!("input request `{key}` is of a kind we cannot answer"),
                    None,
                ));
            }
        };
        answers.insert(key, answer);
    }
    Ok(answers)
}

fn to_json<T: serde::Serialize>(answer: T) -> Result<serde_json::Value, ErrorData> {
    serde_json::to_value(answer).map_err(|error| {
        ErrorData::internal_error(
            format!("an input response could not be encoded: {error}"),
            None,
        )
    })
}

/// The answers to a 2026-07-28 server's input requests of a request made elsewhere (a
/// `prompts/get` a node sent for this host), as [`answer`] gives them: by `requester`, roots
/// from `roots` unless the requester passes its client's on.
pub async fn answer_input(
    server: &str,
    asked: Option<InputRequests>,
    requester: Option<crate::Requester>,
    roots: &[String],
) -> Result<InputResponses, McpError> {
    let options = CallOptions {
        requests: requester,
        ..CallOptions::default()
    };
    answer(server, asked, &options, roots).await
}

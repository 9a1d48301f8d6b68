//! Tools that need the client: elicitation, sampling and roots.
//!
//! Each such tool is a list of rounds, a round a set of keyed requests, and an answer made
//! from the responses. How the questions travel depends on the protocol the request came
//! with, as rmcp enforces it:
//! - 2026-07-28 forbids server-to-client requests, so a round is an `InputRequiredResult`
//!   (SEP-2322); the client retries with `inputResponses` and the echoed `requestState`;
//! - older revisions ask the client directly (`elicitation/create`, `sampling/createMessage`,
//!   `roots/list`) while the call waits.
//!
//! The same tool thus answers honestly whichever way a gateway in front of it talks to it.
//! `requestState`, when a scenario wants one, is sealed with an HMAC (rmcp's
//! `RequestStateCodec`) so a tampered value is refused (-32602).

// Sampling, roots and logging are deprecated by SEP-2577 but are what these scenarios test.
#![allow(deprecated)]

use std::collections::BTreeMap;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, CreateMessageRequestParams,
    ElicitRequestParams, GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequest,
    InputRequiredResult, InputResponses, ListRootsRequest, ProtocolVersion, RequestStateCodec,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

use crate::asks::{Script, answer, elicit, script, single};
use crate::catalog::{complete, typed};

/// Asks the client what a tool needs, in the protocol's way.
pub struct Asker {
    codec: RequestStateCodec,
}

impl Asker {
    pub fn new(key: Vec<u8>) -> Self {
        Self {
            codec: RequestStateCodec::new(key),
        }
    }

    /// Runs `request` if it is one of the tools that need the client; `None` otherwise.
    pub async fn call(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<rmcp::model::CallToolResponse, ErrorData>> {
        let caps = context.client_capabilities().unwrap_or_default();
        let arguments = request.arguments.clone().unwrap_or_default();
        let tool = request.name.as_ref();
        let script = script(tool, &arguments, &caps)?;
        if let Some(missing) = missing_capability(&script, &caps) {
            return Some(Ok(CallToolResult::error(vec![
                rmcp::model::ContentBlock::text(format!(
                    "the client did not declare the {missing} capability this tool needs"
                )),
            ])
            .into()));
        }
        let outcome = if modern(context) {
            self.round(
                tool,
                &script,
                request.input_responses.as_ref(),
                request.request_state.as_deref(),
            )
            .map(|step| match step {
                Step::Ask(result) => result.into(),
                Step::Done(responses) => text_result(answer(tool, &responses)).into(),
            })
        } else {
            ask_directly(&script, context)
                .await
                .map(|responses| text_result(answer(tool, &responses)).into())
        };
        Some(outcome)
    }

    /// `test_input_required_result_prompt`: asks for context, then gives the prompt.
    pub fn prompt_context(
        &self,
        request: &GetPromptRequestParams,
    ) -> Result<GetPromptResponse, ErrorData> {
        let script = single(
            "user_context",
            elicit(
                "What context should the prompt use?",
                json!({"context": {"type": "string"}}),
                &["context"],
            ),
        );
        let name = request.name.as_str();
        match self.round(
            name,
            &script,
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
        )? {
            Step::Ask(result) => Ok(result.into()),
            Step::Done(responses) => {
                let context = responses
                    .get("user_context")
                    .and_then(|response| response.pointer("/content/context"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let result: GetPromptResult = complete(json!({"messages": [{
                    "role": "user",
                    "content": {"type": "text", "text": format!("Use this context: {context}")},
                }]}))?;
                Ok(result.into())
            }
        }
    }

    /// One stateless round: the next questions, or the collected answers once every round
    /// has its responses.
    fn round(
        &self,
        tool: &str,
        script: &Script,
        responses: Option<&InputResponses>,
        state: Option<&str>,
    ) -> Result<Step, ErrorData> {
        let round = match state {
            Some(state) => self.open(tool, state)?,
            None => 0,
        };
        let responses = responses.cloned().unwrap_or_default();
        if let Some((key, _)) = responses.iter().find(|(_, response)| !response.is_object()) {
            return Err(ErrorData::invalid_params(
                format!("inputResponses.{key} must be an object"),
                None,
            ));
        }
        let asked = script.rounds.get(round).ok_or_else(|| {
            ErrorData::invalid_params("requestState names a round this tool does not have", None)
        })?;
        // A stateful tool only accepts answers that come with its state.
        let answered = (!script.stateful || state.is_some())
            && !asked.is_empty()
            && asked.iter().all(|(key, _)| responses.contains_key(*key));
        let next = if answered || asked.is_empty() {
            round + 1
        } else {
            round
        };
        if next == script.rounds.len() {
            return Ok(Step::Done(responses));
        }
        let mut requests = BTreeMap::new();
        for (key, request) in &script.rounds[next] {
            requests.insert((*key).to_owned(), input_request(request)?);
        }
        let state = script.stateful.then(|| self.seal(tool, next));
        Ok(Step::Ask(InputRequiredResult::new(Some(requests), state)))
    }

    fn seal(&self, tool: &str, round: usize) -> String {
        self.codec.seal(format!("{tool}|{round}").as_bytes())
    }

    fn open(&self, tool: &str, state: &str) -> Result<usize, ErrorData> {
        let refused = || ErrorData::invalid_params("requestState failed its integrity check", None);
        let payload = self.codec.open(state).map_err(|_| refused())?;
        let payload = String::from_utf8(payload).map_err(|_| refused())?;
        let (for_tool, round) = payload.rsplit_once('|').ok_or_else(refused)?;
        if for_tool != tool {
            return Err(refused());
        }
        round.parse().map_err(|_| refused())
    }
}

enum Step {
    Ask(InputRequiredResult),
    Done(BTreeMap<String, Value>),
}

fn modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

fn method(request: &Value) -> &str {
    request
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The capability a script needs that the client did not declare.
fn missing_capability(script: &Script, caps: &ClientCapabilities) -> Option<&'static str> {
    script
        .rounds
        .iter()
        .flatten()
        .find_map(|(_, request)| match method(request) {
            "elicitation/create" if caps.elicitation.is_none() => Some("elicitation"),
            "sampling/createMessage" if caps.sampling.is_none() => Some("sampling"),
            "roots/list" if caps.roots.is_none() => Some("roots"),
            _ => None,
        })
}

fn input_request(request: &Value) -> Result<InputRequest, ErrorData> {
    if method(request) == "roots/list" {
        return Ok(InputRequest::ListRoots(ListRootsRequest::default()));
    }
    typed(request.clone())
}

/// Asks every round's questions over the session, one after the other.
async fn ask_directly(
    script: &Script,
    context: &RequestContext<RoleServer>,
) -> Result<BTreeMap<String, Value>, ErrorData> {
    let peer = &context.peer;
    let failed = |error: rmcp::service::ServiceError| {
        ErrorData::internal_error(format!("the client did not answer: {error}"), None)
    };
    let mut responses = BTreeMap::new();
    for (key, request) in script.rounds.iter().flatten() {
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let response = match method(request) {
            "elicitation/create" => {
                let params: ElicitRequestParams = typed(params)?;
                to_value(peer.create_elicitation(params).await.map_err(failed)?)?
            }
            "sampling/createMessage" => {
                let params: CreateMessageRequestParams = typed(params)?;
                to_value(peer.create_message(params).await.map_err(failed)?)?
            }
            _ => to_value(peer.list_roots().await.map_err(failed)?)?,
        };
        responses.insert((*key).to_owned(), response);
    }
    Ok(responses)
}

fn to_value(value: impl serde::Serialize) -> Result<Value, ErrorData> {
    serde_json::to_value(value).map_err(|error| ErrorData::internal_error(error.to_string(), None))
}

fn text_result(text: String) -> CallToolResult {
    CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)])
}

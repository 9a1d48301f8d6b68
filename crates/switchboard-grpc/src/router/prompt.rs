//! `prompts/get` of a server on a node. For a caller with a requester, on one `CallTool`
//! stream: what the server asks during it (an older server's elicitation or sampling, a
//! 2026-07-28 server's input-required rounds) comes to the host as questions, answered by
//! the requester as for a local server. Otherwise round by round: a 2026-07-28 server's
//! input-required answer comes back to the host, which hands it to the caller (a client that
//! answers it itself) or answers it for a caller without a requester (refusing what it asks)
//! and sends the next round, as the local connection does.

use std::sync::Arc;

use rmcp::model::{GetPromptRequestParams, GetPromptResponse};
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_mcp::{CallOptions, McpError, PromptInput};

use super::Router;
use crate::client::NodeClient;

impl Router {
    pub(super) async fn prompt_on_node(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        node: &Arc<NodeClient>,
        mut params: GetPromptRequestParams,
        input: PromptInput,
    ) -> Result<GetPromptResponse, McpError> {
        if let PromptInput::Answer(Some(requester)) = &input {
            let options = CallOptions {
                requests: Some(Arc::clone(requester)),
                ..CallOptions::default()
            };
            return self
                .on_node(owner, spec, node, |server| {
                    let (params, options) = (params.clone(), options.clone());
                    async move { node.get_prompt_asking(spec, server, params, options).await }
                })
                .await
                .map(GetPromptResponse::Complete);
        }
        let mut rounds = 0;
        loop {
            let answer = self
                .on_node(owner, spec, node, |server| {
                    let params = &params;
                    async move { node.get_prompt_round(spec, server, params).await }
                })
                .await?;
            let GetPromptResponse::InputRequired(asked) = answer else {
                return Ok(answer);
            };
            let PromptInput::Answer(requester) = &input else {
                return Ok(GetPromptResponse::InputRequired(asked));
            };
            rounds += 1;
            if rounds > rmcp::model::DEFAULT_MRTR_MAX_ROUNDS {
                return Err(McpError::Protocol {
                    server: spec.name.clone(),
                    detail: format!(
                        "prompts/get still required input after {} rounds",
                        rmcp::model::DEFAULT_MRTR_MAX_ROUNDS
                    ),
                });
            }
            let answers = switchboard_mcp::answer_input(
                &spec.name,
                asked.input_requests,
                requester.clone(),
                &spec.roots,
            )
            .await?;
            params.input_responses = Some(answers);
            params.request_state = asked.request_state;
        }
    }
}

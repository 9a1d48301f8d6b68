//! The node's one-answer requests: tools, resources, prompts, a test connection, closing a
//! connection, and health.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, InputResponses, JsonObject, Prompt, ReadResourceResult, Resource,
    ResourceTemplate,
};
use serde::de::DeserializeOwned;
use switchboard_core::{OwnerId, ServerId, ServerSpec, ToolInfo};
use switchboard_mcp::{McpError, ServerReport, TaskState, TaskStep};
use tonic::{Response, Status};

use super::{NodeClient, failure};
use crate::pb::{self, get_tools_response, json_reply};
use crate::wire;

/// How long the node may take to say what it is.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(5);

impl NodeClient {
    /// Every tool of the server (the node's cache when fresh).
    pub async fn get_tools(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
    ) -> Result<Arc<Vec<ToolInfo>>, McpError> {
        let request = pb::GetToolsRequest {
            server: Some(server),
        };
        let _probe = self.gate(&spec.name)?;
        let reply = self
            .rpc()
            .get_tools(self.unary(request))
            .await
            .map_err(|status| failure::failed(&self.name, &spec.name, &status))?
            .into_inner();
        self.reached();
        match reply.outcome {
            Some(get_tools_response::Outcome::Tools(list)) => {
                serde_json::from_slice::<Vec<ToolInfo>>(&list.tools_json)
                    .map(Arc::new)
                    .map_err(|error| failure::unreadable(&spec.name, "a tool list", &error))
            }
            Some(get_tools_response::Outcome::Error(error)) => {
                Err(wire::error_from_pb(&self.name, error))
            }
            None => Err(failure::empty_reply(&spec.name, "GetTools")),
        }
    }

    pub async fn list_resources(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
    ) -> Result<Vec<Resource>, McpError> {
        let _probe = self.gate(&spec.name)?;
        let reply = self.rpc().list_resources(self.unary(request(server))).await;
        self.json(spec, "a resource list", reply)
    }

    /// One round of `prompts/get` (see the RPC): the prompt, or the server's input requests.
    pub async fn get_prompt_round(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        params: &GetPromptRequestParams,
    ) -> Result<GetPromptResponse, McpError> {
        let request = pb::GetPromptRoundRequest {
            server: Some(server),
            params_json: serde_json::to_vec(params).map_err(|error| McpError::Protocol {
                server: spec.name.clone(),
                detail: format!("the prompt request does not encode: {error}"),
            })?,
        };
        let _probe = self.gate(&spec.name)?;
        let reply = self.rpc().get_prompt_round(self.unary(request)).await;
        let round: wire::PromptRound = self.json(spec, "a prompt", reply)?;
        Ok(match round {
            wire::PromptRound::Complete(result) => GetPromptResponse::Complete(result),
            wire::PromptRound::InputRequired(asked) => GetPromptResponse::InputRequired(asked),
        })
    }

    pub async fn list_resource_templates(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
    ) -> Result<Vec<ResourceTemplate>, McpError> {
        let _probe = self.gate(&spec.name)?;
        let reply = self
            .rpc()
            .list_resource_templates(self.unary(request(server)))
            .await;
        self.json(spec, "a resource template list", reply)
    }

    pub async fn complete(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        params: &CompleteRequestParams,
    ) -> Result<CompleteResult, McpError> {
        let request = pb::CompleteRequest {
            server: Some(server),
            params_json: serde_json::to_vec(params).map_err(|error| McpError::Protocol {
                server: spec.name.clone(),
                detail: format!("the completion request does not encode: {error}"),
            })?,
        };
        let _probe = self.gate(&spec.name)?;
        let reply = self.rpc().complete(self.unary(request)).await;
        self.json(spec, "a completion", reply)
    }

    /// `resources/subscribe` (`on`) or `resources/unsubscribe`; the updates come on the
    /// node's watch stream.
    pub async fn subscribe_resource(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        uri: &str,
        on: bool,
    ) -> Result<(), McpError> {
        let request = pb::SubscribeRequest {
            server: Some(server),
            uri: uri.to_owned(),
            on,
        };
        let _probe = self.gate(&spec.name)?;
        let reply = self.rpc().subscribe_resource(self.unary(request)).await;
        self.json(spec, "a subscription", reply)
    }

    pub async fn read_resource(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        uri: &str,
    ) -> Result<ReadResourceResult, McpError> {
        let request = pb::ReadResourceRequest {
            server: Some(server),
            uri: uri.to_owned(),
        };
        let _probe = self.gate(&spec.name)?;
        let reply = self.rpc().read_resource(self.unary(request)).await;
        self.json(spec, "a resource", reply)
    }

    pub async fn list_prompts(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
    ) -> Result<Vec<Prompt>, McpError> {
        let _probe = self.gate(&spec.name)?;
        let reply = self.rpc().list_prompts(self.unary(request(server))).await;
        self.json(spec, "a prompt list", reply)
    }

    pub async fn get_prompt(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<GetPromptResult, McpError> {
        let request = pb::GetPromptRequest {
            server: Some(server),
            name: name.to_owned(),
            arguments_json: arguments_json(spec, arguments.as_ref())?,
        };
        let _probe = self.gate(&spec.name)?;
        let reply = self.rpc().get_prompt(self.unary(request)).await;
        self.json(spec, "a prompt", reply)
    }

    /// The state of the server's task `step` now.
    pub async fn get_task(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        step: TaskStep<'_>,
    ) -> Result<TaskState, McpError> {
        let _probe = self.gate(&spec.name)?;
        let reply = self
            .rpc()
            .get_task(self.unary(task_request(server, step, Vec::new())))
            .await;
        let task: wire::TaskJson = self.json(spec, "a task", reply)?;
        Ok(task.into_state())
    }

    /// Asks the server to cancel its task `step`; the task's state after.
    pub async fn cancel_task(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        step: TaskStep<'_>,
    ) -> Result<TaskState, McpError> {
        let _probe = self.gate(&spec.name)?;
        let reply = self
            .rpc()
            .cancel_task(self.unary(task_request(server, step, Vec::new())))
            .await;
        let task: wire::TaskJson = self.json(spec, "a task", reply)?;
        Ok(task.into_state())
    }

    /// Gives the server's task `step` answers to its questions (`tasks/update`).
    pub async fn update_task(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        step: TaskStep<'_>,
        responses: &InputResponses,
    ) -> Result<(), McpError> {
        let responses_json = serde_json::to_vec(responses).map_err(|error| McpError::Protocol {
            server: spec.name.clone(),
            detail: format!("the answers do not encode: {error}"),
        })?;
        let _probe = self.gate(&spec.name)?;
        let reply = self
            .rpc()
            .update_task(self.unary(task_request(server, step, responses_json)))
            .await;
        self.json(spec, "a task update", reply)
    }

    /// Connects to the server on the node just to look; the node's pool is not touched.
    pub async fn test_connection(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
    ) -> Result<ServerReport, McpError> {
        let _probe = self.gate(&spec.name)?;
        let reply = self
            .rpc()
            .test_connection(self.unary(request(server)))
            .await;
        self.json(spec, "a server report", reply)
    }

    /// Closes the node's connection to `server` for `owner`.
    pub async fn disconnect(&self, owner: &OwnerId, server: &ServerId) -> Result<(), McpError> {
        let request = pb::DisconnectRequest {
            owner: owner.0.clone(),
            server_id: server.0.clone(),
        };
        let _probe = self.gate(&server.0)?;
        self.rpc()
            .disconnect(self.unary(request))
            .await
            .map(|_| ())
            .map_err(|status| failure::unreachable(&self.name, &status))
    }

    /// Asks the node what it is (its version, its connections and processes).
    pub async fn check_health(&self) -> Result<pb::HealthReply, McpError> {
        let mut rpc = self.rpc();
        let asked = tokio::time::timeout(HEALTH_TIMEOUT, rpc.health(pb::HealthRequest {}));
        match asked.await {
            Ok(Ok(reply)) => Ok(reply.into_inner()),
            Ok(Err(status)) => Err(failure::unreachable(&self.name, &status)),
            Err(_) => Err(McpError::NodeUnreachable {
                node: self.name.clone(),
                detail: format!(
                    "it did not answer a health check within {}s",
                    HEALTH_TIMEOUT.as_secs()
                ),
            }),
        }
    }

    /// A [`pb::JsonReply`] read as `T`.
    fn json<T: DeserializeOwned>(
        &self,
        spec: &ServerSpec,
        what: &str,
        reply: Result<Response<pb::JsonReply>, Status>,
    ) -> Result<T, McpError> {
        let reply = reply
            .map_err(|status| failure::failed(&self.name, &spec.name, &status))?
            .into_inner();
        self.reached();
        match reply.outcome {
            Some(json_reply::Outcome::Json(json)) => serde_json::from_slice(&json)
                .map_err(|error| failure::unreadable(&spec.name, what, &error)),
            Some(json_reply::Outcome::Error(error)) => Err(wire::error_from_pb(&self.name, error)),
            None => Err(failure::empty_reply(&spec.name, what)),
        }
    }
}

fn task_request(
    server: pb::ServerRef,
    step: TaskStep<'_>,
    responses_json: Vec<u8>,
) -> pb::TaskRequest {
    pb::TaskRequest {
        server: Some(server),
        tool: step.tool.to_owned(),
        upstream_id: step.upstream_id.to_owned(),
        responses_json,
    }
}

fn request(server: pb::ServerRef) -> pb::ServerRequest {
    pb::ServerRequest {
        server: Some(server),
    }
}

/// Arguments as the JSON object the node expects, or nothing.
pub(super) fn arguments_json(
    spec: &ServerSpec,
    arguments: Option<&JsonObject>,
) -> Result<Vec<u8>, McpError> {
    match arguments {
        None => Ok(Vec::new()),
        Some(arguments) => serde_json::to_vec(arguments).map_err(|error| McpError::Protocol {
            server: spec.name.clone(),
            detail: format!("the arguments could not be written as JSON: {error}"),
        }),
    }
}

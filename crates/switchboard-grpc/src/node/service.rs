//! The tonic service: `McpNode` over the node's [`ConnectionManager`].
//!
//! Every request names its server by spec ([`SpecCache`]); the manager pools connections by
//! (owner, server), so hosts sending the same spec share one process. What goes wrong in the
//! MCP layer is an answer (`NodeError` inside the reply, worded and redacted by the manager),
//! not a gRPC failure: a tonic `Status` means the request itself was wrong (no server, JSON
//! that cannot be read) or, from the interceptor, the token.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::JsonObject;
use serde::Serialize;
use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_mcp::{CallOptions, ConnectionManager, ConnectionStatus, McpError};
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status, Streaming};

use super::call::{CallStream, Finished};
use super::policy::with_admission;
use super::relay::Relay;
use super::sign_in::{self, with_token};
use super::specs::{Resolved, SpecCache};
use super::tools::ToolLists;
use super::watch::{WatchStream, watch};
use crate::{pb, wire};

pub(crate) struct NodeService {
    manager: ConnectionManager,
    specs: SpecCache,
    tools: ToolLists,
    /// Cancelled when the node stops: `Watch` streams end then.
    stop: CancellationToken,
}

impl NodeService {
    pub(crate) fn new(manager: ConnectionManager, stop: CancellationToken) -> Self {
        Self {
            manager,
            specs: SpecCache::new(),
            tools: ToolLists::new(),
            stop,
        }
    }

    /// The request's server, as its connection is made: with the access token it carried
    /// (see [`super::sign_in`]).
    fn resolve(&self, mut server: Option<pb::ServerRef>) -> Result<Resolved, Status> {
        let token = server
            .as_mut()
            .and_then(|server| server.access_token.take());
        let mut resolved = self.specs.resolve(server)?;
        resolved.spec = with_token(resolved.spec, token);
        Ok(resolved)
    }

    /// The steps of every request about one server answered with JSON: the server resolved
    /// from the request, `ask` run on the manager under the request's admission, its answer
    /// (or error) written back.
    async fn on_server<T: Serialize>(
        &self,
        server: Option<pb::ServerRef>,
        ask: impl AsyncFnOnce(&ConnectionManager, &OwnerId, &ServerSpec) -> Result<T, McpError>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let Resolved {
            owner,
            spec,
            admission,
        } = self.resolve(server)?;
        let answer = with_admission(admission, ask(&self.manager, &owner, &spec)).await;
        Ok(json_reply(answer))
    }

    fn tool_list(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        tools: &Arc<Vec<switchboard_core::ToolInfo>>,
    ) -> pb::get_tools_response::Outcome {
        match self.tools.encode(owner, server, tools) {
            Ok((tools_json, generation)) => {
                let snapshot = self.manager.snapshot(owner, server);
                pb::get_tools_response::Outcome::Tools(pb::ToolList {
                    tools_json,
                    generation,
                    status: Some(wire::status_to_pb(owner, server, &snapshot)),
                })
            }
            Err(error) => pb::get_tools_response::Outcome::Error(unwritable(&error)),
        }
    }
}

#[tonic::async_trait]
impl pb::mcp_node_server::McpNode for NodeService {
    async fn get_tools(
        &self,
        request: Request<pb::GetToolsRequest>,
    ) -> Result<Response<pb::GetToolsResponse>, Status> {
        let Resolved {
            owner,
            spec,
            admission,
        } = self.resolve(request.into_inner().server)?;
        let listed = with_admission(admission, self.manager.list_tools(&owner, &spec)).await;
        let outcome = match listed {
            Ok(tools) => self.tool_list(&owner, &spec.id, &tools),
            Err(error) => pb::get_tools_response::Outcome::Error(wire::error_to_pb(&error)),
        };
        Ok(Response::new(pb::GetToolsResponse {
            outcome: Some(outcome),
        }))
    }

    type CallToolStream = CallStream;

    async fn call_tool(
        &self,
        request: Request<Streaming<pb::CallToolRequest>>,
    ) -> Result<Response<CallStream>, Status> {
        let mut host = request.into_inner();
        let start = match host.message().await? {
            Some(pb::CallToolRequest {
                message: Some(pb::call_tool_request::Message::Start(start)),
            }) => start,
            _ => return Err(Status::invalid_argument("a call must begin with `start`")),
        };
        let Resolved {
            owner,
            spec,
            admission,
        } = self.resolve(start.server)?;
        let arguments = json_object(&start.arguments_json, "arguments_json")?;
        let resume = start
            .resume
            .map(wire::resume_from_pb)
            .transpose()
            .map_err(|error| Status::invalid_argument(error.to_string()))?;
        let relayed = match &start.requester {
            Some(requester) => {
                let declared = wire::requester_from_pb(requester)
                    .map_err(|error| Status::invalid_argument(error.to_string()))?;
                let (events, relayed) = tokio::sync::mpsc::channel(super::relay::QUEUED);
                Some((Arc::new(Relay::new(declared, events)), relayed))
            }
            None => None,
        };
        let work = Work::of(start.step)?;
        let cancel = CancellationToken::new();
        let (progress, reports) = tokio::sync::mpsc::unbounded_channel();
        let options = CallOptions {
            cancel: cancel.clone(),
            progress: Some(progress),
            timeout: (start.timeout_ms > 0).then(|| Duration::from_millis(start.timeout_ms)),
            retry: start.retry.as_ref().map(wire::retry_from_pb),
            // The server's requests go to the host's requester, when it has one; without, they
            // are refused as for a local caller without one.
            requests: relayed
                .as_ref()
                .map(|(relay, _)| Arc::clone(relay) as switchboard_mcp::Requester),
            resume,
            prefer_task: matches!(work, Work::StartTask { prefer_task: true }),
        };
        let manager = self.manager.clone();
        let tool = start.tool;
        let call = Box::pin(with_admission(admission, async move {
            work.run(&manager, &owner, &spec, &tool, arguments, options)
                .await
        }));
        // Answered at once: the host knows the call was accepted before the tool runs.
        Ok(Response::new(CallStream::new(
            call, reports, relayed, host, cancel,
        )))
    }

    async fn get_task(
        &self,
        request: Request<pb::TaskRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let request = request.into_inner();
        let (tool, upstream_id) = (request.tool, request.upstream_id);
        self.on_server(request.server, async |manager, owner, spec| {
            let state = manager
                .tool_task(owner, spec, &tool, &upstream_id, CallOptions::default())
                .await?;
            Ok(wire::TaskJson::from(&state))
        })
        .await
    }

    async fn cancel_task(
        &self,
        request: Request<pb::TaskRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let request = request.into_inner();
        let (tool, upstream_id) = (request.tool, request.upstream_id);
        self.on_server(request.server, async |manager, owner, spec| {
            let state = manager
                .cancel_tool_task(owner, spec, &tool, &upstream_id)
                .await?;
            Ok(wire::TaskJson::from(&state))
        })
        .await
    }

    async fn update_task(
        &self,
        request: Request<pb::TaskRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let request = request.into_inner();
        let responses: rmcp::model::InputResponses =
            serde_json::from_slice(&request.responses_json).map_err(|_| {
                Status::invalid_argument("responses_json is not a set of input responses")
            })?;
        let (tool, upstream_id) = (request.tool, request.upstream_id);
        self.on_server(request.server, async |manager, owner, spec| {
            manager
                .update_tool_task(owner, spec, &tool, &upstream_id, responses)
                .await
        })
        .await
    }

    async fn list_resources(
        &self,
        request: Request<pb::ServerRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        self.on_server(request.into_inner().server, async |manager, owner, spec| {
            manager.list_resources(owner, spec).await
        })
        .await
    }

    async fn read_resource(
        &self,
        request: Request<pb::ReadResourceRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let request = request.into_inner();
        let uri = request.uri;
        self.on_server(request.server, async |manager, owner, spec| {
            manager.read_resource(owner, spec, &uri).await
        })
        .await
    }

    async fn list_resource_templates(
        &self,
        request: Request<pb::ServerRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        self.on_server(request.into_inner().server, async |manager, owner, spec| {
            manager.list_resource_templates(owner, spec).await
        })
        .await
    }

    async fn complete(
        &self,
        request: Request<pb::CompleteRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let request = request.into_inner();
        let params: rmcp::model::CompleteRequestParams =
            serde_json::from_slice(&request.params_json).map_err(|error| {
                Status::invalid_argument(format!("the completion request is not one: {error}"))
            })?;
        self.on_server(request.server, async |manager, owner, spec| {
            manager.complete(owner, spec, params).await
        })
        .await
    }

    async fn get_prompt_round(
        &self,
        request: Request<pb::GetPromptRoundRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let request = request.into_inner();
        let params: rmcp::model::GetPromptRequestParams =
            serde_json::from_slice(&request.params_json).map_err(|error| {
                Status::invalid_argument(format!("the prompt request is not one: {error}"))
            })?;
        self.on_server(request.server, async |manager, owner, spec| {
            let answer = manager
                .get_prompt_with(owner, spec, params, switchboard_mcp::PromptInput::Return)
                .await?;
            match answer {
                rmcp::model::GetPromptResponse::Complete(result) => {
                    Ok(wire::PromptRound::Complete(result))
                }
                rmcp::model::GetPromptResponse::InputRequired(asked) => {
                    Ok(wire::PromptRound::InputRequired(asked))
                }
                _ => Err(McpError::Protocol {
                    server: spec.name.clone(),
                    detail: "prompts/get answered with a result of an unknown kind".into(),
                }),
            }
        })
        .await
    }

    async fn subscribe_resource(
        &self,
        request: Request<pb::SubscribeRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let request = request.into_inner();
        let (uri, on) = (request.uri, request.on);
        self.on_server(request.server, async |manager, owner, spec| {
            manager.subscribe_resource(owner, spec, &uri, on).await
        })
        .await
    }

    async fn list_prompts(
        &self,
        request: Request<pb::ServerRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        self.on_server(request.into_inner().server, async |manager, owner, spec| {
            manager.list_prompts(owner, spec).await
        })
        .await
    }

    async fn get_prompt(
        &self,
        request: Request<pb::GetPromptRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        let request = request.into_inner();
        let arguments = json_object(&request.arguments_json, "arguments_json")?;
        let name = request.name;
        self.on_server(request.server, async |manager, owner, spec| {
            manager.get_prompt(owner, spec, &name, arguments).await
        })
        .await
    }

    async fn test_connection(
        &self,
        request: Request<pb::ServerRequest>,
    ) -> Result<Response<pb::JsonReply>, Status> {
        self.on_server(request.into_inner().server, async |manager, owner, spec| {
            manager.test_connection(owner, spec).await
        })
        .await
    }

    async fn disconnect(
        &self,
        request: Request<pb::DisconnectRequest>,
    ) -> Result<Response<pb::DisconnectReply>, Status> {
        let request = request.into_inner();
        if request.owner.is_empty() || request.server_id.is_empty() {
            return Err(Status::invalid_argument(
                "a disconnect names the owner and the server",
            ));
        }
        let (owner, server) = (OwnerId(request.owner), ServerId(request.server_id));
        self.manager.disconnect(&owner, &server).await;
        self.tools.forget(&owner, &server);
        self.specs.forget(&owner, &server);
        Ok(Response::new(pb::DisconnectReply {}))
    }

    async fn health(
        &self,
        _request: Request<pb::HealthRequest>,
    ) -> Result<Response<pb::HealthReply>, Status> {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(Response::new(pb::HealthReply {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            // The connections open or opening, not slots left behind by closed ones.
            servers: count(
                self.manager
                    .snapshots()
                    .iter()
                    .filter(|(_, _, snapshot)| snapshot.status != ConnectionStatus::Disconnected)
                    .count(),
            ),
            processes: count(self.manager.process_count()),
        }))
    }

    async fn fetch_for_sign_in(
        &self,
        request: Request<pb::SignInFetch>,
    ) -> Result<Response<pb::SignInFetchReply>, Status> {
        let mut fetch = request.into_inner();
        // The flow is the host's: whatever token came along is not needed here.
        let server = fetch.server.take().map(|server| pb::ServerRef {
            access_token: None,
            ..server
        });
        let Resolved {
            owner,
            spec,
            admission,
        } = self.specs.resolve(server)?;
        let sign_in::Fetch {
            request,
            follow_redirects,
            timeout,
        } = sign_in::request_from_pb(fetch)?;
        let answer = with_admission(
            admission,
            self.manager
                .fetch_for_sign_in(&owner, &spec, request, follow_redirects, timeout),
        )
        .await;
        Ok(Response::new(sign_in::reply(answer)))
    }

    type WatchStream = WatchStream;

    async fn watch(
        &self,
        _request: Request<pb::WatchRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        Ok(Response::new(watch(
            self.manager.clone(),
            self.stop.clone(),
        )))
    }
}

/// What one `CallTool` stream does (`CallStart.step`).
enum Work {
    Call,
    StartTask {
        prefer_task: bool,
    },
    TaskOutcome {
        upstream_id: String,
        wait: Option<Duration>,
    },
    Prompt(rmcp::model::GetPromptRequestParams),
}

impl Work {
    fn of(step: Option<pb::call_start::Step>) -> Result<Self, Status> {
        Ok(match step {
            None => Work::Call,
            Some(pb::call_start::Step::StartTask(start)) => Work::StartTask {
                prefer_task: start.prefer_task,
            },
            Some(pb::call_start::Step::TaskOutcome(outcome)) => Work::TaskOutcome {
                upstream_id: outcome.upstream_id,
                wait: (outcome.wait_ms > 0).then(|| Duration::from_millis(outcome.wait_ms)),
            },
            Some(pb::call_start::Step::GetPromptJson(json)) => {
                Work::Prompt(serde_json::from_slice(&json).map_err(|_| {
                    Status::invalid_argument("get_prompt_json is not a prompt request")
                })?)
            }
        })
    }

    /// Runs on `manager` for `owner`'s `spec`, the server's requests going to
    /// `options.requests` and a cancellation coming through `options.cancel`.
    async fn run(
        self,
        manager: &ConnectionManager,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<Finished, McpError> {
        match self {
            Work::Call => manager
                .call_tool(owner, spec, tool, arguments, options)
                .await
                .map(Finished::Result),
            Work::StartTask { .. } => manager
                .start_tool_task(owner, spec, tool, arguments, options)
                .await
                .map(Finished::from),
            Work::TaskOutcome { upstream_id, wait } => {
                let wait = wait.unwrap_or(manager.config().call_timeout_ceiling);
                manager
                    .tool_task_result(owner, spec, tool, &upstream_id, options, wait)
                    .await
                    .map(Finished::Result)
            }
            Work::Prompt(params) => {
                let input = switchboard_mcp::PromptInput::Answer(options.requests.clone());
                let asked = manager.get_prompt_with(owner, spec, params, input);
                let answer = tokio::select! {
                    answer = asked => answer?,
                    () = options.cancel.cancelled() => return Err(McpError::Cancelled),
                };
                match answer {
                    rmcp::model::GetPromptResponse::Complete(result) => {
                        Ok(Finished::Prompt(result))
                    }
                    _ => Err(McpError::Protocol {
                        server: spec.name.clone(),
                        detail: "prompts/get still required input once answered".into(),
                    }),
                }
            }
        }
    }
}

/// A JSON object sent as bytes (`arguments_json`), empty for none.
fn json_object(json: &[u8], field: &str) -> Result<Option<JsonObject>, Status> {
    if json.is_empty() {
        return Ok(None);
    }
    match serde_json::from_slice::<serde_json::Value>(json) {
        Ok(serde_json::Value::Object(object)) => Ok(Some(object)),
        Ok(serde_json::Value::Null) => Ok(None),
        // Neither the value nor serde's message (which may quote it) is echoed.
        Ok(_) => Err(Status::invalid_argument(format!(
            "{field} must be a JSON object"
        ))),
        Err(error) => Err(Status::invalid_argument(format!(
            "{field} is not JSON (line {}, column {})",
            error.line(),
            error.column()
        ))),
    }
}

fn json_reply<T: Serialize>(result: Result<T, McpError>) -> Response<pb::JsonReply> {
    let outcome = match result.map(|value| serde_json::to_vec(&value)) {
        Ok(Ok(json)) => pb::json_reply::Outcome::Json(json),
        Ok(Err(error)) => pb::json_reply::Outcome::Error(unwritable(&error)),
        Err(error) => pb::json_reply::Outcome::Error(wire::error_to_pb(&error)),
    };
    Response::new(pb::JsonReply {
        outcome: Some(outcome),
    })
}

fn unwritable(error: &serde_json::Error) -> pb::NodeError {
    wire::error_to_pb(&McpError::Protocol {
        server: String::new(),
        detail: format!("the answer could not be written as JSON: {error}"),
    })
}

//! A server's elicitation requests during a call reach the requester of that very call, even
//! with several calls in flight on the shared connection (SEP-2260: rmcp tells which of our
//! requests' streams a request came on), and a 2026-07-28 server's input-required result is
//! answered by the call's requester too.

#![allow(clippy::unwrap_used, deprecated)]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequiredResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use switchboard_core::TransportKind;
use switchboard_mcp::{CallOptions, ServerRequests};
use tokio::sync::Barrier;
use tokio_util::sync::CancellationToken;

/// `ask`: asks the client for a name during the call and returns it. `ask_later`: the same
/// through an input-required result, on the 2026-07-28 revision.
#[derive(Clone)]
struct Asking {
    /// Whether it speaks 2026-07-28, where a server may not ask during a call.
    modern: bool,
}

fn question() -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: "Who are you?".to_owned(),
        requested_schema: ElicitationSchema::builder()
            .required_string("name")
            .build()
            .unwrap(),
    }
}

fn named(answer: &ElicitResult) -> String {
    answer
        .content
        .as_ref()
        .and_then(|c| c.get("name"))
        .and_then(|n| n.as_str())
        .unwrap_or("(nobody)")
        .to_owned()
}

impl ServerHandler for Asking {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    /// A server of 2025-11-25 does not know `server/discover`.
    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::DiscoverResult, ErrorData> {
        let _ = context;
        if self.modern {
            return Ok(rmcp::model::DiscoverResult::from_server_info(
                ProtocolVersion::KNOWN_VERSIONS.to_vec(),
                self.get_info(),
            ));
        }
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            "Method not found",
            None,
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = Arc::new(rmcp::model::JsonObject::from_iter([(
            "type".to_owned(),
            serde_json::json!("object"),
        )]));
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("ask", "asks who you are", Arc::clone(&schema)),
            Tool::new("ask_later", "asks who you are, statelessly", schema),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "ask_later" {
            let answer = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get("who"))
                .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok());
            return Ok(match answer {
                Some(answer) => {
                    CallToolResult::success(vec![ContentBlock::text(named(&answer))]).into()
                }
                None => InputRequiredResult::from_input_requests(BTreeMap::from([(
                    "who".to_owned(),
                    InputRequest::Elicitation(ElicitRequest::new(question())),
                )]))
                .into(),
            });
        }
        let answer = context
            .peer
            .create_elicitation(question())
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(named(&answer))]).into())
    }
}

async fn serve(stop: CancellationToken, modern: bool) -> String {
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop.clone();
    let service = StreamableHttpService::new(
        move || Ok(Asking { modern }),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await;
    });
    format!("http://{address}/mcp")
}

/// Answers with its own name, once every requester sharing the barrier has been asked.
#[derive(Debug)]
struct Person {
    name: &'static str,
    together: Arc<Barrier>,
}

impl ServerRequests for Person {
    fn elicit(&self, _: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async move {
            self.together.wait().await;
            Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({ "name": self.name })))
        })
    }

    fn sample(
        &self,
        _: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async { Err(ErrorData::invalid_request("no sampling here", None)) })
    }
}

fn asked_by(name: &'static str, together: &Arc<Barrier>) -> CallOptions {
    CallOptions {
        requests: Some(Arc::new(Person {
            name,
            together: Arc::clone(together),
        })),
        ..CallOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn each_of_two_concurrent_calls_is_answered_by_its_own_requester() {
    let stop = CancellationToken::new();
    let url = serve(stop.clone(), false).await;
    let manager = common::manager();
    let spec = common::http_spec("asking", &url, TransportKind::StreamableHttp);
    let owner = common::owner();
    // Both questions are pending at once before either is answered.
    let together = Arc::new(Barrier::new(2));
    let (ada, grace) = tokio::join!(
        manager.call_tool(&owner, &spec, "ask", None, asked_by("Ada", &together)),
        manager.call_tool(&owner, &spec, "ask", None, asked_by("Grace", &together)),
    );
    assert_eq!(common::text(&ada.unwrap()), "Ada");
    assert_eq!(common::text(&grace.unwrap()), "Grace");

    // A call without a requester: the server's question is declined.
    let nobody = manager
        .call_tool(&owner, &spec, "ask", None, CallOptions::default())
        .await
        .unwrap();
    assert_eq!(common::text(&nobody), "(nobody)");
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_input_required_result_is_answered_by_the_calls_requester() {
    let stop = CancellationToken::new();
    let url = serve(stop.clone(), true).await;
    let manager = common::manager();
    let spec = common::http_spec("asking", &url, TransportKind::StreamableHttp);
    let owner = common::owner();
    let alone = Arc::new(Barrier::new(1));
    let result = manager
        .call_tool(&owner, &spec, "ask_later", None, asked_by("Ada", &alone))
        .await;
    assert_eq!(common::text(&result.unwrap()), "Ada");
    manager.shutdown().await;
    stop.cancel();
}

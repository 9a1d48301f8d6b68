//! What a server asks during a call on a node is answered on the host, by the call's own
//! requester, as it is for a server running here: an elicitation, a sampling request, a
//! 2026-07-28 server's input-required result (kept, then answered), and the server's log lines
//! of the call (with the spec's secrets cut out on the node). An older server's elicitation
//! during `prompts/get` is answered on the host too. Cancelling a call while its question is
//! open ends it at once, on the node too.
//!
//! The server is an rmcp server on Streamable HTTP in this process, reached by a node (in this
//! process too) through the router, as a host reaches it.

#![allow(clippy::unwrap_used, deprecated)]

use crate::router_support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, InputRequest, InputRequests, InputRequiredResult, ListPromptsResult,
    ListToolsResult, LoggingLevel, LoggingMessageNotificationParam, PaginatedRequestParams, Prompt,
    PromptMessage, ProtocolVersion, Role, SamplingMessage, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use router_support::*;
use switchboard_core::{ServerSpec, TransportKind};
use switchboard_grpc::Router;
use switchboard_mcp::{AdmitAll, CallOptions, McpError, ServerPool, ServerRequests, ToolBackend};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// A secret of the spec (a header value) that the server puts in a log line.
const SECRET: &str = "header-secret-7d1f0c";

/// The server: `ask` elicits a name during the call, `sample` asks the client's model, `log`
/// logs a line with the spec's secret and then asks (rmcp sends a log line on the session's
/// standalone stream, which does not keep its order with the call's answer: the question keeps
/// the call open until the line is in), `ask_later` asks through an input-required result (on
/// the 2026-07-28 revision); the prompt `greet` elicits a name during `prompts/get`. Every
/// elicitation's end is told on `ended`.
#[derive(Clone)]
struct Asking {
    modern: bool,
    ended: mpsc::UnboundedSender<String>,
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

fn text_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text.into())]).into()
}

/// Tells `ended` how an elicitation ended, also when the server drops the call under it.
struct Told {
    ended: mpsc::UnboundedSender<String>,
    outcome: String,
}

impl Drop for Told {
    fn drop(&mut self) {
        let _ = self.ended.send(std::mem::take(&mut self.outcome));
    }
}

impl ServerHandler for Asking {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_logging()
                .build(),
        )
    }

    /// A server of 2025-11-25 does not know `server/discover`.
    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::DiscoverResult, ErrorData> {
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
        let tool = |name: &'static str| Tool::new(name, name, Arc::clone(&schema));
        Ok(ListToolsResult::with_all_items(vec![
            tool("ask"),
            tool("sample"),
            tool("log"),
            tool("ask_later"),
        ]))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("Greets whoever answers"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        _request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let answer = context.peer.create_elicitation(question()).await;
        let name = answer
            .as_ref()
            .map_or_else(|_| "(nobody)".to_owned(), named);
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Hello, {name}!"),
        )])
        .into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "ask" => {
                let mut told = Told {
                    ended: self.ended.clone(),
                    outcome: "dropped".into(),
                };
                let answer = context.peer.create_elicitation(question()).await;
                told.outcome = match &answer {
                    Ok(answer) => format!("answered {}", named(answer)),
                    Err(error) => format!("failed: {error}"),
                };
                let answer = answer.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                Ok(text_result(named(&answer)))
            }
            "sample" => {
                let asked = CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text("Say something")],
                    50,
                );
                let answer = context
                    .peer
                    .create_message(asked)
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                Ok(text_result(serde_json::to_string(&answer).unwrap()))
            }
            "log" => {
                let line = LoggingMessageNotificationParam::new(
                    LoggingLevel::Warning,
                    serde_json::json!(format!("the key is {SECRET}")),
                )
                .with_logger("talker");
                context.peer.notify_logging_message(line).await.unwrap();
                let answer = context
                    .peer
                    .create_elicitation(question())
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                Ok(text_result(format!("logged for {}", named(&answer))))
            }
            "ask_later" => {
                let answer = request
                    .input_responses
                    .as_ref()
                    .and_then(|r| r.get("who"))
                    .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok());
                Ok(match answer {
                    Some(answer) => text_result(named(&answer)),
                    None => InputRequiredResult::from_input_requests(BTreeMap::from([(
                        "who".to_owned(),
                        InputRequest::Elicitation(ElicitRequest::new(question())),
                    )]))
                    .into(),
                })
            }
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

/// The server on Streamable HTTP until `stop`; its URL, and what its elicitations became.
async fn serve(
    stop: &CancellationToken,
    modern: bool,
) -> (String, mpsc::UnboundedReceiver<String>) {
    let (ended, outcomes) = mpsc::unbounded_channel();
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop.clone();
    let service = StreamableHttpService::new(
        move || {
            Ok(Asking {
                modern,
                ended: ended.clone(),
            })
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let stop = stop.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await;
    });
    (format!("http://{address}/mcp"), outcomes)
}

/// The host's requester: Ada, who answers every question (or, `holding`, none; or, `after_log`,
/// once a log line reached her), and keeps what she is asked to.
#[derive(Debug, Default)]
struct Ada {
    holding: bool,
    after_log: bool,
    logged: tokio::sync::Notify,
    /// Told of every question, by kind.
    asked: Mutex<Option<mpsc::UnboundedSender<&'static str>>>,
    logs: Mutex<Vec<LoggingMessageNotificationParam>>,
    kept: Mutex<Vec<(Vec<String>, Option<String>)>>,
}

impl Ada {
    fn tell(&self, kind: &'static str) {
        if let Some(asked) = self.asked.lock().unwrap().as_ref() {
            let _ = asked.send(kind);
        }
    }
}

impl ServerRequests for Ada {
    fn waits_for_a_person(&self) -> bool {
        true
    }

    fn keep_input<'a>(
        &'a self,
        requests: Option<&'a InputRequests>,
        state: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        let keys = requests
            .map(|requests| requests.keys().cloned().collect())
            .unwrap_or_default();
        self.kept
            .lock()
            .unwrap()
            .push((keys, state.map(str::to_owned)));
        Box::pin(std::future::ready(()))
    }

    fn log(&self, params: LoggingMessageNotificationParam) -> BoxFuture<'_, ()> {
        self.logs.lock().unwrap().push(params);
        self.logged.notify_one();
        Box::pin(std::future::ready(()))
    }

    fn elicit(&self, _: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        self.tell("elicit");
        Box::pin(async move {
            if self.holding {
                std::future::pending::<()>().await;
            }
            if self.after_log {
                let logged = tokio::time::timeout(BOUND, self.logged.notified()).await;
                logged.expect("the log line reached the host during the call");
            }
            Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({ "name": "Ada" })))
        })
    }

    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        self.tell("sample");
        let asked = serde_json::to_string(&params.messages).unwrap();
        Box::pin(async move {
            Ok(CreateMessageResult::new(
                SamplingMessage::assistant_text(format!("Ada read {asked}")),
                "ada-1".to_owned(),
            ))
        })
    }
}

struct Setup {
    node: TestNode,
    router: Router,
    spec: ServerSpec,
    outcomes: mpsc::UnboundedReceiver<String>,
    stop: CancellationToken,
}

async fn set_up(modern: bool) -> Setup {
    let stop = CancellationToken::new();
    let (url, outcomes) = serve(&stop, modern).await;
    let node = TestNode::start(0).await;
    let router = Router::new(
        local(),
        vec![loopback_node("box", node.port())],
        Arc::new(AdmitAll),
    )
    .expect("router");
    let mut spec = ServerSpec::http("asking", url, Some(TransportKind::StreamableHttp));
    spec.headers.insert("X-Test-Key".into(), SECRET.into());
    let spec = on_node(spec, "box");
    Setup {
        node,
        router,
        spec,
        outcomes,
        stop,
    }
}

impl Setup {
    async fn call(&self, tool: &str, requests: Option<Arc<Ada>>) -> Result<String, McpError> {
        let options = CallOptions {
            requests: requests.map(|ada| ada as switchboard_mcp::Requester),
            ..CallOptions::default()
        };
        let me = owner();
        let called = self.router.call(&me, &self.spec, tool, None, options);
        let result = tokio::time::timeout(BOUND, called)
            .await
            .unwrap_or_else(|_| panic!("{tool} did not end in time"))?;
        Ok(text(&result))
    }

    async fn end(self) {
        self.router.shutdown().await;
        self.node.kill().await;
        self.stop.cancel();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_elicitation_on_a_node_is_answered_by_the_hosts_requester() {
    let mut setup = set_up(false).await;
    let ada = Arc::new(Ada::default());
    assert_eq!(setup.call("ask", Some(ada)).await.unwrap(), "Ada");
    assert_eq!(setup.outcomes.recv().await.unwrap(), "answered Ada");
    // A call without a requester: declined, as for a local server.
    assert_eq!(setup.call("ask", None).await.unwrap(), "(nobody)");
    setup.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sampling_request_on_a_node_is_answered_by_the_hosts_requester() {
    let setup = set_up(false).await;
    let ada = Arc::new(Ada::default());
    let sampled = setup.call("sample", Some(ada)).await.unwrap();
    assert!(sampled.contains("Ada read"), "{sampled}");
    assert!(sampled.contains("Say something"), "{sampled}");
    assert!(sampled.contains("ada-1"), "{sampled}");
    // Without a requester the server's request is refused, which fails its tool.
    let refused = setup.call("sample", None).await;
    assert!(
        matches!(refused, Err(McpError::Server { .. })),
        "{refused:?}"
    );
    setup.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_input_required_question_on_a_node_is_kept_and_answered_on_the_host() {
    let setup = set_up(true).await;
    let ada = Arc::new(Ada::default());
    let (asked, mut questions) = mpsc::unbounded_channel();
    *ada.asked.lock().unwrap() = Some(asked);
    assert_eq!(
        setup
            .call("ask_later", Some(Arc::clone(&ada)))
            .await
            .unwrap(),
        "Ada"
    );
    assert_eq!(questions.recv().await, Some("elicit"));
    let kept = ada.kept.lock().unwrap().clone();
    assert_eq!(
        kept,
        vec![(vec!["who".to_owned()], None)],
        "kept before answered"
    );
    setup.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_servers_log_line_during_a_call_on_a_node_reaches_the_host_redacted() {
    let setup = set_up(false).await;
    let ada = Arc::new(Ada {
        after_log: true,
        ..Ada::default()
    });
    let logged = setup.call("log", Some(Arc::clone(&ada))).await.unwrap();
    assert_eq!(logged, "logged for Ada");
    let logs = ada.logs.lock().unwrap().clone();
    assert_eq!(logs.len(), 1, "{logs:?}");
    let line = &logs[0];
    assert_eq!(line.level, LoggingLevel::Warning);
    assert_eq!(line.logger.as_deref(), Some("talker"));
    let data = line.data.to_string();
    assert!(data.contains("the key is"), "{data}");
    assert!(
        !data.contains(SECRET),
        "the spec's secret is cut out: {data}"
    );
    setup.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_call_on_a_node_while_its_question_is_open_ends_it() {
    let mut setup = set_up(false).await;
    let ada = Arc::new(Ada {
        holding: true,
        ..Ada::default()
    });
    let (asked, mut questions) = mpsc::unbounded_channel();
    *ada.asked.lock().unwrap() = Some(asked);
    let options = CallOptions {
        requests: Some(ada as switchboard_mcp::Requester),
        ..CallOptions::default()
    };
    let cancel = options.cancel.clone();
    let me = owner();
    let called = setup.router.call(&me, &setup.spec, "ask", None, options);
    let (result, ()) = tokio::join!(tokio::time::timeout(BOUND, called), async {
        let asked = tokio::time::timeout(BOUND, questions.recv()).await;
        assert_eq!(
            asked.unwrap(),
            Some("elicit"),
            "the question reached the host"
        );
        cancel.cancel();
    });
    let result = result.expect("the cancelled call ends at once");
    assert!(matches!(result, Err(McpError::Cancelled)), "{result:?}");
    // On the node the open question ended too: the server's request got its answer (an
    // error) or was dropped with the call, and a new call is answered.
    let ended = tokio::time::timeout(BOUND, setup.outcomes.recv()).await;
    let ended = ended.expect("the server's question ended").unwrap();
    assert!(!ended.starts_with("answered"), "{ended}");
    let again = setup.call("ask", Some(Arc::new(Ada::default()))).await;
    assert_eq!(again.unwrap(), "Ada");
    setup.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_elicitation_during_a_prompt_on_a_node_is_answered_by_the_hosts_requester() {
    let setup = set_up(false).await;
    let ada = Arc::new(Ada::default());
    let input = switchboard_mcp::PromptInput::Answer(Some(ada as switchboard_mcp::Requester));
    let me = owner();
    let asked = setup.router.get_prompt_with(
        &me,
        &setup.spec,
        GetPromptRequestParams::new("greet"),
        input,
    );
    let answer = tokio::time::timeout(BOUND, asked)
        .await
        .expect("the prompt is got in time")
        .unwrap();
    let GetPromptResponse::Complete(prompt) = answer else {
        panic!("a prompt, not {answer:?}");
    };
    let said = serde_json::to_value(&prompt.messages[0].content).unwrap();
    assert_eq!(said["text"], "Hello, Ada!", "{said}");
    setup.end().await;
}

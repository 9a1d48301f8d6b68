//! Helpers of the node tests: an in-process node on 127.0.0.1, the generated gRPC client with
//! the token, server refs for the pinned peers, and a call driven message by message.

// Test code: a failed unwrap is a failed test.
#![allow(dead_code, clippy::unwrap_used)]

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use switchboard_core::{DestinationRules, LaunchRules, OwnerId, ServerSpec};
use switchboard_grpc::pb::{self, call_tool_event::Event, mcp_node_client::McpNodeClient};
use switchboard_grpc::{Node, NodeError, NodeOptions};
use switchboard_mcp::{ConnectionManager, ManagerConfig, RetryPolicy};
use switchboard_testkit::{Peers, PyGen, StdioCommand};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};

pub const TOKEN: &str = "node-test-token-0123456789";

/// A bound on every wait of these tests, far above what any step takes.
pub const PATIENCE: Duration = Duration::from_secs(30);

pub fn config() -> ManagerConfig {
    ManagerConfig {
        connect_timeout: Duration::from_secs(20),
        call_timeout: Duration::from_secs(20),
        retry: RetryPolicy {
            initial_delay: Duration::from_millis(100),
            ..RetryPolicy::default()
        },
        shutdown_grace: Duration::from_millis(200),
        ..ManagerConfig::default()
    }
}

/// A plaintext node on a free port of 127.0.0.1, no launch templates.
pub fn options() -> NodeOptions {
    NodeOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        token: TOKEN.into(),
        tls: None,
        allow_plaintext: false,
        launch: LaunchRules::default(),
        destinations: DestinationRules::default(),
        manager: config(),
    }
}

/// A node serving on a task of its own.
pub struct Running {
    pub address: SocketAddr,
    /// The node's pool (shared with it).
    pub manager: ConnectionManager,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), NodeError>>,
}

impl Running {
    /// Tells the node to stop and waits until `run` returned.
    pub async fn stop(mut self) -> Result<(), NodeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(PATIENCE, &mut self.task)
            .await
            .expect("the node stops in time")
            .expect("the node's task")
    }
}

pub async fn start(options: NodeOptions) -> Running {
    let node = Node::bind(options).await.unwrap();
    let address = node.local_addr();
    let manager = node.manager();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(node.run(async move {
        let _ = stopped.await;
    }));
    Running {
        address,
        manager,
        stop: Some(stop),
        task,
    }
}

/// Adds `authorization: Bearer …` (or nothing) to every request.
#[derive(Clone)]
pub struct Bearer(Option<MetadataValue<Ascii>>);

impl Interceptor for Bearer {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

pub type Client = McpNodeClient<InterceptedService<Channel, Bearer>>;

pub fn bearer(token: Option<&str>) -> Bearer {
    Bearer(token.map(|t| format!("Bearer {t}").parse().unwrap()))
}

/// A client of the node at `address` (plaintext) sending `token`.
pub async fn client_with(address: SocketAddr, token: Option<&str>) -> Client {
    let channel = Endpoint::from_shared(format!("http://{address}"))
        .unwrap()
        .tcp_nodelay(true)
        .connect()
        .await
        .unwrap();
    McpNodeClient::with_interceptor(channel, bearer(token))
}

/// A client with the right token.
pub async fn client(address: SocketAddr) -> Client {
    client_with(address, Some(TOKEN)).await
}

pub fn owner() -> OwnerId {
    OwnerId("alice".into())
}

pub fn stdio_spec(name: &str, command: &StdioCommand) -> ServerSpec {
    let mut spec = ServerSpec::stdio(name, command.program.clone(), command.args.clone());
    for (key, value) in &command.env {
        spec.env.insert(key.clone(), value.clone());
    }
    spec
}

pub fn py1() -> ServerSpec {
    stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1))
}

pub fn everything() -> ServerSpec {
    stdio_spec("everything", &Peers::locate().everything_stdio())
}

/// How a host names `spec` for `owner`: an admin's (`any_command`) or a member's.
pub fn server_ref_for(owner: &OwnerId, spec: &ServerSpec, any_command: bool) -> pb::ServerRef {
    let spec_json = serde_json::to_vec(spec).unwrap();
    pb::ServerRef {
        owner: owner.0.clone(),
        // Left to the node to compute: it digests the JSON when no version is sent.
        spec_version: String::new(),
        spec_json,
        admission: Some(pb::Admission {
            any_command,
            guard_destinations: !any_command,
        }),
        access_token: None,
    }
}

/// An admin's server ref for the test owner.
pub fn server_ref(spec: &ServerSpec) -> pb::ServerRef {
    server_ref_for(&owner(), spec, true)
}

pub fn start_message(server: pb::ServerRef, tool: &str, arguments: Value) -> pb::CallToolRequest {
    pb::CallToolRequest {
        message: Some(pb::call_tool_request::Message::Start(pb::CallStart {
            server: Some(server),
            tool: tool.into(),
            arguments_json: serde_json::to_vec(&arguments).unwrap(),
            timeout_ms: 0,
            retry: None,
            requester: None,
            resume: None,
            step: None,
        })),
    }
}

pub fn cancel_message() -> pb::CallToolRequest {
    pb::CallToolRequest {
        message: Some(pb::call_tool_request::Message::Cancel(pb::Cancel {})),
    }
}

/// A call in flight: the host's half (kept open: ending it cancels the call) and the node's.
pub struct OpenCall {
    pub host: mpsc::Sender<pb::CallToolRequest>,
    pub events: tonic::Streaming<pb::CallToolEvent>,
}

impl OpenCall {
    pub async fn open(client: &mut Client, start: pb::CallToolRequest) -> OpenCall {
        let (host, requests) = mpsc::channel(4);
        host.send(start).await.unwrap();
        let events = client
            .call_tool(ReceiverStream::new(requests))
            .await
            .unwrap()
            .into_inner();
        OpenCall { host, events }
    }

    /// The next event.
    pub async fn next(&mut self) -> Option<Event> {
        tokio::time::timeout(PATIENCE, self.events.message())
            .await
            .expect("an event in time")
            .unwrap()
            .map(|event| event.event.unwrap())
    }

    /// Every progress report, then the outcome (checked to be the last event).
    pub async fn finish(mut self) -> (Vec<pb::Progress>, Event) {
        let mut progress = Vec::new();
        loop {
            match self.next().await.expect("an outcome") {
                Event::Progress(report) => progress.push(report),
                outcome => {
                    assert!(self.next().await.is_none(), "the outcome is the last event");
                    return (progress, outcome);
                }
            }
        }
    }
}

/// Calls `tool` and returns its outcome.
pub async fn call(
    client: &mut Client,
    server: pb::ServerRef,
    tool: &str,
    arguments: Value,
) -> Event {
    OpenCall::open(client, start_message(server, tool, arguments))
        .await
        .finish()
        .await
        .1
}

/// The text of a `result_json` (every text block joined); panics on an error.
pub fn result_text(event: &Event) -> String {
    let Event::ResultJson(json) = event else {
        panic!("expected a result, got {event:?}");
    };
    let result: Value = serde_json::from_slice(json).unwrap();
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

/// The error of an outcome; panics on a result.
pub fn error_of(event: Event) -> pb::NodeError {
    match event {
        Event::Error(error) => error,
        other => panic!("expected an error, got {other:?}"),
    }
}

/// The `pid` tool of the Python peer.
pub async fn pid(client: &mut Client, server: pb::ServerRef) -> u32 {
    result_text(&call(client, server, "pid", serde_json::json!({})).await)
        .trim()
        .parse()
        .unwrap()
}

//! The upstream MCP server for the server scenarios of the MCP conformance suite
//! (`@modelcontextprotocol/conformance`, run by `scripts/conformance.sh server`).
//!
//! The suite talks to Switchboard's gateway, which re-exports what this server offers: every
//! tool, resource, resource template and prompt the scenarios call, behaving as each
//! scenario's description asks (`dist/index.js` of the suite). It serves one session over
//! stdio, as the gateway starts it:
//!
//! ```text
//! switchboard servers add conformance --command /path/to/conformance-server
//! ```
//!
//! With `--http 127.0.0.1:PORT` it serves Streamable HTTP at `/mcp` instead, so the suite can
//! run against it directly (`scripts/conformance.sh server --direct`): what fails there is this
//! server's fault, not the gateway's.
//!
//! Tools that need the client (elicitation, sampling, roots) ask it the classic way on
//! 2025-11-25 sessions and through input-required results on 2026-07-28 (see [`mrtr`]).
//! The fixtures of the tasks extension (`io.modelcontextprotocol/tasks`) run as tasks when the
//! request declares it, on one task manager for every session (see [`tasks`]).
//! Nothing but the protocol is written to stdout; logs go to stderr.

// Logging is deprecated by SEP-2577, but `logging/setLevel` is what the suite tests.
#![allow(deprecated)]

mod asks;
mod catalog;
mod content;
mod mrtr;
mod tasks;
mod tools;

use std::io::Read;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, LoggingLevel, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::service::SubscriptionContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;
use tokio::sync::broadcast;

use crate::catalog::typed;
use crate::mrtr::Asker;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-server: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<()> {
    let server = ConformanceServer::new(state_key()?);
    let mut args = std::env::args().skip(1);
    if let Some(flag) = args.next() {
        anyhow::ensure!(
            flag == "--http",
            "usage: conformance-server [--http ADDRESS]"
        );
        let address = args.next().context("--http needs an address")?;
        return serve_http(server, &address).await;
    }
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .context("the MCP handshake on stdio failed")?;
    running.waiting().await.context("the session failed")?;
    Ok(())
}

/// Serves Streamable HTTP at `/mcp` until the process is killed; prints the URL on stderr.
async fn serve_http(server: ConformanceServer, address: &str) -> Result<()> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("binding {address}"))?;
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    eprintln!(
        "conformance-server is listening on http://{}/mcp",
        listener.local_addr()?
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    axum::serve(listener, app).await.context("serving HTTP")
}

/// A fresh key per process for sealing `requestState`: a state from another run is refused.
fn state_key() -> Result<Vec<u8>> {
    let mut key = vec![0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut key))
        .context("reading /dev/urandom")?;
    Ok(key)
}

#[derive(Clone)]
pub struct ConformanceServer {
    asker: Arc<Asker>,
    /// The threshold `logging/setLevel` chose, for requests that do not name one.
    log_level: Arc<Mutex<Option<LoggingLevel>>>,
    /// Set by `test_trigger_tool_change`.
    extra_tool: Arc<AtomicBool>,
    /// List changes for the 2026-07-28 `subscriptions/listen` streams open on this server.
    changes: broadcast::Sender<Change>,
    /// The tasks of the tasks extension's fixtures, for every session.
    tasks: tasks::Tasks,
}

/// A list that changed, for [`ServerHandler::listen`].
#[derive(Debug, Clone, Copy)]
pub enum Change {
    Tools,
    Prompts,
}

impl ConformanceServer {
    fn new(key: Vec<u8>) -> Self {
        Self {
            asker: Arc::new(Asker::new(key)),
            log_level: Arc::new(Mutex::new(None)),
            extra_tool: Arc::new(AtomicBool::new(false)),
            changes: broadcast::channel(16).0,
            tasks: tasks::Tasks::default(),
        }
    }
}

impl ServerHandler for ConformanceServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities: Result<ServerCapabilities, _> = typed(json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "logging": {},
            "completions": {},
            "extensions": {rmcp::model::TASKS_EXTENSION_ID: {}},
        }));
        let mut info = ServerConfig::new(capabilities.unwrap_or_default());
        info.server_info =
            Implementation::new("switchboard-conformance-server", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "The tools, resources and prompts of the MCP conformance suite's server scenarios."
                .to_owned(),
        );
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(catalog::tools(
            self.extra_tool.load(Ordering::SeqCst),
        )?))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(outcome) = self.tasks.call(&request, &context).await {
            return outcome;
        }
        if let Some(outcome) = self.asker.call(&request, &context).await {
            return outcome;
        }
        tools::call(self, &request, &context).await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    /// Passes the changes the trigger tools make to one stream; rmcp drops what its filter
    /// does not accept.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changes = self.changes.subscribe();
        loop {
            let change = tokio::select! {
                () = context.cancelled() => return Ok(()),
                change = changes.recv() => change,
            };
            let sent = match change {
                Ok(Change::Tools) => context.sink().notify_tool_list_changed().await,
                Ok(Change::Prompts) => context.sink().notify_prompt_list_changed().await,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            };
            if let Err(error) = sent {
                tracing::debug!(%error, "subscription notification not sent");
            }
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(catalog::prompts()?))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        content::get_prompt(&request, &self.asker)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(catalog::resources()?))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            catalog::resource_templates()?,
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        content::read_resource(&request)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tracing::debug!(uri = %request.uri, "subscribed");
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tracing::debug!(uri = %request.uri, "unsubscribed");
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        content::completion(&request)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks.get(&request.task_id)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.update(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(&request.task_id)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Ok(mut level) = self.log_level.lock() {
            *level = Some(request.level);
        }
        Ok(())
    }
}

//! The pool of MCP connections, keyed by (owner, server id).
//!
//! One connection per server is shared by every caller and multiplexes their calls. The
//! manager caches tool lists (dropped when the server says they changed), closes idle
//! connections, reconnects with backoff when a connection dies, and never sends a tool call
//! twice unless the tool says doing so is harmless.

mod entry;
mod status;
mod tools;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use rmcp::model::{
    CallToolResult, GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource,
};
use switchboard_core::{OwnerId, ServerId, ServerSpec, ToolInfo};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use status::{ConnectionSnapshot, ConnectionStatus, ServerReport};

use crate::config::ManagerConfig;
use crate::connect::connect;
use crate::connection::{CallLimits, CallOptions};
use crate::error::McpError;
use entry::{Entry, Live};
use tools::{CachedTools, tool_info};

type Key = (OwnerId, ServerId);

/// Shared handle to the pool; clones share the same connections.
#[derive(Clone)]
pub struct ConnectionManager {
    inner: Arc<Inner>,
}

struct Inner {
    config: ManagerConfig,
    http: reqwest::Client,
    entries: Mutex<HashMap<Key, Arc<Entry>>>,
    stop: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl ConnectionManager {
    /// Creates the pool and its idle reaper. Must be called inside a Tokio runtime.
    pub fn new(config: ManagerConfig) -> Self {
        let inner = Arc::new(Inner {
            config,
            http: reqwest::Client::new(),
            entries: Mutex::new(HashMap::new()),
            stop: CancellationToken::new(),
        });
        tokio::spawn(reap_idle(Arc::downgrade(&inner), inner.stop.clone()));
        Self { inner }
    }

    pub fn config(&self) -> &ManagerConfig {
        &self.inner.config
    }

    fn entry(&self, owner: &OwnerId, server: &ServerId) -> Arc<Entry> {
        let mut entries = self
            .inner
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(
            entries
                .entry((owner.clone(), server.clone()))
                .or_insert_with(|| Arc::new(Entry::new())),
        )
    }

    fn existing(&self, owner: &OwnerId, server: &ServerId) -> Option<Arc<Entry>> {
        let entries = self
            .inner
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        entries.get(&(owner.clone(), server.clone())).cloned()
    }

    fn limits(&self, spec: &ServerSpec, timeout: Option<std::time::Duration>) -> CallLimits {
        let config = &self.inner.config;
        CallLimits {
            idle: timeout.or(spec.timeout).unwrap_or(config.call_timeout),
            ceiling: config.call_timeout_ceiling,
        }
    }

    async fn live(&self, entry: &Arc<Entry>, spec: &ServerSpec) -> Result<Live, McpError> {
        entry
            .connection(spec, &self.inner.config, &self.inner.http)
            .await
    }

    /// The server's tools (every page), from the cache when it is fresh.
    pub async fn list_tools(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Arc<Vec<ToolInfo>>, McpError> {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        self.with_reconnect(&entry, spec, |live| {
            let entry = Arc::clone(&entry);
            async move { self.tools_of(&entry, &live, spec).await }
        })
        .await
    }

    async fn tools_of(
        &self,
        entry: &Entry,
        live: &Live,
        spec: &ServerSpec,
    ) -> Result<Arc<Vec<ToolInfo>>, McpError> {
        let ttl = self.inner.config.tool_cache_ttl;
        let generation = live.conn.tools_generation();
        if let Some(cached) = entry
            .tools
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            && cached.is_fresh(ttl, live.instance, generation)
        {
            return Ok(Arc::clone(&cached.tools));
        }
        let tools = live.conn.list_tools(self.limits(spec, None)).await?;
        let tools: Vec<ToolInfo> = tools.into_iter().map(|t| tool_info(&spec.id, t)).collect();
        let cached = CachedTools::new(tools, live.instance, generation);
        let shared = Arc::clone(&cached.tools);
        *entry.tools.lock().unwrap_or_else(PoisonError::into_inner) = Some(cached);
        Ok(shared)
    }

    /// Calls `tool` on the server. If the connection is lost the call is retried on a new one
    /// only when it was never sent, or the tool is annotated read-only or idempotent.
    pub async fn call_tool(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<CallToolResult, McpError> {
        if spec.disabled_tools.contains(tool) {
            return Err(McpError::ToolNotFound {
                server: spec.name.clone(),
                tool: format!("{tool} (disabled)"),
            });
        }
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let limits = self.limits(spec, options.timeout);
        let config = &self.inner.config;
        let mut attempt = 0;
        loop {
            let result = match self.live(&entry, spec).await {
                Ok(live) => {
                    let result = live
                        .conn
                        .call_tool(tool, arguments.clone(), &options, limits)
                        .await;
                    if matches!(
                        result,
                        Err(McpError::ConnectionLost { .. } | McpError::LostAfterSend { .. })
                    ) {
                        entry.discard(
                            live.instance,
                            "the connection was lost",
                            config.shutdown_grace,
                        );
                    }
                    result
                }
                Err(error) => Err(error),
            };
            let retry = match &result {
                Err(McpError::ConnectionLost { .. }) => true,
                Err(McpError::LostAfterSend { .. }) => self.safe_to_repeat(&entry, tool),
                Err(error) if attempt > 0 => reconnectable(error),
                _ => false,
            };
            if !retry || attempt >= config.reconnect_attempts {
                // Servers report an unknown tool as a protocol error or as a tool error,
                // with differing codes; on either, the tool list is the reliable witness.
                let failed = match &result {
                    Err(McpError::Server { .. }) => true,
                    Ok(result) => result.is_error == Some(true),
                    Err(_) => false,
                };
                if failed && self.unknown_tool(owner, spec, tool).await {
                    return Err(McpError::ToolNotFound {
                        server: spec.name.clone(),
                        tool: tool.to_owned(),
                    });
                }
                return result;
            }
            attempt += 1;
            tracing::info!(server = %spec.name, tool, attempt, "reconnecting to retry a call");
            tokio::select! {
                () = tokio::time::sleep(config.backoff(attempt - 1)) => {}
                () = options.cancel.cancelled() => return Err(McpError::Cancelled),
            }
        }
    }

    /// Whether the server, asked after a failed call, does not list `tool`.
    async fn unknown_tool(&self, owner: &OwnerId, spec: &ServerSpec, tool: &str) -> bool {
        match self.list_tools(owner, spec).await {
            Ok(tools) => !tools.iter().any(|t| t.name == tool),
            Err(_) => false,
        }
    }

    fn safe_to_repeat(&self, entry: &Entry, tool: &str) -> bool {
        let cached = entry.tools.lock().unwrap_or_else(PoisonError::into_inner);
        cached
            .as_ref()
            .and_then(|c| c.tools.iter().find(|t| t.name == tool).cloned())
            .is_some_and(|t| t.annotations.safe_to_repeat())
    }

    /// Runs a request that is always safe to repeat (listing, reading), reconnecting with
    /// backoff when the connection turns out to be dead.
    async fn with_reconnect<T, F, Fut>(
        &self,
        entry: &Arc<Entry>,
        spec: &ServerSpec,
        request: F,
    ) -> Result<T, McpError>
    where
        F: Fn(Live) -> Fut,
        Fut: Future<Output = Result<T, McpError>>,
    {
        let config = &self.inner.config;
        let mut attempt = 0;
        loop {
            let result = match self.live(entry, spec).await {
                Ok(live) => {
                    let instance = live.instance;
                    let result = request(live).await;
                    if let Err(error) = &result
                        && lost(error)
                    {
                        entry.discard(instance, "the connection was lost", config.shutdown_grace);
                    }
                    result
                }
                Err(error) => Err(error),
            };
            let retry = match &result {
                Err(error) if lost(error) => true,
                Err(error) if attempt > 0 => reconnectable(error),
                _ => false,
            };
            if !retry || attempt >= config.reconnect_attempts {
                return result;
            }
            attempt += 1;
            tokio::time::sleep(config.backoff(attempt - 1)).await;
        }
    }

    pub async fn list_resources(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Vec<Resource>, McpError> {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let limits = self.limits(spec, None);
        self.with_reconnect(&entry, spec, |live| async move {
            live.conn.list_resources(limits).await
        })
        .await
    }

    pub async fn read_resource(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        uri: &str,
    ) -> Result<ReadResourceResult, McpError> {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let limits = self.limits(spec, None);
        self.with_reconnect(&entry, spec, |live| async move {
            live.conn.read_resource(uri, limits).await
        })
        .await
    }

    pub async fn list_prompts(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Vec<Prompt>, McpError> {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let limits = self.limits(spec, None);
        self.with_reconnect(&entry, spec, |live| async move {
            live.conn.list_prompts(limits).await
        })
        .await
    }

    pub async fn get_prompt(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<GetPromptResult, McpError> {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let limits = self.limits(spec, None);
        self.with_reconnect(&entry, spec, |live| {
            let arguments = arguments.clone();
            async move { live.conn.get_prompt(name, arguments, limits).await }
        })
        .await
    }

    /// Connects to `spec` just to look: server info, capabilities and tools. The connection is
    /// closed afterwards and the pool is not touched.
    pub async fn test_connection(&self, spec: &ServerSpec) -> Result<ServerReport, McpError> {
        let config = &self.inner.config;
        let conn = connect(spec, config, &self.inner.http).await?;
        let tools = conn.list_tools(self.limits(spec, None)).await;
        let details = conn.details().clone();
        conn.close(config.shutdown_grace).await;
        let tools = tools?.into_iter().map(|t| tool_info(&spec.id, t)).collect();
        Ok(ServerReport { details, tools })
    }

    /// The state of the connection to `server`.
    pub fn snapshot(&self, owner: &OwnerId, server: &ServerId) -> ConnectionSnapshot {
        self.existing(owner, server)
            .map(|entry| entry.snapshot())
            .unwrap_or_else(ConnectionSnapshot::disconnected)
    }

    /// Follows the state of the connection to `server` as it changes.
    pub fn subscribe(
        &self,
        owner: &OwnerId,
        server: &ServerId,
    ) -> watch::Receiver<ConnectionSnapshot> {
        self.entry(owner, server).subscribe()
    }

    /// The process group of a connected stdio server.
    pub fn process_group(&self, owner: &OwnerId, server: &ServerId) -> Option<u32> {
        let entry = self.existing(owner, server)?;
        entry.process_group()
    }

    /// Closes the connection to `server` (for example after it was reconfigured or removed).
    pub async fn disconnect(&self, owner: &OwnerId, server: &ServerId) {
        if let Some(entry) = self.existing(owner, server) {
            entry.disconnect(self.inner.config.shutdown_grace).await;
        }
    }

    /// Closes every connection; stdio servers are ended with their process groups.
    pub async fn shutdown(&self) {
        let entries: Vec<Arc<Entry>> = {
            let mut map = self
                .inner
                .entries
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            map.drain().map(|(_, entry)| entry).collect()
        };
        let grace = self.inner.config.shutdown_grace;
        futures::future::join_all(entries.iter().map(|entry| entry.disconnect(grace))).await;
    }
}

fn lost(error: &McpError) -> bool {
    matches!(
        error,
        McpError::ConnectionLost { .. } | McpError::LostAfterSend { .. }
    )
}

/// Errors worth another connection attempt once a connection has been lost: the server may
/// be restarting.
fn reconnectable(error: &McpError) -> bool {
    matches!(
        error,
        McpError::ConnectionLost { .. }
            | McpError::ClosedDuringHandshake { .. }
            | McpError::Unreachable { .. }
            | McpError::Handshake { .. }
    )
}

async fn reap_idle(inner: Weak<Inner>, stop: CancellationToken) {
    loop {
        let interval = match inner.upgrade() {
            Some(inner) => inner.config.reap_interval,
            None => return,
        };
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            () = stop.cancelled() => return,
        }
        let Some(inner) = inner.upgrade() else { return };
        let entries: Vec<Arc<Entry>> = inner
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect();
        let (idle, grace) = (inner.config.idle_timeout, inner.config.shutdown_grace);
        drop(inner);
        for entry in entries {
            entry.reap_if_idle(idle, grace).await;
        }
    }
}

//! The pool of MCP connections, keyed by (owner, server id).
//!
//! One connection per server is shared by every caller and multiplexes their calls. The
//! manager caches tool lists (dropped when the server says they changed), closes idle
//! connections, reconnects with backoff when a connection dies, leaves a server that cannot
//! be reached out at once while it tries it again in the background ([`breaker`]), and never
//! sends a tool call twice unless the tool says doing so is harmless.

mod background;
mod breaker;
mod entry;
mod redactor;
mod retry;
mod sign_in;
mod status;
mod task_route;
mod tasks;
mod tools;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource, ResourceTemplate,
};
use switchboard_core::{OwnerId, ServerId, ServerSpec, ToolInfo};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use entry::same_connection;
pub use status::{ConnectionSnapshot, ConnectionStatus, ServerReport, StatusChange};

use crate::client::Notices;
use crate::config::ManagerConfig;
use crate::connection::{CallLimits, PromptInput};
use crate::destination::HttpClients;
use crate::error::McpError;
use crate::oauth::SignIns;
use crate::policy::{AdmitAll, ConnectPolicy};
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
    http: HttpClients,
    policy: Arc<dyn ConnectPolicy>,
    entries: Mutex<HashMap<Key, Arc<Entry>>>,
    stop: CancellationToken,
    changes: tokio::sync::broadcast::Sender<StatusChange>,
    /// Where every connection's list changes and resource updates go.
    notices: Notices,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl ConnectionManager {
    /// Creates the pool and its idle reaper, admitting every connection ([`AdmitAll`]). Must
    /// be called inside a Tokio runtime.
    pub fn new(config: ManagerConfig) -> Self {
        Self::with_policy(config, Arc::new(AdmitAll))
    }

    /// Creates the pool with `policy` asked before every new connection; OAuth sign-ins are
    /// kept in this process's memory.
    pub fn with_policy(config: ManagerConfig, policy: Arc<dyn ConnectPolicy>) -> Self {
        Self::with_sign_ins(config, policy, Arc::new(SignIns::default()))
    }

    /// Creates the pool with `policy`, keeping OAuth sign-ins where `sign_ins` says.
    pub fn with_sign_ins(
        config: ManagerConfig,
        policy: Arc<dyn ConnectPolicy>,
        sign_ins: Arc<SignIns>,
    ) -> Self {
        let per_upstream = config.http_connections_per_upstream;
        let inner = Arc::new(Inner {
            config,
            http: HttpClients::new(
                http_client(per_upstream),
                policy.destination_rules(),
                sign_ins,
                per_upstream,
            ),
            policy,
            entries: Mutex::new(HashMap::new()),
            stop: CancellationToken::new(),
            changes: tokio::sync::broadcast::channel(1024).0,
            notices: Notices::new(),
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
                .or_insert_with(|| {
                    Arc::new(Entry::new(
                        owner.clone(),
                        server.clone(),
                        self.inner.changes.clone(),
                        self.inner.notices.for_server(owner, server),
                        breaker::Breaker::new(self.inner.config.breaker.clone()),
                    ))
                }),
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
        if self.inner.stop.is_cancelled() {
            return Err(McpError::ShutDown);
        }
        let live = entry
            .connection(
                spec,
                &self.inner.config,
                &self.inner.http,
                self.inner.policy.as_ref(),
            )
            .await;
        if let Err(McpError::Unavailable { .. }) = &live {
            self.try_in_background(entry);
        }
        live
    }

    /// The server's tools (every page), from the cache when it is fresh.
    pub async fn list_tools(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Arc<Vec<ToolInfo>>, McpError> {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let listed = self
            .with_reconnect(&entry, spec, |live| {
                let entry = Arc::clone(&entry);
                async move { self.tools_of(&entry, &live, spec).await }
            })
            .await;
        clean(listed, spec)
    }

    async fn tools_of(
        &self,
        entry: &Entry,
        live: &Live,
        spec: &ServerSpec,
    ) -> Result<Arc<Vec<ToolInfo>>, McpError> {
        Ok(self.cached_tools(entry, live, spec).await?.tools)
    }

    /// The server's tool list, from the cache when it is fresh, else fetched and cached.
    async fn cached_tools(
        &self,
        entry: &Entry,
        live: &Live,
        spec: &ServerSpec,
    ) -> Result<CachedTools, McpError> {
        let ttl = self.inner.config.tool_cache_ttl;
        let generation = live.conn.tools_generation();
        if let Some(cached) = entry
            .tools
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            && cached.is_fresh(ttl, live.instance, generation)
        {
            return Ok(cached.clone());
        }
        // Boxed: listing (every page) is a large future that a call finding its tools
        // cached never runs, and each call's future would otherwise carry (and copy) its
        // size.
        let tools = Box::pin(live.conn.list_tools(self.limits(spec, None))).await?;
        let dialect = live.conn.task_dialect();
        let tools: Vec<ToolInfo> = tools
            .into_iter()
            .map(|t| tool_info(&spec.id, t, dialect))
            .collect();
        let tasks = tools
            .iter()
            .filter_map(|t| Some((t.name.clone(), t.tasks?.support)))
            .collect();
        let cached = CachedTools::new(
            tools::bounded(&spec.name, tools),
            tasks,
            live.instance,
            generation,
        );
        *entry.tools.lock().unwrap_or_else(PoisonError::into_inner) = Some(cached.clone());
        Ok(cached)
    }

    /// One request on `owner`'s connection to `spec` (connected or reconnected as needed,
    /// counted as activity, with the server's call limits), its answer and error cleaned of
    /// the spec's secrets: what every request but a tool call (`retry.rs`) shares.
    async fn request<T, F, Fut>(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        send: F,
    ) -> Result<T, McpError>
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
        F: Fn(Live, CallLimits) -> Fut,
        Fut: Future<Output = Result<T, McpError>>,
    {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let limits = self.limits(spec, None);
        self.with_reconnect(&entry, spec, |live| {
            // The live connection's redactor also knows the OAuth tokens it sends.
            let redactor = live.redactor.current(&live.conn);
            let sent = send(live, limits);
            async move { clean_with(sent.await, &redactor) }
        })
        .await
        // What failed before an answer (connecting) with the spec's secrets cut out.
        .map_err(|error| error.redacted(&spec.redactor()))
    }

    pub async fn list_resources(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Vec<Resource>, McpError> {
        self.request(owner, spec, |live, limits| async move {
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
        self.request(owner, spec, |live, limits| async move {
            live.conn.read_resource(uri, limits).await
        })
        .await
    }

    pub async fn list_resource_templates(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Vec<ResourceTemplate>, McpError> {
        self.request(owner, spec, |live, limits| async move {
            live.conn.list_resource_templates(limits).await
        })
        .await
    }

    /// `resources/subscribe` (`on`) or `resources/unsubscribe` for `uri`, when the server
    /// offers subscriptions; a server that does not is left alone.
    pub async fn subscribe_resource(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        uri: &str,
        on: bool,
    ) -> Result<(), McpError> {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let limits = self.limits(spec, None);
        let done = self
            .with_reconnect(&entry, spec, |live| async move {
                if !live.conn.offers_subscriptions() {
                    return Ok(());
                }
                live.conn.subscribe(uri, on, limits).await
            })
            .await;
        if done.is_ok() {
            let mut subscriptions = entry
                .subscriptions
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if on {
                subscriptions.insert(uri.to_owned());
            } else {
                subscriptions.remove(uri);
            }
        }
        clean_error(done, spec)
    }

    pub async fn complete(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        params: CompleteRequestParams,
    ) -> Result<CompleteResult, McpError> {
        self.request(owner, spec, |live, limits| {
            let params = params.clone();
            async move { live.conn.complete(params, limits).await }
        })
        .await
    }

    pub async fn list_prompts(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Vec<Prompt>, McpError> {
        self.request(owner, spec, |live, limits| async move {
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
        let mut params = GetPromptRequestParams::new(name.to_owned());
        params.arguments = arguments;
        match self
            .get_prompt_with(owner, spec, params, PromptInput::Answer(None))
            .await?
        {
            GetPromptResponse::Complete(result) => Ok(result),
            // Answered here, never handed back.
            _ => Err(McpError::Protocol {
                server: spec.name.clone(),
                detail: "prompts/get still required input".to_owned(),
            }),
        }
    }

    /// `prompts/get` with the request's own input responses and state, its input-required
    /// answer handled as `input` says.
    pub async fn get_prompt_with(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        params: GetPromptRequestParams,
        input: PromptInput,
    ) -> Result<GetPromptResponse, McpError> {
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let limits = self.limits(spec, None);
        let prompt = self
            .with_reconnect(&entry, spec, |live| {
                let params = params.clone();
                let input = &input;
                async move { live.conn.get_prompt(params, input, limits).await }
            })
            .await;
        match clean_error(prompt, spec)? {
            GetPromptResponse::Complete(prompt) => {
                clean(Ok(prompt), spec).map(GetPromptResponse::Complete)
            }
            asked => Ok(asked),
        }
    }

    /// Connects to `spec` for `owner` just to look: server info, capabilities and tools. The
    /// connection is closed afterwards and the pool is not touched, except that a server
    /// held back because it could not be reached is not any more when the test reaches it
    /// (a person looked: the next use connects).
    pub async fn test_connection(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<ServerReport, McpError> {
        let report = clean(self.test_connection_unredacted(owner, spec).await, spec);
        if report.is_ok()
            && let Some(entry) = self.existing(owner, &spec.id)
        {
            entry.breaker.close();
        }
        report
    }

    async fn test_connection_unredacted(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<ServerReport, McpError> {
        let config = &self.inner.config;
        let admission = self.inner.policy.admit(owner, spec).await?;
        let conn = self
            .inner
            .http
            .connect(owner, spec, config, admission)
            .await?;
        let tools = conn.list_tools(self.limits(spec, None)).await;
        let details = conn.details().clone();
        let dialect = conn.task_dialect();
        conn.close(config.shutdown_grace).await;
        let tools = tools?
            .into_iter()
            .map(|t| tool_info(&spec.id, t, dialect))
            .collect();
        Ok(ServerReport { details, tools })
    }

    /// The state of the connection to `server`.
    pub fn snapshot(&self, owner: &OwnerId, server: &ServerId) -> ConnectionSnapshot {
        self.existing(owner, server)
            .map(|entry| entry.snapshot())
            .unwrap_or_else(ConnectionSnapshot::disconnected)
    }

    /// Every status change of every connection, as it happens. A slow receiver misses
    /// changes (`Lagged`) rather than slow the connections; `snapshot` has the current state.
    pub fn status_changes(&self) -> tokio::sync::broadcast::Receiver<StatusChange> {
        self.inner.changes.subscribe()
    }

    /// Every `notifications/{tools,resources,prompts}/list_changed` of every connection. A
    /// slow receiver misses some (`Lagged`); it should then treat every list as changed.
    pub fn list_changes(&self) -> tokio::sync::broadcast::Receiver<crate::ListChange> {
        self.inner.notices.list_changes()
    }

    /// Every `notifications/resources/updated` of every connection (lagging as above).
    pub fn resource_updates(&self) -> tokio::sync::broadcast::Receiver<crate::ResourceUpdate> {
        self.inner.notices.resource_updates()
    }

    /// Gives the open connection to `spec` its (edited) roots; the server is told they changed.
    pub fn update_roots(&self, owner: &OwnerId, spec: &ServerSpec) {
        if let Some(entry) = self.existing(owner, &spec.id) {
            entry.update_roots(spec);
        }
    }

    /// What `owner`'s `server` logged (`notifications/message`), oldest first: the last lines,
    /// secrets cut out (see [`crate::ServerLogLine`]).
    pub fn server_log(&self, owner: &OwnerId, server: &ServerId) -> Vec<crate::ServerLogLine> {
        self.inner.notices.logs.lines(owner, server)
    }

    /// Every line any server logs from now on, with whose server it is.
    pub fn follow_logs(&self) -> tokio::sync::broadcast::Receiver<crate::LoggedLine> {
        self.inner.notices.logs.follow()
    }

    /// Follows the state of the connection to `server` as it changes.
    pub fn subscribe(
        &self,
        owner: &OwnerId,
        server: &ServerId,
    ) -> watch::Receiver<ConnectionSnapshot> {
        self.entry(owner, server).subscribe()
    }

    /// The process group of a connected stdio server (its id is the pid of the group's
    /// leader: the server, or the guard that runs it when one is configured).
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

    /// Closes every connection; stdio servers are ended with their process groups. Calls
    /// still running fail as lost, and later ones with [`McpError::ShutDown`].
    pub async fn shutdown(&self) {
        self.inner.stop.cancel();
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

impl ConnectionManager {
    /// The state of every connection slot the pool holds, with its owner and server (a node
    /// sends these to a host that starts watching it).
    pub fn snapshots(&self) -> Vec<(OwnerId, ServerId, ConnectionSnapshot)> {
        let entries: Vec<((OwnerId, ServerId), Arc<Entry>)> = self
            .inner
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(key, entry)| (key.clone(), Arc::clone(entry)))
            .collect();
        entries
            .into_iter()
            .map(|((owner, server), entry)| (owner, server, entry.snapshot()))
            .collect()
    }

    /// How many stdio servers are running (connections with a process group).
    pub fn process_count(&self) -> usize {
        let entries: Vec<Arc<Entry>> = self
            .inner
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect();
        entries
            .iter()
            .filter(|entry| entry.process_group().is_some())
            .count()
    }
}

/// `result` with `spec`'s secrets cut out of its error: every error the manager hands out
/// passes here (see [`crate::redact`]).
/// `result` with the server's own secrets cut out of its error.
fn clean_error<T>(result: Result<T, McpError>, spec: &ServerSpec) -> Result<T, McpError> {
    result.map_err(|error| error.redacted(&spec.redactor()))
}

/// `result` with the server's own secrets cut out of its error and of every string of its
/// answer (a resource, a prompt, a completion may repeat a header or an env value; tool
/// results are cut the same way in `retry.rs`).
fn clean<T>(result: Result<T, McpError>, spec: &ServerSpec) -> Result<T, McpError>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    clean_with(result, &spec.redactor())
}

/// [`clean`] with `redactor` (a live connection's, which also knows its OAuth tokens).
fn clean_with<T>(
    result: Result<T, McpError>,
    redactor: &switchboard_core::spec::Redactor,
) -> Result<T, McpError>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    match result {
        Err(error) => Err(error.redacted(redactor)),
        Ok(answer) if redactor.is_empty() => Ok(answer),
        Ok(answer) => Ok(redact_answer(answer, redactor)),
    }
}

/// `answer` with the secrets cut out of every string, through its JSON form. An answer that
/// does not read back after the cut (a secret inside a field the type parses) is kept whole
/// but for nothing: better an error than the secret.
fn redact_answer<T>(answer: T, redactor: &switchboard_core::spec::Redactor) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let Ok(value) = serde_json::to_value(&answer) else {
        return answer;
    };
    let cut = crate::redact::redact_value(value.clone(), redactor);
    if cut == value {
        return answer;
    }
    serde_json::from_value(cut).unwrap_or(answer)
}

/// The HTTP client shared by every remote server. Redirects are followed only within the same
/// origin: reqwest drops `Authorization` on a cross-host redirect but not an API-key or custom
/// header, which would then reach a host the user never configured. At most `idle_per_host`
/// idle connections are kept per host: the requests to one server are bounded by the same
/// number (see [`crate::transport::upstream_limit`]).
fn http_client(idle_per_host: usize) -> reqwest::Client {
    let same_origin = reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(|url| url.origin());
        if attempt.previous().len() > 5 || first != Some(attempt.url().origin()) {
            attempt.stop()
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .redirect(same_origin)
        .pool_max_idle_per_host(idle_per_host)
        .build()
        .unwrap_or_else(|error| {
            // Building fails only when the TLS back end cannot start, in which case no client
            // works; the default one reports that on first use.
            tracing::warn!(%error, "falling back to the default HTTP client");
            reqwest::Client::default()
        })
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

#[cfg(test)]
mod tests {
    use rmcp::model::{ReadResourceResult, ResourceContents};
    use switchboard_core::spec::Redactor;

    use super::redact_answer;

    #[test]
    fn a_resource_repeating_the_servers_secret_reaches_no_one_whole() {
        let redactor = Redactor::new(["sk-live-0123456789".to_owned()]);
        let read = ReadResourceResult::new(vec![ResourceContents::text(
            "token=sk-live-0123456789 in the config",
            "debug://env",
        )]);
        let cut = redact_answer(read, &redactor);
        let text = serde_json::to_string(&cut).unwrap_or_default();
        assert!(!text.contains("sk-live-0123456789"), "{text}");
        assert!(text.contains("debug://env"), "{text}");
    }
}

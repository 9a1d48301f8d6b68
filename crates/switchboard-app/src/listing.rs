//! Bounded tools listings. Listing the tools of all a user's servers (`GET /api/chat/tools`,
//! and the catalog every run gathers) connects to each server and keeps every tool with its
//! schemas: unbounded, one request could connect to thousands of servers at once and hold
//! everything they send, and parallel requests multiplied that (19,998 servers and
//! six listings grew the process to 2.18 GB).
//!
//! [`BoundedBackend`] wraps the backend the routes and the agent use and bounds each listing:
//! at most `listing_servers` servers are listed, `listing_concurrency` of them connected at
//! once; their tools are kept while they fit in `listing_tools` tools and
//! `listing_schema_bytes` bytes of schemas (a server whose tools do not fit is reported
//! unavailable, with `QUOTA_EXCEEDED`, rather than cut in the middle); and at most
//! `listings_at_once` listings run at once in the process, the others wait their turn. What a
//! listing holds is then bounded whatever the user stored, and so is their product.

use std::io::Write;
use std::sync::{Arc, PoisonError, RwLock};

use futures::StreamExt as _;
use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, JsonObject};
use switchboard_core::{OwnerId, PerList, Refusal, ServerSpec, ToolInfo};
use switchboard_mcp::{CallOptions, McpError, ServerTools, ToolBackend};
use tokio::sync::Semaphore;

use crate::limits::Limits;

/// A [`ToolBackend`] whose listings are bounded; calls pass through.
pub struct BoundedBackend {
    inner: Arc<dyn ToolBackend>,
    bounds: RwLock<Arc<Bounds>>,
    /// The bytes of schemas of the tool lists calls looked in.
    sizes: PerList<(), usize>,
}

struct Bounds {
    limits: Limits,
    listings: Arc<Semaphore>,
}

impl Bounds {
    fn new(limits: &Limits) -> Arc<Self> {
        Arc::new(Self {
            limits: limits.clone(),
            listings: Arc::new(Semaphore::new(limits.listings_at_once.max(1))),
        })
    }
}

/// What one listing has kept so far.
#[derive(Default)]
struct Kept {
    tools: usize,
    schema_bytes: usize,
}

impl BoundedBackend {
    pub fn new(inner: Arc<dyn ToolBackend>, limits: &Limits) -> Self {
        Self {
            inner,
            bounds: RwLock::new(Bounds::new(limits)),
            sizes: PerList::default(),
        }
    }

    /// Replaces the bounds (the configuration is settled after the agent is built); listings
    /// already going on keep theirs.
    pub fn set_limits(&self, limits: &Limits) {
        *self.bounds.write().unwrap_or_else(PoisonError::into_inner) = Bounds::new(limits);
    }

    async fn list(&self, owner: &OwnerId, servers: &[ServerSpec]) -> Vec<ServerTools> {
        let bounds = Arc::clone(&self.bounds.read().unwrap_or_else(PoisonError::into_inner));
        let limits = &bounds.limits;
        // Closed never: the semaphore lives as long as `bounds`.
        let _turn = bounds.listings.acquire().await;
        let enabled: Vec<&ServerSpec> = servers.iter().filter(|s| s.enabled).collect();
        let (listed, beyond) = enabled.split_at(enabled.len().min(limits.listing_servers));
        // Futures do nothing until polled: `buffered` starts `listing_concurrency` at a time.
        let pending: Vec<BoxFuture<'_, Vec<ServerTools>>> = listed
            .iter()
            .map(|spec| self.inner.tools(owner, std::slice::from_ref(*spec)))
            .collect();
        let mut lists = futures::stream::iter(pending).buffered(limits.listing_concurrency.max(1));
        let mut out = Vec::with_capacity(listed.len() + 1);
        let mut kept = Kept::default();
        let mut full = false;
        let mut next = 0;
        while !full && let Some(results) = lists.next().await {
            next += 1;
            for (spec, tools) in results {
                let tools = match tools {
                    Ok(tools) if !kept.fits(&tools, limits) => {
                        full = true;
                        Err(too_many(&spec, limits))
                    }
                    other => other,
                };
                out.push((spec, tools));
            }
        }
        drop(lists);
        // The servers left out are answered for by one entry each kind (the first of them,
        // naming how many), not one each: thousands of identical errors would only be
        // thousands of log lines.
        let unlisted = &listed[next..];
        if let Some(first) = unlisted.first() {
            let refusal = Refusal::ListingFull {
                tools: limits.listing_tools,
                bytes: limits.listing_schema_bytes,
                left_out: unlisted.len(),
            };
            out.push(((*first).clone(), Err(refused(first, refusal))));
        }
        if let Some(first) = beyond.first() {
            let refusal = Refusal::ListingServers {
                max: limits.listing_servers,
                left_out: beyond.len(),
            };
            out.push(((*first).clone(), Err(refused(first, refusal))));
        }
        out
    }
}

impl BoundedBackend {
    /// Whether one server's `tools` fit in a listing by themselves. Their size is measured
    /// once per list the manager holds ([`PerList`]), not on every call: encoding the
    /// schemas to count their bytes was the largest cost of a proxied call.
    fn fits_alone(&self, tools: &Arc<Vec<ToolInfo>>, limits: &Limits) -> bool {
        if tools.len() > limits.listing_tools {
            return false;
        }
        let bytes = self
            .sizes
            .get_or(tools, (), || tools.iter().map(schema_bytes).sum::<usize>());
        bytes <= limits.listing_schema_bytes
    }
}

impl Kept {
    /// Keeps `tools` if they fit in what is left.
    fn fits(&mut self, tools: &[ToolInfo], limits: &Limits) -> bool {
        let tools_after = self.tools + tools.len();
        let bytes_after = self.schema_bytes + tools.iter().map(schema_bytes).sum::<usize>();
        if tools_after > limits.listing_tools || bytes_after > limits.listing_schema_bytes {
            return false;
        }
        self.tools = tools_after;
        self.schema_bytes = bytes_after;
        true
    }
}

/// The bytes of a tool's schemas and description as JSON, counted without building them.
fn schema_bytes(tool: &ToolInfo) -> usize {
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, &tool.input_schema);
    let _ = serde_json::to_writer(&mut counter, &tool.output_schema);
    counter.0 + tool.description.as_ref().map_or(0, String::len)
}

struct Counter(usize);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn too_many(spec: &ServerSpec, limits: &Limits) -> McpError {
    refused(
        spec,
        Refusal::ListingTooLarge {
            tools: limits.listing_tools,
            bytes: limits.listing_schema_bytes,
        },
    )
}

fn refused(spec: &ServerSpec, refusal: Refusal) -> McpError {
    McpError::Refused {
        server: spec.name.clone(),
        refusal,
    }
}

impl ToolBackend for BoundedBackend {
    fn tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        servers: &'a [ServerSpec],
    ) -> BoxFuture<'a, Vec<ServerTools>> {
        Box::pin(self.list(owner, servers))
    }

    /// One server's tools, bounded as they are in a listing (a server whose tools do not fit
    /// is refused), without taking a listing's turn: a call finds its tool here.
    fn server_tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>> {
        Box::pin(async move {
            let tools = self.inner.server_tools(owner, server).await?;
            let bounds = Arc::clone(&self.bounds.read().unwrap_or_else(PoisonError::into_inner));
            if self.fits_alone(&tools, &bounds.limits) {
                Ok(tools)
            } else {
                Err(too_many(server, &bounds.limits))
            }
        })
    }

    fn call<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        self.inner.call(owner, server, tool, arguments, options)
    }

    fn start_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<switchboard_mcp::Started, McpError>> {
        self.inner
            .start_task(owner, server, tool, arguments, options)
    }

    fn task_state<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: switchboard_mcp::TaskStep<'a>,
    ) -> BoxFuture<'a, Result<switchboard_mcp::TaskState, McpError>> {
        self.inner.task_state(owner, server, step)
    }

    fn task_outcome<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: switchboard_mcp::TaskStep<'a>,
        options: CallOptions,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        self.inner.task_outcome(owner, server, step, options, wait)
    }

    fn cancel_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: switchboard_mcp::TaskStep<'a>,
    ) -> BoxFuture<'a, Result<switchboard_mcp::TaskState, McpError>> {
        self.inner.cancel_task(owner, server, step)
    }

    fn update_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: switchboard_mcp::TaskStep<'a>,
        responses: rmcp::model::InputResponses,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        self.inner.update_task(owner, server, step, responses)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use switchboard_core::ToolAnnotations;

    use super::*;
    use switchboard_core::ErrorCode;

    /// A backend whose every server has `tools` tools, counting connections at once.
    #[derive(Default)]
    struct Counting {
        tools: usize,
        now: AtomicUsize,
        most: AtomicUsize,
        listed: AtomicUsize,
    }

    impl ToolBackend for Counting {
        fn tools<'a>(
            &'a self,
            _owner: &'a OwnerId,
            servers: &'a [ServerSpec],
        ) -> BoxFuture<'a, Vec<ServerTools>> {
            Box::pin(async move {
                let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
                self.most.fetch_max(now, Ordering::SeqCst);
                self.listed.fetch_add(servers.len(), Ordering::SeqCst);
                // Let the other listings start before this one ends.
                tokio::task::yield_now().await;
                let out = servers
                    .iter()
                    .map(|spec| {
                        let tools = (0..self.tools)
                            .map(|i| ToolInfo {
                                server_id: spec.id.clone(),
                                name: format!("t{i}"),
                                title: None,
                                description: None,
                                input_schema: serde_json::Map::new(),
                                output_schema: None,
                                annotations: ToolAnnotations::default(),
                                icons: Vec::new(),
                                meta: None,
                                tasks: None,
                            })
                            .collect();
                        (spec.clone(), Ok(Arc::new(tools)))
                    })
                    .collect();
                self.now.fetch_sub(1, Ordering::SeqCst);
                out
            })
        }

        fn call<'a>(
            &'a self,
            _owner: &'a OwnerId,
            _server: &'a ServerSpec,
            _tool: &'a str,
            _arguments: Option<JsonObject>,
            _options: CallOptions,
        ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
            Box::pin(async { Err(McpError::Cancelled) })
        }
    }

    fn servers(n: usize) -> Vec<ServerSpec> {
        (0..n)
            .map(|i| ServerSpec::http(format!("s{i}"), "http://127.0.0.1:9/mcp", None))
            .collect()
    }

    #[tokio::test]
    async fn a_listing_is_bounded_in_servers_connections_and_tools() {
        let inner = Arc::new(Counting {
            tools: 10,
            ..Counting::default()
        });
        let limits = Limits {
            listing_servers: 50,
            listing_concurrency: 4,
            listing_tools: 200,
            ..Limits::default()
        };
        let bounded = BoundedBackend::new(Arc::clone(&inner) as Arc<dyn ToolBackend>, &limits);
        let owner = OwnerId("alice".into());
        let many = servers(20_000);
        let listed = bounded.tools(&owner, &many).await;
        // The servers listed in order, then one error for those left out of the full
        // listing, and one for those past the 50 a listing covers.
        assert!(listed.len() <= 50 + 1, "{}", listed.len());
        let (last, first) = listed.split_last().unwrap();
        assert!(first.iter().zip(&many).all(|((a, _), b)| a.id == b.id));
        assert_eq!(last.0.id, many[50].id);
        // ...but at most 4 connected at once, and no more than the tools that fit were kept
        // (20 servers of 10), with the listing stopped soon after it was full.
        assert!(inner.most.load(Ordering::SeqCst) <= 4);
        let kept: usize = listed
            .iter()
            .filter_map(|(_, tools)| tools.as_ref().ok())
            .map(|tools| tools.len())
            .sum();
        assert_eq!(kept, 200);
        assert!(inner.listed.load(Ordering::SeqCst) <= 20 + 1 + 4);
        let refused = listed
            .iter()
            .filter(|(_, tools)| matches!(tools, Err(e) if e.code() == ErrorCode::QuotaExceeded))
            .count();
        // The server that did not fit, the rest of the 50, the servers past the 50.
        assert_eq!(refused, 3);
        let last = listed.last().unwrap().1.as_ref().unwrap_err().to_string();
        assert!(last.contains("19950 servers were left out"), "{last}");
    }

    #[tokio::test]
    async fn parallel_listings_wait_their_turn() {
        let inner = Arc::new(Counting {
            tools: 1,
            ..Counting::default()
        });
        let limits = Limits {
            listing_concurrency: 3,
            listings_at_once: 2,
            ..Limits::default()
        };
        let bounded = Arc::new(BoundedBackend::new(
            Arc::clone(&inner) as Arc<dyn ToolBackend>,
            &limits,
        ));
        let owner = OwnerId("alice".into());
        let many = servers(30);
        let listings = (0..6).map(|_| bounded.tools(&owner, &many));
        let all = futures::future::join_all(listings).await;
        assert!(
            all.iter()
                .all(|listed| listed.len() == 30 && listed.iter().all(|(_, t)| t.is_ok()))
        );
        // Two listings of three connections at most at any time, whatever the six asked.
        assert!(inner.most.load(Ordering::SeqCst) <= 2 * 3);
    }

    /// A backend whose one server always has the same list (as the manager's cache does).
    struct Fixed(Arc<Vec<ToolInfo>>);

    impl ToolBackend for Fixed {
        fn tools<'a>(
            &'a self,
            _owner: &'a OwnerId,
            servers: &'a [ServerSpec],
        ) -> BoxFuture<'a, Vec<ServerTools>> {
            let listed = servers
                .iter()
                .map(|spec| (spec.clone(), Ok(Arc::clone(&self.0))))
                .collect();
            Box::pin(async move { listed })
        }

        fn call<'a>(
            &'a self,
            _owner: &'a OwnerId,
            _server: &'a ServerSpec,
            _tool: &'a str,
            _arguments: Option<JsonObject>,
            _options: CallOptions,
        ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
            Box::pin(async { Err(McpError::Cancelled) })
        }
    }

    fn tool(name: &str, description: &str) -> ToolInfo {
        ToolInfo {
            server_id: switchboard_core::ServerId("s0".into()),
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema: serde_json::Map::new(),
            output_schema: None,
            annotations: ToolAnnotations::default(),
            icons: Vec::new(),
            meta: None,
            tasks: None,
        }
    }

    #[tokio::test]
    async fn a_call_finds_its_tools_bounded_as_a_listing_and_measured_once() {
        let owner = OwnerId("alice".into());
        let server = &servers(1)[0];
        let limits = Limits {
            listing_tools: 2,
            listing_schema_bytes: 100,
            ..Limits::default()
        };
        let list = Arc::new(vec![tool("a", "short"), tool("b", "short")]);
        let fits = BoundedBackend::new(Arc::new(Fixed(Arc::clone(&list))), &limits);
        for _ in 0..3 {
            let found = fits.server_tools(&owner, server).await.unwrap();
            assert!(Arc::ptr_eq(&found, &list));
        }
        assert_eq!(fits.sizes.len(), 1, "measured once");

        let long = Arc::new(vec![tool("a", &"x".repeat(200))]);
        let too_large = BoundedBackend::new(Arc::new(Fixed(long)), &limits);
        let error = too_large.server_tools(&owner, server).await.unwrap_err();
        assert_eq!(error.code(), ErrorCode::QuotaExceeded);

        let three = Arc::new(vec![tool("a", ""), tool("b", ""), tool("c", "")]);
        let too_many = BoundedBackend::new(Arc::new(Fixed(three)), &limits);
        let error = too_many.server_tools(&owner, server).await.unwrap_err();
        assert_eq!(error.code(), ErrorCode::QuotaExceeded);
    }
}

//! What the connection manager adds to a tool call.
//!
//! Each transport is measured twice against the same kind of server, server-everything's `echo`
//! tool: once through a bare rmcp client (`bare_rmcp`), once through [`ConnectionManager`]
//! (`manager`). Both are sequential round trips on a warm connection, so the difference between
//! the two medians is what the manager costs per call; the goal is under 50 µs.
//! `stdio/concurrent_100` sends 100 calls at once over one managed connection and reports calls
//! per second; `stdio/concurrent_100_bare_rmcp` is the same load on a bare client, to tell the
//! server's limit from the manager's.
//!
//! Run with `cargo bench -p switchboard-mcp --bench call_overhead`; BENCHMARKS.md at the
//! workspace root has the figures. The servers are the pinned test peers
//! (`scripts/test.sh --install-only`). Every fixture is set up the first time a benchmark needs
//! it, so a filtered run, or `cargo test --benches` (one iteration each), starts only what it
//! uses.

use std::cell::OnceCell;
use std::hint::black_box;
use std::process::Stdio;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use futures::future::join_all;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use switchboard_core::{OwnerId, ServerSpec, TransportKind};
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig};
use switchboard_testkit::{EverythingHttp, HttpPeer, Peers, StdioCommand};
use tokio::runtime::Runtime;

/// Calls in flight at once in the concurrent benchmarks.
const CONCURRENT_CALLS: usize = 100;
const WARM_UP: Duration = Duration::from_secs(2);
/// Per sequential benchmark: about 100 samples of a few hundred calls each.
const SEQUENTIAL_MEASUREMENT: Duration = Duration::from_secs(12);
/// Per concurrent benchmark: a batch takes milliseconds, so fewer, flat samples.
const CONCURRENT_MEASUREMENT: Duration = Duration::from_secs(10);
const CONCURRENT_SAMPLES: usize = 50;

type BareClient = RunningService<RoleClient, ()>;

/// A manager with one server, connected by a first call before any timing starts.
struct Managed {
    manager: ConnectionManager,
    owner: OwnerId,
    spec: ServerSpec,
}

impl Managed {
    async fn connect(spec: ServerSpec) -> Self {
        let managed = Self {
            manager: ConnectionManager::new(ManagerConfig::default()),
            owner: OwnerId::local(),
            spec,
        };
        check(&managed.call(&echo_args()).await);
        managed
    }

    async fn call(&self, args: &JsonObject) -> CallToolResult {
        self.manager
            .call_tool(
                &self.owner,
                &self.spec,
                "echo",
                Some(args.clone()),
                CallOptions::default(),
            )
            .await
            .expect("echo through the manager")
    }

    async fn close(self) {
        self.manager.shutdown().await;
    }
}

async fn bare_stdio(command: &StdioCommand) -> BareClient {
    // The manager keeps the server's stderr to itself; keep the bench output clean here too.
    let (transport, _) = TokioChildProcess::builder(command.to_tokio())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn server-everything for the bare client");
    let client = ().serve(transport).await.expect("bare rmcp handshake (stdio)");
    check(&bare_call(&client, &echo_args()).await);
    client
}

async fn bare_http(url: &str) -> BareClient {
    let transport = StreamableHttpClientTransport::from_uri(url);
    let client = ().serve(transport).await.expect("bare rmcp handshake (http)");
    check(&bare_call(&client, &echo_args()).await);
    client
}

async fn bare_call(client: &BareClient, args: &JsonObject) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(args.clone()))
        .await
        .expect("echo through bare rmcp")
}

async fn close_bare(client: BareClient) {
    // Dropping the transport ends the child anyway; the outcome of a goodbye does not matter.
    let _ = client.cancel().await;
}

fn echo_args() -> JsonObject {
    let mut args = JsonObject::new();
    args.insert("message".into(), "ping".into());
    args
}

/// The fixtures answer before timing starts, so a broken setup fails loudly instead of timing
/// error results.
fn check(result: &CallToolResult) {
    assert_ne!(result.is_error, Some(true), "echo failed: {result:?}");
}

fn stdio_spec(command: &StdioCommand) -> ServerSpec {
    let mut spec = ServerSpec::stdio("everything", command.program.clone(), command.args.clone());
    for (key, value) in &command.env {
        spec.env.insert(key.clone(), value.clone());
    }
    spec
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("build the tokio runtime")
}

fn stdio(c: &mut Criterion) {
    let rt = runtime();
    let command = Peers::locate().everything_stdio();
    let args = echo_args();
    let bare: OnceCell<BareClient> = OnceCell::new();
    let managed: OnceCell<Managed> = OnceCell::new();
    let bare_client = || bare.get_or_init(|| rt.block_on(bare_stdio(&command)));
    let managed_client =
        || managed.get_or_init(|| rt.block_on(Managed::connect(stdio_spec(&command))));

    let mut group = c.benchmark_group("stdio");
    group
        .warm_up_time(WARM_UP)
        .measurement_time(SEQUENTIAL_MEASUREMENT);
    group.bench_function("bare_rmcp", |b| {
        let client = bare_client();
        b.to_async(&rt)
            .iter(|| async { black_box(bare_call(client, &args).await) });
    });
    group.bench_function("manager", |b| {
        let managed = managed_client();
        b.to_async(&rt)
            .iter(|| async { black_box(managed.call(&args).await) });
    });

    group
        .throughput(Throughput::Elements(CONCURRENT_CALLS as u64))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(CONCURRENT_SAMPLES)
        .measurement_time(CONCURRENT_MEASUREMENT);
    group.bench_function("concurrent_100", |b| {
        let managed = managed_client();
        b.to_async(&rt).iter(|| async {
            black_box(join_all((0..CONCURRENT_CALLS).map(|_| managed.call(&args))).await)
        });
    });
    group.bench_function("concurrent_100_bare_rmcp", |b| {
        let client = bare_client();
        b.to_async(&rt).iter(|| async {
            black_box(join_all((0..CONCURRENT_CALLS).map(|_| bare_call(client, &args))).await)
        });
    });
    group.finish();

    rt.block_on(async {
        if let Some(client) = bare.into_inner() {
            close_bare(client).await;
        }
        if let Some(managed) = managed.into_inner() {
            managed.close().await;
        }
    });
}

fn http(c: &mut Criterion) {
    let rt = runtime();
    let args = echo_args();
    // One server process answers both clients.
    let peer: OnceCell<HttpPeer> = OnceCell::new();
    let url = || {
        peer.get_or_init(|| {
            rt.block_on(Peers::locate().everything_http(EverythingHttp::StreamableHttp))
                .expect("start server-everything over Streamable HTTP")
        })
        .url()
    };
    let bare: OnceCell<BareClient> = OnceCell::new();
    let managed: OnceCell<Managed> = OnceCell::new();

    let mut group = c.benchmark_group("http");
    group
        .warm_up_time(WARM_UP)
        .measurement_time(SEQUENTIAL_MEASUREMENT);
    group.bench_function("manager", |b| {
        let managed = managed.get_or_init(|| {
            let spec = ServerSpec::http("everything", url(), Some(TransportKind::StreamableHttp));
            rt.block_on(Managed::connect(spec))
        });
        b.to_async(&rt)
            .iter(|| async { black_box(managed.call(&args).await) });
    });
    group.bench_function("bare_rmcp", |b| {
        let client = bare.get_or_init(|| rt.block_on(bare_http(&url())));
        b.to_async(&rt)
            .iter(|| async { black_box(bare_call(client, &args).await) });
    });
    group.finish();

    rt.block_on(async {
        if let Some(client) = bare.into_inner() {
            close_bare(client).await;
        }
        if let Some(managed) = managed.into_inner() {
            managed.close().await;
        }
        if let Some(mut peer) = peer.into_inner() {
            peer.kill().await.expect("stop server-everything");
        }
    });
}

criterion_group!(benches, stdio, http);
criterion_main!(benches);

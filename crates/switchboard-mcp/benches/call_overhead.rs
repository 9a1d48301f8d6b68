//! What the connection manager adds to a tool call.
//!
//! Each transport is measured against the same kind of server, server-everything's `echo` tool,
//! through a bare rmcp client (`bare_rmcp`) and through [`ConnectionManager`] (`manager`): both
//! sequential round trips on a warm connection, so the difference between the two medians is
//! what the manager costs per call. The goal is under 50 µs.
//!
//! Those two run one after the other, so on a shared machine a change in load between them
//! shows up in their difference. `paired` alternates the two clients call by call, so both see
//! the same load; criterion reports the time of one pair (one call of each), and the bench
//! prints each side's median and their difference.
//!
//! `stdio/concurrent_100` sends 100 calls at once over one managed connection and reports calls
//! per second; `stdio/concurrent_100_bare_rmcp` is the same load on a bare client, to tell the
//! server's limit from the manager's.
//!
//! Run with `cargo bench -p switchboard-mcp --bench call_overhead`; BENCHMARKS.md at the
//! workspace root has the figures. The servers are the pinned test peers
//! (`scripts/test.sh --install-only`). Every client and server starts the first time a
//! benchmark needs it, so a filtered run, or `cargo test --benches` (one iteration each),
//! starts only what it uses.

use std::cell::{OnceCell, RefCell};
use std::hint::black_box;
use std::process::Stdio;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use futures::future::join_all;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use switchboard_core::{OwnerId, ServerSpec, TransportKind};
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig};
use switchboard_testkit::{EverythingHttp, HttpPeer, Peers, StdioCommand};
use tokio::runtime::Runtime;

/// Calls in flight at once in the concurrent benchmarks.
const CONCURRENT_CALLS: usize = 100;
const WARM_UP: Duration = Duration::from_secs(2);
const MEASUREMENT: Duration = Duration::from_secs(10);
/// An HTTP round trip takes milliseconds: fewer samples keep a benchmark near `MEASUREMENT`.
const HTTP_SAMPLES: usize = 50;
/// A concurrent batch or a pair of calls takes longer than one call: fewer, larger samples.
const BATCH_SAMPLES: usize = 50;
/// Below this many pairs (a test-mode run makes one) there is nothing worth printing.
const MIN_REPORTED_PAIRS: usize = 100;

type BareClient = RunningService<RoleClient, ()>;

fn stdio(c: &mut Criterion) {
    let rt = runtime();
    let clients = Clients::new(&rt, Server::Stdio(Peers::locate().everything_stdio()));
    let args = echo_args();
    let mut group = c.benchmark_group("stdio");
    group.warm_up_time(WARM_UP).measurement_time(MEASUREMENT);
    sequential(&mut group, &clients, &args);

    group
        .throughput(Throughput::Elements(CONCURRENT_CALLS as u64))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(BATCH_SAMPLES);
    group.bench_function("concurrent_100", |b| {
        let managed = clients.managed();
        b.to_async(&rt).iter(|| async {
            black_box(join_all((0..CONCURRENT_CALLS).map(|_| managed.call(&args))).await)
        });
    });
    group.bench_function("concurrent_100_bare_rmcp", |b| {
        let client = clients.bare();
        b.to_async(&rt).iter(|| async {
            black_box(join_all((0..CONCURRENT_CALLS).map(|_| bare_call(client, &args))).await)
        });
    });

    group
        .throughput(Throughput::Elements(2))
        .sampling_mode(SamplingMode::Auto);
    paired(&mut group, &clients, &args);
    group.finish();
    clients.close();
}

fn http(c: &mut Criterion) {
    let rt = runtime();
    let clients = Clients::new(&rt, Server::Http(OnceCell::new()));
    let args = echo_args();
    let mut group = c.benchmark_group("http");
    group
        .warm_up_time(WARM_UP)
        .measurement_time(MEASUREMENT)
        .sample_size(HTTP_SAMPLES);
    sequential(&mut group, &clients, &args);
    group
        .throughput(Throughput::Elements(2))
        .sample_size(BATCH_SAMPLES);
    paired(&mut group, &clients, &args);
    group.finish();
    clients.close();
}

/// `bare_rmcp` and `manager`: one call at a time.
fn sequential(group: &mut BenchmarkGroup<'_, WallTime>, clients: &Clients<'_>, args: &JsonObject) {
    group.bench_function("bare_rmcp", |b| {
        let client = clients.bare();
        b.to_async(clients.rt)
            .iter(|| async { black_box(bare_call(client, args).await) });
    });
    group.bench_function("manager", |b| {
        let managed = clients.managed();
        b.to_async(clients.rt)
            .iter(|| async { black_box(managed.call(args).await) });
    });
}

/// `paired`: a bare call and a managed call, in turns and each timed on its own, for as long as
/// criterion measures; then the medians of both sides are printed.
fn paired(group: &mut BenchmarkGroup<'_, WallTime>, clients: &Clients<'_>, args: &JsonObject) {
    let pairs: RefCell<Vec<(Duration, Duration)>> = RefCell::default();
    group.bench_function("paired", |b| {
        let client = clients.bare();
        let managed = clients.managed();
        let pairs = &pairs;
        b.to_async(clients.rt).iter_custom(|iters| async move {
            let mut total = Duration::ZERO;
            for i in 0..iters {
                // Alternate which goes first, so neither always follows the other.
                let (bare, manager) = if i % 2 == 0 {
                    let bare = timed(bare_call(client, args)).await;
                    (bare, timed(managed.call(args)).await)
                } else {
                    let manager = timed(managed.call(args)).await;
                    (timed(bare_call(client, args)).await, manager)
                };
                pairs.borrow_mut().push((bare, manager));
                total += bare + manager;
            }
            total
        });
    });
    let pairs = pairs.into_inner();
    if pairs.len() >= MIN_REPORTED_PAIRS {
        let count = pairs.len();
        let (bare, manager): (Vec<Duration>, Vec<Duration>) = pairs.into_iter().unzip();
        let (bare, manager) = (median_us(bare), median_us(manager));
        println!(
            "{}/paired: {count} pairs; median bare_rmcp {bare:.1} µs, manager {manager:.1} µs; \
             manager - bare {:.1} µs",
            clients.server.label(),
            manager - bare,
        );
    }
}

async fn timed<T>(call: impl Future<Output = T>) -> Duration {
    let start = Instant::now();
    black_box(call.await);
    start.elapsed()
}

fn median_us(mut samples: Vec<Duration>) -> f64 {
    samples.sort_unstable();
    samples
        .get(samples.len() / 2)
        .map_or(f64::NAN, |median| median.as_secs_f64() * 1e6)
}

/// The server both clients of a transport talk to.
enum Server {
    /// Each client starts its own process of this command.
    Stdio(StdioCommand),
    /// One process answers both clients; started when first needed.
    Http(OnceCell<HttpPeer>),
}

impl Server {
    fn label(&self) -> &'static str {
        match self {
            Server::Stdio(_) => "stdio",
            Server::Http(_) => "http",
        }
    }
}

/// The bare client and the manager of one transport, each connected on first use.
struct Clients<'rt> {
    rt: &'rt Runtime,
    server: Server,
    bare: OnceCell<BareClient>,
    managed: OnceCell<Managed>,
}

impl<'rt> Clients<'rt> {
    fn new(rt: &'rt Runtime, server: Server) -> Self {
        Self {
            rt,
            server,
            bare: OnceCell::new(),
            managed: OnceCell::new(),
        }
    }

    fn bare(&self) -> &BareClient {
        self.bare.get_or_init(|| match &self.server {
            Server::Stdio(command) => self.rt.block_on(bare_stdio(command)),
            Server::Http(peer) => self.rt.block_on(bare_http(&self.url(peer))),
        })
    }

    fn managed(&self) -> &Managed {
        self.managed.get_or_init(|| {
            let spec = match &self.server {
                Server::Stdio(command) => stdio_spec(command),
                Server::Http(peer) => ServerSpec::http(
                    "everything",
                    self.url(peer),
                    Some(TransportKind::StreamableHttp),
                ),
            };
            self.rt.block_on(Managed::connect(spec))
        })
    }

    fn url(&self, peer: &OnceCell<HttpPeer>) -> String {
        peer.get_or_init(|| {
            self.rt
                .block_on(Peers::locate().everything_http(EverythingHttp::StreamableHttp))
                .expect("start server-everything over Streamable HTTP")
        })
        .url()
    }

    fn close(self) {
        let Self {
            rt,
            server,
            bare,
            managed,
        } = self;
        rt.block_on(async {
            if let Some(client) = bare.into_inner() {
                // Dropping the transport ends the child anyway; a failed goodbye is harmless.
                let _ = client.cancel().await;
            }
            if let Some(managed) = managed.into_inner() {
                managed.manager.shutdown().await;
            }
            if let Server::Http(peer) = server
                && let Some(mut peer) = peer.into_inner()
            {
                peer.kill().await.expect("stop server-everything");
            }
        });
    }
}

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

/// rmcp's own default client (`StreamableHttpClientTransport::from_uri`) keeps no idle
/// connections, so every call would open a new TCP connection; the manager's client keeps them.
/// The baseline uses the manager's kind of client, so the difference is the manager's own code.
async fn bare_http(url: &str) -> BareClient {
    let transport = StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        StreamableHttpClientTransportConfig::with_uri(url),
    );
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

fn echo_args() -> JsonObject {
    let mut args = JsonObject::new();
    args.insert("message".into(), "ping".into());
    args
}

/// The clients make one call before timing starts, so a broken setup fails loudly instead of
/// timing error results.
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

criterion_group!(benches, stdio, http);
criterion_main!(benches);

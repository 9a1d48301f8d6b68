//! What the flat-parameter proxy adds to a tool call, and how much it carries.
//!
//! `POST /api/mcp/proxy/{server}/tools/echo/call` on a real `switchboard-server` (SQLite
//! store, bearer token) against an MCP server over Streamable HTTP, versus a direct call to
//! the same server through a `ConnectionManager` of the bench's own. The two are alternated
//! call by call, so both see the same load, and the added latency is taken per pair (proxy
//! minus direct); its median and p99 are what the goal is about (under 0.5 ms and 1 ms). Two
//! upstreams: server-everything (Node) and this binary's own demo server (Rust, rmcp), whose
//! round trips jitter far less, so the proxy's own tail shows. Then 64 clients call the proxy
//! at once for a few seconds: calls per second and the error rate.
//!
//! Run with `cargo bench -p switchboard --bench proxy` (the pinned test peers must be
//! installed: `scripts/test.sh --install-only`). `PROXY_BENCH_PAIRS` sets the number of pairs
//! (default 3000); `cargo test --benches` runs a handful, as a smoke test.

// A bench binary: a failure is a failed run, reported by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_app::{App, AppConfig};
use switchboard_core::{OwnerId, ServerSpec, TransportKind};
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig};
use switchboard_server::{AppState, AuthMode, ServerConfig, app};
use switchboard_store::{Role, StoreConfig};
use switchboard_testkit::{EverythingHttp, Peers};

const CLIENTS: usize = 64;

fn main() {
    let smoke =
        std::env::args().any(|a| a == "--test") || !std::env::args().any(|a| a == "--bench");
    let pairs: usize = if smoke {
        20
    } else {
        std::env::var("PROXY_BENCH_PAIRS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3000)
    };
    let throughput_for = if smoke {
        Duration::from_millis(300)
    } else {
        Duration::from_secs(5)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(pairs, throughput_for));
}

async fn run(pairs: usize, throughput_for: Duration) {
    let mut everything = Peers::locate()
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .expect("start server-everything over Streamable HTTP");
    let (demo, demo_url) = start_demo().await;
    let upstreams = [
        ("everything", everything.url(), json!({"message": "hello"})),
        ("demo", demo_url, json!({"text": "hello"})),
    ];

    // The API, with both servers.
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let token = store.issue_token(&admin.id, "bench").await.unwrap().secret;
    let mut specs = Vec::new();
    for (name, url, _) in &upstreams {
        let spec = ServerSpec::http(*name, url.clone(), Some(TransportKind::StreamableHttp));
        store.create_server(&admin.id, &spec).await.unwrap();
        specs.push(spec);
    }
    let application = Arc::new(App::on_store(Arc::clone(&store), AppConfig::default()).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let base = format!("http://{address}");
    // As `serve` runs it: the Host and Origin guard knows the address, and the connection
    // layer (header timeout, connection cap, peer addresses) is the real one.
    let mut config = ServerConfig::default();
    config.guard.listen = Some(address);
    let limits = application.limits.clone();
    let state = AppState::new(Arc::clone(&application), config, AuthMode::Tokens);
    tokio::spawn(async move {
        switchboard_server::serve(listener, app(state), &limits, std::future::pending()).await
    });
    let client = reqwest::Client::new();
    // The direct path: a manager of the bench's own on the same servers.
    let direct = ConnectionManager::new(ManagerConfig::default());

    for ((name, _, body), spec) in upstreams.iter().zip(&specs) {
        let url = format!("{base}/api/mcp/proxy/{name}/tools/echo/call");
        pairs_against(&client, &token, &url, body, &direct, spec, pairs).await;
        throughput(&client, &token, &url, body, name, throughput_for).await;
    }

    direct.shutdown().await;
    application.pool.shutdown().await;
    let _ = everything.kill().await;
    drop(demo);
}

/// This binary's demo server over Streamable HTTP; the child is killed when dropped.
async fn start_demo() -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["demo-server", "--http", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn demo-server --http");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("demo-server exited before listening");
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

async fn pairs_against(
    client: &reqwest::Client,
    token: &str,
    url: &str,
    body: &serde_json::Value,
    direct: &ConnectionManager,
    spec: &ServerSpec,
    pairs: usize,
) {
    let owner = OwnerId::local();
    let arguments = body.as_object().cloned();
    let proxy_call = || async {
        let response = client
            .post(url)
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .unwrap();
        let ok = response.status().is_success();
        let _ = response.bytes().await;
        assert!(ok, "the proxy call failed");
    };
    let direct_call = || async {
        direct
            .call_tool(
                &owner,
                spec,
                "echo",
                arguments.clone(),
                CallOptions::default(),
            )
            .await
            .unwrap();
    };
    // Warm both paths: connections, sessions, caches, the store's pages.
    for _ in 0..50.min(pairs) {
        proxy_call().await;
        direct_call().await;
    }
    let mut proxy = Vec::with_capacity(pairs);
    let mut plain = Vec::with_capacity(pairs);
    let mut added = Vec::with_capacity(pairs);
    for i in 0..pairs {
        // Alternate which goes first, so neither always meets a just-warmed server.
        let (p, d) = if i % 2 == 0 {
            let p = timed(proxy_call()).await;
            (p, timed(direct_call()).await)
        } else {
            let d = timed(direct_call()).await;
            (timed(proxy_call()).await, d)
        };
        proxy.push(p);
        plain.push(d);
        added.push(p - d);
    }
    println!("== upstream {} ==", spec.name);
    report("direct MCP call", &mut plain);
    report("proxy call", &mut proxy);
    report("added by the proxy (per pair)", &mut added);
}

async fn throughput(
    client: &reqwest::Client,
    token: &str,
    url: &str,
    body: &serde_json::Value,
    name: &str,
    throughput_for: Duration,
) {
    let done = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + throughput_for;
    let mut clients = Vec::with_capacity(CLIENTS);
    for _ in 0..CLIENTS {
        let (client, url, token, body) = (
            client.clone(),
            url.to_owned(),
            token.to_owned(),
            body.clone(),
        );
        let (done, failed) = (Arc::clone(&done), Arc::clone(&failed));
        clients.push(tokio::spawn(async move {
            while Instant::now() < until {
                let response = client
                    .post(&url)
                    .bearer_auth(&token)
                    .json(&body)
                    .send()
                    .await;
                match response {
                    Ok(r) if r.status().is_success() => {
                        let _ = r.bytes().await;
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    _ => {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    let started = Instant::now();
    for client in clients {
        client.await.unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let (done, failed) = (done.load(Ordering::Relaxed), failed.load(Ordering::Relaxed));
    #[allow(clippy::cast_precision_loss)]
    let (rate, error_rate) = (
        done as f64 / elapsed,
        failed as f64 / (done + failed).max(1) as f64,
    );
    println!(
        "proxy throughput to {name}, {CLIENTS} concurrent clients: {rate:.0} calls/s ({done} ok, {failed} failed, error rate {:.2}%)",
        error_rate * 100.0
    );
}

/// Milliseconds `call` took.
async fn timed<T>(call: impl std::future::Future<Output = T>) -> f64 {
    let started = Instant::now();
    let _ = call.await;
    started.elapsed().as_secs_f64() * 1000.0
}

fn report(what: &str, samples: &mut [f64]) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let i = ((samples.len() - 1) as f64 * q).round() as usize;
        samples[i]
    };
    println!(
        "{what}: median {:.3} ms, p99 {:.3} ms ({} samples)",
        at(0.5),
        at(0.99),
        samples.len()
    );
}

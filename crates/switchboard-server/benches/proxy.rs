//! What the flat-parameter proxy adds to a tool call, and how much it carries.
//!
//! `POST /api/mcp/proxy/everything/tools/echo/call` on a real `switchboard-server` (SQLite
//! store, bearer token) against server-everything over Streamable HTTP, versus a direct call
//! to the same server through a `ConnectionManager` of the bench's own. The two are
//! alternated call by call, so both see the same load, and the added latency is taken per
//! pair (proxy minus direct); its median and p99 are what the goal is about (under 0.5 ms and
//! 1 ms). Then 64 clients call the proxy at once for a few seconds: calls per second and the
//! error rate.
//!
//! Run with `cargo bench -p switchboard-server --bench proxy` (the pinned test peers must be
//! installed: `scripts/test.sh --install-only`). `PROXY_BENCH_PAIRS` sets the number of pairs
//! (default 3000); `cargo test --benches` runs a handful, as a smoke test.

// A bench binary: a failure is a failed run, reported by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_agent::AgentConfig;
use switchboard_core::{OwnerId, ServerSpec, TransportKind};
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig};
use switchboard_server::{AppState, AuthMode, app};
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
    let mut peer = Peers::locate()
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .expect("start server-everything over Streamable HTTP");
    let spec = ServerSpec::http(
        "everything",
        peer.url(),
        Some(TransportKind::StreamableHttp),
    );

    // The API.
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let token = store.issue_token(&admin.id, "bench").await.unwrap().secret;
    store.create_server(&admin.id, &spec).await.unwrap();
    let manager = Arc::new(ConnectionManager::new(ManagerConfig::default()));
    let state = AppState::new(
        Arc::clone(&store),
        manager.clone(),
        AgentConfig::default(),
        AuthMode::Tokens,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/api/mcp/proxy/everything/tools/echo/call",
        listener.local_addr().unwrap()
    );
    tokio::spawn(async move { axum::serve(listener, app(state)).await });
    let client = reqwest::Client::new();

    // The direct path: a manager of the bench's own on the same server.
    let direct = ConnectionManager::new(ManagerConfig::default());
    let owner = OwnerId::local();
    let arguments = json!({"message": "hello"}).as_object().cloned();

    let proxy_call = || async {
        let response = client
            .post(&url)
            .bearer_auth(&token)
            .json(&json!({"message": "hello"}))
            .send()
            .await
            .unwrap();
        let ok = response.status().is_success();
        let _ = response.bytes().await;
        ok
    };
    let direct_call = || async {
        direct
            .call_tool(
                &owner,
                &spec,
                "echo",
                arguments.clone(),
                CallOptions::default(),
            )
            .await
            .unwrap();
    };

    // Warm both paths: connections, sessions, caches, the store's pages.
    for _ in 0..50.min(pairs) {
        assert!(proxy_call().await, "the proxy call failed");
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
    report("direct MCP call", &mut plain);
    report("proxy call", &mut proxy);
    report("added by the proxy (per pair)", &mut added);

    // Throughput: 64 clients at once.
    let done = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + throughput_for;
    let mut clients = Vec::with_capacity(CLIENTS);
    for _ in 0..CLIENTS {
        let (client, url, token) = (client.clone(), url.clone(), token.clone());
        let (done, failed) = (Arc::clone(&done), Arc::clone(&failed));
        clients.push(tokio::spawn(async move {
            while Instant::now() < until {
                let response = client
                    .post(&url)
                    .bearer_auth(&token)
                    .json(&json!({"message": "hello"}))
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
        "proxy throughput, {CLIENTS} concurrent clients: {rate:.0} calls/s ({done} ok, {failed} failed, error rate {:.2}%)",
        error_rate * 100.0
    );

    direct.shutdown().await;
    manager.shutdown().await;
    let _ = peer.kill().await;
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

//! What the gRPC hop to an MCP node adds to a tool call.
//!
//! The same stdio server, this binary's own demo server (`switchboard demo-server`, whose
//! `echo` answers at once), called three ways: through a local `ConnectionManager`, and
//! through a `Router` to a `switchboard node` child process on loopback, once over plaintext
//! h2c and once over TLS (certificates made by rcgen at start). The three are alternated call
//! by call, so all see the same load, and the added latency is taken per round (node minus
//! local); its median and p99 are what the goal is about (under 100 µs at the median). Then
//! 64 tasks call each path at once for a few seconds: calls per second.
//!
//! Run with `cargo bench -p switchboard --bench node_hop`. `NODE_HOP_ROUNDS` sets the number
//! of rounds (default 5000); `cargo test --benches` runs a handful, as a smoke test.

// A bench binary: a failure is a failed run, reported by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, ExtendedKeyUsagePurpose, IsCa, KeyPair,
};
use serde_json::json;
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_grpc::{NodeConfig, Router};
use switchboard_mcp::{AdmitAll, CallOptions, ConnectionManager, ManagerConfig, ToolBackend};

const CONCURRENT: usize = 64;
const TOKEN: &str = "node-hop-bench-token";
const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

fn main() {
    let smoke =
        std::env::args().any(|a| a == "--test") || !std::env::args().any(|a| a == "--bench");
    let rounds: usize = if smoke {
        20
    } else {
        std::env::var("NODE_HOP_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(5000)
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
    runtime.block_on(run(rounds, throughput_for));
}

/// One way to reach the demo server.
struct Path {
    name: &'static str,
    backend: Arc<dyn ToolBackend>,
    spec: ServerSpec,
}

async fn run(rounds: usize, throughput_for: Duration) {
    let certs = tempfile::tempdir().unwrap();
    let (ca_pem, cert, key) = certificates(certs.path());
    let mut plain = NodeChild::start(&[]);
    let mut tls = NodeChild::start(&[
        "--tls-cert".into(),
        cert.to_string_lossy().into_owned(),
        "--tls-key".into(),
        key.to_string_lossy().into_owned(),
    ]);
    let node = |name: &str, url: &str, ca: Option<Vec<u8>>| NodeConfig {
        name: name.to_owned(),
        url: url.to_owned(),
        token: TOKEN.to_owned(),
        ca_pem: ca,
        client_identity: None,
        allow_plaintext: false,
    };
    let router = Router::new(
        Arc::new(ConnectionManager::new(ManagerConfig::default())),
        vec![
            node("plain", &plain.url, None),
            node("tls", &tls.url, Some(ca_pem)),
        ],
        Arc::new(AdmitAll),
    )
    .expect("a router to both nodes");
    let router = Arc::new(router);
    let plain_node = Arc::clone(router.node("plain").expect("the plaintext node"));
    let router: Arc<dyn ToolBackend> = router;
    let local = Arc::new(ConnectionManager::new(ManagerConfig::default()));

    let demo = ServerSpec::stdio("demo", BIN, ["demo-server"]);
    let on = |node: &str| {
        let mut spec = demo.clone();
        spec.node = Some(node.to_owned());
        spec
    };
    let paths = [
        Path {
            name: "local manager",
            backend: local.clone(),
            spec: demo.clone(),
        },
        Path {
            name: "node, plaintext h2c",
            backend: router.clone(),
            spec: on("plain"),
        },
        Path {
            name: "node, TLS",
            backend: router.clone(),
            spec: on("tls"),
        },
    ];

    // Warm every path: processes, sessions, channels.
    for _ in 0..100.min(rounds * 5) {
        for path in &paths {
            call(path).await;
        }
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); paths.len()];
    let mut added: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); paths.len()];
    for round in 0..rounds {
        // Rotate which goes first, so none always meets a just-warmed server.
        let mut took = [0.0; 3];
        for k in 0..paths.len() {
            let i = (round + k) % paths.len();
            took[i] = timed(call(&paths[i])).await;
        }
        for i in 0..paths.len() {
            samples[i].push(took[i]);
            added[i].push(took[i] - took[0]);
        }
    }

    // The floor of any hop: an empty unary gRPC round trip (Health) to the plaintext node.
    let mut empty = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        empty.push(timed(async { drop(plain_node.check_health().await.expect("health")) }).await);
    }
    let (empty_median, empty_p99) = quantiles(&mut empty);

    println!();
    println!(
        "node_hop: demo-server `echo` over stdio, {rounds} sequential rounds, then {CONCURRENT} concurrent callers for {throughput_for:?}"
    );
    println!(
        "| path | median | p99 | added at the median (per round) | added at p99 | calls/s with {CONCURRENT} concurrent |"
    );
    println!("|---|---|---|---|---|---|");
    for (i, path) in paths.iter().enumerate() {
        let (median, p99) = quantiles(&mut samples[i]);
        let (added_median, added_p99) = quantiles(&mut added[i]);
        let rate = throughput(path, throughput_for).await;
        let added = if i == 0 {
            "—".to_owned()
        } else {
            format!("{added_median:.0} µs")
        };
        let added_p99 = if i == 0 {
            "—".to_owned()
        } else {
            format!("{added_p99:.0} µs")
        };
        println!(
            "| {} | {median:.0} µs | {p99:.0} µs | {added} | {added_p99} | {rate:.0} |",
            path.name
        );
    }

    println!(
        "| empty gRPC round trip (Health, plaintext) | {empty_median:.0} µs | {empty_p99:.0} µs | | | |"
    );

    local.shutdown().await;
    drop(paths);
    drop(router);
    plain.stop();
    tls.stop();
}

async fn call(path: &Path) {
    let owner = OwnerId::local();
    let result = path
        .backend
        .call(
            &owner,
            &path.spec,
            "echo",
            json!({"text": "hello"}).as_object().cloned(),
            CallOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", path.name));
    assert_ne!(result.is_error, Some(true), "{}: {result:?}", path.name);
}

/// Microseconds `call` took.
async fn timed(call: impl std::future::Future<Output = ()>) -> f64 {
    let started = Instant::now();
    call.await;
    started.elapsed().as_secs_f64() * 1e6
}

/// Median and p99.
fn quantiles(samples: &mut [f64]) -> (f64, f64) {
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
    (at(0.5), at(0.99))
}

/// Calls per second with [`CONCURRENT`] callers at once.
async fn throughput(path: &Path, throughput_for: Duration) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + throughput_for;
    let mut callers = Vec::with_capacity(CONCURRENT);
    for _ in 0..CONCURRENT {
        let backend = Arc::clone(&path.backend);
        let spec = path.spec.clone();
        let done = Arc::clone(&done);
        let name = path.name;
        callers.push(tokio::spawn(async move {
            let owner = OwnerId::local();
            while Instant::now() < until {
                backend
                    .call(
                        &owner,
                        &spec,
                        "echo",
                        json!({"text": "hello"}).as_object().cloned(),
                        CallOptions::default(),
                    )
                    .await
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let started = Instant::now();
    for caller in callers {
        caller.await.unwrap();
    }
    #[allow(clippy::cast_precision_loss)]
    let rate = done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64();
    rate
}

/// A CA, and a certificate for 127.0.0.1 signed by it, written as PEM into `dir`; returns the
/// CA's PEM and the paths of the certificate and key.
fn certificates(dir: &std::path::Path) -> (Vec<u8>, std::path::PathBuf, std::path::PathBuf) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let cert = params.signed_by(&key, &ca).unwrap();
    let (cert_path, key_path) = (dir.join("node.pem"), dir.join("node-key.pem"));
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();
    (ca.pem().into_bytes(), cert_path, key_path)
}

/// `switchboard node` on a free port of 127.0.0.1, ended with SIGTERM.
struct NodeChild {
    child: Child,
    url: String,
    _data_dir: tempfile::TempDir,
}

impl NodeChild {
    fn start(extra: &[String]) -> NodeChild {
        let data_dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(BIN)
            .arg("--data-dir")
            .arg(data_dir.path())
            .args(["node", "--listen", "127.0.0.1:0"])
            .args(extra)
            .env("SWITCHBOARD_NODE_TOKEN", TOKEN)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn switchboard node");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let url = loop {
            let mut line = String::new();
            assert!(
                stderr.read_line(&mut line).unwrap() > 0,
                "the node ended before listening"
            );
            if let Some(url) = line
                .trim()
                .strip_prefix("switchboard node is listening on ")
            {
                break url.to_owned();
            }
        };
        std::thread::spawn(move || for _ in stderr.lines() {});
        NodeChild {
            child,
            url,
            _data_dir: data_dir,
        }
    }

    fn stop(&mut self) {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).unwrap()),
            nix::sys::signal::Signal::SIGTERM,
        )
        .unwrap();
        let _ = self.child.wait();
    }
}

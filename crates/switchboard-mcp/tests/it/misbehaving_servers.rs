//! Servers that do not behave: each gives a clear error within the connect timeout, and one
//! that only prints noise before speaking properly still connects.

use crate::common;

use std::time::{Duration, Instant};

use common::{owner, stdio_spec};
use switchboard_core::ServerSpec;
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig, McpError};
use switchboard_testkit::{Misbehaving, Peers};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

fn manager() -> ConnectionManager {
    // One connect attempt each (a failed connect is left to the breaker's tries in the
    // background): what is measured is how that attempt ends.
    ConnectionManager::new(ManagerConfig {
        connect_timeout: CONNECT_TIMEOUT,
        retry: switchboard_mcp::RetryPolicy::never(),
        ..common::config()
    })
}

async fn connect(kind: Misbehaving, name: &str) -> (Result<(), McpError>, Duration) {
    let spec = stdio_spec(name, &Peers::locate().misbehaving(kind));
    let m = manager();
    let started = Instant::now();
    let result = m.list_tools(&owner(), &spec).await.map(|_| ());
    let elapsed = started.elapsed();
    m.shutdown().await;
    (result, elapsed)
}

#[tokio::test]
async fn server_that_exits_at_once_is_reported_with_its_stderr() {
    let (result, elapsed) = connect(Misbehaving::ExitAtOnce, "exits").await;
    let error = result.expect_err("cannot connect");
    assert!(
        matches!(error.underlying(), McpError::ClosedDuringHandshake { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("stderr"),
        "the message quotes stderr: {error}"
    );
    assert!(elapsed < CONNECT_TIMEOUT, "failed fast, in {elapsed:?}");
}

#[tokio::test]
async fn server_that_never_answers_times_out() {
    let (result, elapsed) = connect(Misbehaving::NeverAnswers, "silent").await;
    let error = result.expect_err("cannot connect");
    assert!(
        matches!(error.underlying(), McpError::ConnectTimeout { .. }),
        "{error:?}"
    );
    assert_eq!(error.code(), switchboard_core::ErrorCode::McpTimeout);
    assert!(
        elapsed < CONNECT_TIMEOUT + Duration::from_secs(2),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn server_that_writes_only_garbage_times_out() {
    let (result, elapsed) = connect(Misbehaving::GarbageOnly, "garbage").await;
    let error = result.expect_err("cannot connect");
    assert!(
        matches!(error.underlying(), McpError::ConnectTimeout { .. }),
        "{error:?}"
    );
    assert!(
        elapsed < CONNECT_TIMEOUT + Duration::from_secs(2),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn server_that_prints_noise_first_still_connects() {
    let (result, _) = connect(Misbehaving::NoiseThenOk, "noisy").await;
    result.expect("noise on stdout before the first message is skipped");
}

#[tokio::test]
async fn missing_command_is_a_spawn_error() {
    let spec = switchboard_core::ServerSpec::stdio(
        "missing",
        "/nonexistent/mcp-server",
        Vec::<String>::new(),
    );
    let m = manager();
    let error = m
        .list_tools(&owner(), &spec)
        .await
        .expect_err("no such program");
    assert!(
        matches!(error.underlying(), McpError::Spawn { .. }),
        "{error:?}"
    );
    let snapshot = m.snapshot(&owner(), &spec.id);
    assert_eq!(snapshot.status, switchboard_mcp::ConnectionStatus::Error);
    let last_error = snapshot
        .last_error
        .expect("the error is kept for the status view");
    assert!(last_error.contains("could not start"), "{last_error}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_servers_secrets_are_cut_from_its_logged_and_quoted_stderr() {
    let (captured, _guard) = switchboard_testkit::CapturedLog::start();
    let mut spec = switchboard_core::ServerSpec::stdio(
        "leaky",
        "sh",
        ["-c", "echo \"starting with key $API_KEY\" >&2; exit 3"],
    );
    spec.env
        .insert("API_KEY".into(), "sk-live-leaky-0123456789".into());
    spec.secret_env.insert("API_KEY".into());
    let m = manager();
    let error = m.list_tools(&owner(), &spec).await.expect_err("it exits");
    m.shutdown().await;
    let quoted = error.to_string();
    assert!(quoted.contains("starting with key"), "{quoted}");
    assert!(!quoted.contains("sk-live-leaky"), "{quoted}");
    let log = captured.text();
    assert!(log.contains("starting with key"), "{log}");
    assert!(!log.contains("sk-live-leaky"), "{log}");
}

/// Calls each tool of `spec` with an hour to answer, expecting the error that says `says` (a
/// call that waited for the unreadable answer's timeout would hang the test), then `fine`: the
/// connection is still good for the next answer.
async fn each_fails_at_once_and_then_fine_answers(spec: &ServerSpec, cases: &[(&str, &str)]) {
    let m = ConnectionManager::new(ManagerConfig {
        call_timeout: Duration::from_secs(3600),
        ..common::config()
    });
    for (tool, says) in cases {
        let error = m
            .call_tool(&owner(), spec, tool, None, CallOptions::default())
            .await
            .expect_err(tool);
        assert!(error.to_string().contains(says), "{tool}: {error}");
    }
    let fine = m
        .call_tool(&owner(), spec, "fine", None, CallOptions::default())
        .await
        .unwrap_or_else(|error| panic!("fine: {error}"));
    assert_ne!(fine.is_error, Some(true), "{fine:?}");
    m.shutdown().await;
}

#[tokio::test]
async fn an_answer_that_cannot_be_read_fails_its_call_at_once() {
    let spec = stdio_spec("unreadable", &common::script("unreadable_answers.py"));
    each_fails_at_once_and_then_fine_answers(
        &spec,
        &[
            ("too_long", "longer than"),
            ("not_utf8", "cannot be read"),
            ("too_deep", "cannot be read"),
        ],
    )
    .await;
}

/// The same over Streamable HTTP, where the answers come as SSE events (rmcp would skip them).
/// A result of the wrong shape is read (as an unknown result) and refused by the call.
#[tokio::test]
async fn an_answer_over_http_that_cannot_be_read_fails_its_call_at_once() {
    let peer = Peers::locate().unreadable_http().await.unwrap();
    let spec = common::http_spec(
        "unreadable-http",
        &peer.url(),
        switchboard_core::TransportKind::StreamableHttp,
    );
    each_fails_at_once_and_then_fine_answers(
        &spec,
        &[
            ("too_deep", "cannot be read"),
            ("wrong_shape", "broke the protocol"),
        ],
    )
    .await;
}

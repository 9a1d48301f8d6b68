//! A server held back after it could not be reached: every use fails at once with why (not
//! after another connect timeout), and what a person does about it (an edit, which closes
//! the connection; a test that reaches the server) lets it be used at once, as does another
//! way of connecting to it.

use crate::common;

use std::time::{Duration, Instant};

use common::{http_spec, owner, stdio_spec};
use switchboard_core::{ErrorCode, TransportKind};
use switchboard_mcp::{BreakerPolicy, CallOptions, ConnectionManager, ManagerConfig, McpError};
use switchboard_testkit::{Misbehaving, Peers, PyGen};

/// A manager that tries a held-back server again only after a minute: longer than any of
/// these tests, so what lets a server be used here is never the background try.
fn manager(connect_timeout: Duration) -> ConnectionManager {
    common::init_tracing();
    ConnectionManager::new(ManagerConfig {
        connect_timeout,
        breaker: BreakerPolicy {
            first_delay: Duration::from_secs(60),
            ..BreakerPolicy::default()
        },
        ..common::config()
    })
}

fn held_back(result: Result<impl std::fmt::Debug, McpError>) -> McpError {
    match result {
        Err(error @ McpError::Unavailable { .. }) => error,
        other => panic!("not held back: {other:?}"),
    }
}

#[tokio::test]
async fn a_call_of_a_held_back_server_fails_at_once_not_after_a_connect_timeout() {
    let spec = stdio_spec(
        "silent",
        &Peers::locate().misbehaving(Misbehaving::NeverAnswers),
    );
    let connect_timeout = Duration::from_millis(500);
    let m = manager(connect_timeout);
    let me = owner();
    let call = || m.call_tool(&me, &spec, "echo", None, CallOptions::default());

    let started = Instant::now();
    let first = held_back(call().await);
    assert!(started.elapsed() >= connect_timeout, "the first one waited");
    assert_eq!(first.code(), ErrorCode::McpTimeout, "{first}");

    let started = Instant::now();
    let again = held_back(call().await);
    let listed = held_back(m.list_tools(&owner(), &spec).await);
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_millis(200),
        "a call and a listing took {waited:?}"
    );
    assert_eq!(again.code(), ErrorCode::McpTimeout);
    assert_eq!(listed.code(), ErrorCode::McpTimeout);
    let text = again.to_string();
    assert!(
        text.contains("`silent` is left out for now")
            && text.contains("did not complete the MCP handshake")
            && text.contains("tried again in the background in"),
        "{text}"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn a_test_an_edit_or_another_way_of_connecting_is_not_held_back() {
    let mut peer = Peers::locate()
        .python_http(PyGen::V1)
        .await
        .expect("http peer");
    let spec = http_spec("late", &peer.url(), TransportKind::StreamableHttp);
    let m = manager(Duration::from_secs(20));
    let me = owner();
    let list = || m.list_tools(&me, &spec);

    peer.kill().await.expect("stopped");
    held_back(list().await);
    peer.restart().await.expect("listening again");
    held_back(list().await);
    // A person tests the server and it answers: it is used at once.
    m.test_connection(&owner(), &spec).await.expect("reached");
    list().await.expect("used after the test");

    // An edit closes the connection: the server is tried afresh.
    m.disconnect(&owner(), &spec.id).await;
    peer.kill().await.expect("stopped");
    held_back(list().await);
    peer.restart().await.expect("listening again");
    m.disconnect(&owner(), &spec.id).await;
    list().await.expect("used after the edit");

    // The same server reached another way (here: started over stdio) is not held back by
    // the failure of the first way.
    m.disconnect(&owner(), &spec.id).await;
    peer.kill().await.expect("stopped");
    held_back(list().await);
    let moved = stdio_spec("late", &Peers::locate().python_stdio(PyGen::V1));
    assert_eq!(moved.id, spec.id);
    m.list_tools(&owner(), &moved)
        .await
        .expect("the other way is tried");
    m.shutdown().await;
}

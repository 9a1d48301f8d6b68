//! The connections to one remote server are bounded and reused, whoever's sessions use them:
//! the reference server over Streamable HTTP, behind a relay that counts what is opened.

use crate::common;

use std::net::SocketAddr;

use common::{args, config, http_spec, init_tracing, text};
use futures::future::join_all;
use serde_json::json;
use switchboard_core::{OwnerId, TransportKind};
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig};
use switchboard_testkit::{EverythingHttp, Peers, TcpRelay};

const PER_UPSTREAM: usize = 4;
const CALLS: usize = 64;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_at_once_from_two_people_share_a_bounded_pool_of_connections() {
    init_tracing();
    let peer = Peers::locate()
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .expect("start server-everything");
    let upstream = url::Url::parse(&peer.url()).unwrap();
    let target: SocketAddr = format!("127.0.0.1:{}", upstream.port().unwrap())
        .parse()
        .unwrap();
    let relay = TcpRelay::start(target).await.unwrap();
    let spec = http_spec(
        "everything",
        &format!("http://{}{}", relay.addr(), upstream.path()),
        TransportKind::StreamableHttp,
    );
    let m = ConnectionManager::new(ManagerConfig {
        http_connections_per_upstream: PER_UPSTREAM,
        ..config()
    });
    let people = [OwnerId("ada".into()), OwnerId("bo".into())];

    // Each person's session first: its handshake and its standing GET stream.
    for person in &people {
        m.list_tools(person, &spec).await.expect("tools");
    }
    let sessions = relay.accepted();
    let mut after_first = 0;

    for round in 0..3 {
        let calls = (0..CALLS).map(|n| {
            let (m, spec, person) = (&m, &spec, &people[n % people.len()]);
            async move {
                let message = format!("call {round}.{n}");
                let result = m
                    .call_tool(
                        person,
                        spec,
                        "echo",
                        args(json!({ "message": message })),
                        CallOptions::default(),
                    )
                    .await
                    .unwrap_or_else(|e| panic!("{message}: {e}"));
                assert!(text(&result).contains(&message), "{result:?}");
            }
        });
        join_all(calls).await;
        if round == 0 {
            after_first = relay.accepted();
        }
    }

    // At most the two GET streams and the share for requests, with some slack: an answer or
    // a notification to the server never waits for the share, and a connection may be on its
    // way back to the idle pool when the next request is let through. Unbounded, 64 calls at
    // once had 42 to 53 open at once here.
    let peak = relay.peak_open();
    assert!(
        peak <= 2 + 2 * PER_UPSTREAM,
        "{peak} connections open at once ({sessions} for the sessions) for {CALLS} calls at once"
    );
    // Reused: the 128 calls of the later rounds open few anew (one replaces a connection
    // closed as idle beyond the share when another came back late), not one per call.
    let later = relay.accepted() - after_first;
    assert!(
        later <= 2 * PER_UPSTREAM,
        "{later} connections opened after the first round"
    );
}

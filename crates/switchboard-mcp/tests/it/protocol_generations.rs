//! Both protocol generations are spoken, and finding out which one a server speaks never
//! stalls on a server that ignores `server/discover`.

use crate::common;

use std::time::{Duration, Instant};

use common::{http_spec, manager, owner, script, stdio_spec};
use switchboard_core::TransportKind;
use switchboard_testkit::{Peers, PyGen};

#[tokio::test]
async fn server_that_ignores_discover_connects_without_a_stall() {
    let spec = stdio_spec("quiet", &script("ignores_discover.py"));
    let m = manager();
    let started = Instant::now();
    let report = m
        .test_connection(&switchboard_core::OwnerId::local(), &spec)
        .await
        .expect("connects with initialize");
    // rmcp's own automatic mode waits 10 s for the discover answer; the ping probe does not
    // wait for it at all. The bound is generous for a busy machine.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(report.details.protocol_version, "2025-11-25");
    assert_eq!(report.tools.len(), 1);
}

#[tokio::test]
async fn python_v2_over_http_speaks_the_stateless_revision() {
    let peer = Peers::locate().python_http(PyGen::V2).await.expect("start");
    let spec = http_spec("py2", &peer.url(), TransportKind::StreamableHttp);
    let report = manager()
        .test_connection(&switchboard_core::OwnerId::local(), &spec)
        .await
        .expect("connects");
    assert_eq!(report.details.protocol_version, "2026-07-28");
}

#[tokio::test]
async fn python_v1_over_http_falls_back_to_initialize() {
    let peer = Peers::locate().python_http(PyGen::V1).await.expect("start");
    let spec = http_spec("py1", &peer.url(), TransportKind::StreamableHttp);
    let report = manager()
        .test_connection(&switchboard_core::OwnerId::local(), &spec)
        .await
        .expect("connects");
    assert_ne!(report.details.protocol_version, "2026-07-28");
    assert!(!report.details.protocol_version.is_empty());
    let _ = owner();
}

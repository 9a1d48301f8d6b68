//! Every stdio server is ended with its whole process group: connect/disconnect cycles of a
//! server that starts a child process of its own leave nothing running. The suite runs
//! [`CYCLES`] of them; the long run sets `SWITCHBOARD_SOAK_CYCLES` (BENCHMARKS.md, "Endurance").

use crate::common;

use std::time::Duration;

use common::{args, manager, owner, script, stdio_spec, text};
use serde_json::json;
use switchboard_mcp::CallOptions;
use switchboard_testkit::process;

/// The cycles of the suite's run: enough to show that no cycle leaves anything.
const CYCLES: usize = 40;

#[tokio::test]
async fn connect_and_disconnect_cycles_leave_no_process_behind() {
    let cycles = std::env::var("SWITCHBOARD_SOAK_CYCLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CYCLES);
    let spec = stdio_spec("spawning", &script("spawning_server.py"));
    let m = manager();
    let mut seen = Vec::new();
    for _ in 0..cycles {
        let result = m
            .call_tool(
                &owner(),
                &spec,
                "child_pid",
                args(json!({})),
                CallOptions::default(),
            )
            .await
            .expect("call");
        let grandchild: u32 = text(&result).parse().expect("pid");
        let pgid = m.process_group(&owner(), &spec.id).expect("group");
        assert_eq!(
            process::pgid_of(grandchild),
            Some(pgid),
            "the grandchild is in the group"
        );
        seen.push((pgid, grandchild));
        m.disconnect(&owner(), &spec.id).await;
    }
    let mut left = Vec::new();
    for (pgid, grandchild) in &seen {
        left.extend(process::wait_until_group_gone(*pgid, Duration::from_secs(5)).await);
        if process::alive(*grandchild) {
            left.push(*grandchild);
        }
    }
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

#[tokio::test]
async fn dropping_the_manager_ends_the_group() {
    let spec = stdio_spec("spawning", &script("spawning_server.py"));
    let m = manager();
    let result = m
        .call_tool(
            &owner(),
            &spec,
            "child_pid",
            args(json!({})),
            CallOptions::default(),
        )
        .await
        .expect("call");
    let grandchild: u32 = text(&result).parse().expect("pid");
    let pgid = m.process_group(&owner(), &spec.id).expect("group");
    drop(m);
    assert!(
        process::wait_until_group_gone(pgid, Duration::from_secs(5))
            .await
            .is_empty()
    );
    assert!(!process::alive(grandchild));
}

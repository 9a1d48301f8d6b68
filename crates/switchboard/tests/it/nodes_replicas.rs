//! Two `serve` replicas on one Postgres database using one MCP node: the same
//! stdio server of the same user, called through both, runs as ONE process on the node.
//! Skipped (with a line saying so) when `SWITCHBOARD_TEST_POSTGRES` is not set.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::node::{NodeLaunch, NodeProc, descendants_running, write_settings};
use common::postgres::FreshPostgres;
use common::rest::{call_tool, create_server, demo_command, result_text, stdio_body};
use common::serve::{serve, terminate};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_one_server_process_on_the_node() {
    let Some(database) = FreshPostgres::create().await else {
        return;
    };
    let node = NodeProc::start(NodeLaunch::plaintext("node-token-for-tests"));
    // One data dir: the replicas share the secret key file and the settings.
    let sb = Switchboard::new();
    write_settings(&sb.data_dir(), "", &[node.section("box", &sb.data_dir())]);
    let args = ["--single-user", "--database-url", database.url.as_str()];
    let mut a = serve(&sb, &args);
    let mut b = serve(&sb, &args);

    let demo = create_server(&a, stdio_body("boxdemo", &demo_command(), Some("box"))).await;
    // Both at once, then each again.
    let (first, second) = tokio::join!(
        call_tool(&a, &demo, "echo", json!({"text": "from a"})),
        call_tool(&b, &demo, "echo", json!({"text": "from b"})),
    );
    assert_eq!(first.0, 200, "{}", first.1);
    assert_eq!(second.0, 200, "{}", second.1);
    assert_eq!(result_text(&first.1), "from a");
    assert_eq!(result_text(&second.1), "from b");
    for (replica, text) in [(&a, "again a"), (&b, "again b")] {
        let (status, result) = call_tool(replica, &demo, "echo", json!({"text": text})).await;
        assert_eq!(status, 200, "{result}");
        assert_eq!(result_text(&result), text);
    }

    let processes = descendants_running(node.pid(), "demo-server");
    assert_eq!(
        processes.len(),
        1,
        "one process for both replicas: {processes:?}"
    );
    for replica in [&a, &b] {
        assert!(descendants_running(replica.child.id(), "demo-server").is_empty());
    }

    assert!(terminate(&mut a).success());
    assert!(terminate(&mut b).success());
    drop(node);
    database.drop_database().await;
}

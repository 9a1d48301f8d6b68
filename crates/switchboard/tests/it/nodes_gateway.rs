//! A 2026-07-28 server on a node, through the gateway: its input-required `prompts/get` goes
//! round by round through the host, so a 2026-07-28 client answers it itself and a session
//! client is asked by the host, as for a server inside `serve`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::gateway::{conformance_server, interop_client};
use common::node::{NodeLaunch, NodeProc, write_settings};
use common::rest::{create_server, stdio_body};
use common::serve::serve;
use serde_json::json;
use switchboard_testkit::PyGen;

#[tokio::test]
async fn an_input_required_prompt_of_a_server_on_a_node_is_answered_through_the_gateway() {
    let node = NodeProc::start(NodeLaunch::plaintext("nodes-gateway-token"));
    let sb = Switchboard::new();
    write_settings(
        &sb.data_dir(),
        "[gateway]\nunapproved = \"run\"\n",
        &[node.section("box", &sb.data_dir())],
    );
    let served = serve(&sb, &[]);
    let token = served.token.clone().unwrap();
    create_server(
        &served,
        stdio_body("rmcp", &conformance_server(), Some("box")),
    )
    .await;
    let url = format!("{}/mcp", served.base);
    let plan = json!([{
        "name": "rmcp", "prefix": "mcp__rmcp__",
        "prompt": "test_input_required_result_prompt",
    }])
    .to_string();
    for generation in [PyGen::V2, PyGen::V1] {
        let seen = interop_client(
            generation,
            &["http", "--url", &url, "--token", &token, "--plan", &plan],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // The prompt carries the answer given to its question (declined, it would be empty).
        assert_eq!(
            seen["rmcp"]["prompt"]["text"], "Use this context: Ada",
            "{generation:?}: {seen}"
        );
    }
}

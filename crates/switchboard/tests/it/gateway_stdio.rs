//! `switchboard mcp --stdio` as a child process with an rmcp client: the local store's
//! servers through the gateway, and every upstream it started gone when the client hangs up
//! or the process is told to stop.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::node::descendants_running;
use common::{BIN, Switchboard};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use serde_json::json;

/// A data directory whose `local` user has the demo server, and a settings file that lets the
/// gateway run its tools without asking.
fn store_with_demo() -> Switchboard {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "demo",
        "--command",
        BIN,
        "--arg",
        "demo-server",
    ])
    .ok();
    std::fs::write(
        sb.data_dir().join("switchboard.toml"),
        "[gateway]\nunapproved = \"run\"\n",
    )
    .unwrap();
    sb
}

/// `mcp --stdio` on `sb`, its pid, and a client on its stdio; echo called once (so the
/// upstream runs), and the upstream's pid.
async fn started(
    sb: &Switchboard,
) -> (
    rmcp::service::RunningService<rmcp::RoleClient, ()>,
    u32,
    u32,
) {
    let data_dir = sb.data_dir();
    let command = tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.arg("--data-dir")
            .arg(&data_dir)
            .args(["mcp", "--stdio"])
            .env_remove("RUST_LOG");
    });
    let transport = TokioChildProcess::new(command).unwrap();
    let pid = transport.id().unwrap();
    let client = ().serve(transport).await.expect("handshake");
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(tools.contains(&"mcp__demo__echo".to_owned()), "{tools:?}");
    let echoed = client
        .call_tool(
            CallToolRequestParams::new("mcp__demo__echo")
                .with_arguments(json!({"text": "over stdio"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(echoed.is_error, Some(true), "{echoed:?}");
    assert!(format!("{:?}", echoed.content).contains("over stdio"));
    let upstream = descendants_running(pid, "demo-server");
    assert_eq!(upstream.len(), 1, "{upstream:?}");
    (client, pid, upstream[0])
}

#[tokio::test]
async fn the_upstreams_end_when_the_client_hangs_up() {
    let sb = store_with_demo();
    let (client, pid, upstream) = started(&sb).await;
    // Closing stdin ends the session; the process ends its servers and itself.
    drop(client);
    let left =
        switchboard_testkit::process::wait_until_gone(&[pid, upstream], Duration::from_secs(20))
            .await;
    assert!(left.is_empty(), "still running: {left:?}");
}

#[tokio::test]
async fn the_upstreams_end_on_sigterm() {
    let sb = store_with_demo();
    let (_client, pid, upstream) = started(&sb).await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let left =
        switchboard_testkit::process::wait_until_gone(&[pid, upstream], Duration::from_secs(20))
            .await;
    assert!(left.is_empty(), "still running: {left:?}");
}

/// Where there is no store (a client launching `mcp` from another directory without the data
/// directory), it says so and exits instead of serving an empty list; `mcp` alone serves stdio.
#[test]
fn mcp_without_data_says_so_and_mcp_alone_means_stdio() {
    let empty = Switchboard::new();
    let refused = empty.run(&["mcp"]).failed();
    assert!(
        refused.stderr.contains("no Switchboard data in"),
        "{refused:?}"
    );
    assert!(
        refused.stdout.is_empty(),
        "stdout is the protocol: {refused:?}"
    );
    assert!(
        !empty.data_dir().join("switchboard.db").exists(),
        "no store was made"
    );
    // With the data, `mcp` alone is the stdio server: an unknown user is refused as above,
    // not a usage error about --stdio.
    let sb = store_with_demo();
    let user = sb.run(&["mcp", "--user", "nobody"]).failed();
    assert!(user.stderr.contains("nobody"), "{user:?}");
}

#[test]
fn an_unknown_user_or_view_is_refused_before_serving() {
    let sb = store_with_demo();
    let user = sb.run(&["mcp", "--stdio", "--user", "nobody"]).failed();
    assert!(user.stderr.contains("nobody"), "{user:?}");
    assert!(user.stdout.is_empty(), "stdout is the protocol: {user:?}");
    let view = sb.run(&["mcp", "--stdio", "--view", "nothing"]).failed();
    assert!(view.stderr.contains("nothing"), "{view:?}");
    assert!(view.stdout.is_empty(), "stdout is the protocol: {view:?}");
}

/// A server whose name has capitals and spaces: `tools list` names its tools exactly as the
/// gateway (and so a chat and the REST API, which share its names) does, by the server's id.
#[tokio::test]
async fn the_command_line_names_tools_as_the_gateway_does() {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "My Files",
        "--command",
        BIN,
        "--arg",
        "demo-server",
    ])
    .ok();
    let listed = sb.run(&["tools", "list", "--json"]).ok().json();
    let mut from_cli: Vec<String> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    from_cli.sort();
    assert!(
        from_cli.contains(&"mcp__my-files__echo".to_owned()),
        "{from_cli:?}"
    );

    let data_dir = sb.data_dir();
    let command = tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.arg("--data-dir")
            .arg(&data_dir)
            .args(["mcp", "--stdio"])
            .env_remove("RUST_LOG");
    });
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let mut from_gateway: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    from_gateway.sort();
    client.cancel().await.unwrap();
    assert_eq!(from_cli, from_gateway);
}

//! `switchboard guard`, the watchdog between the binary and each stdio server it starts: it
//! passes on its program's status and ends whatever the program left running, also outside
//! its process group; it ends everything when its parent dies; and through it a node or
//! `mcp --stdio` killed with SIGKILL leaves none of its servers, nor their children, running.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::node::{NodeLaunch, NodeProc, write_settings};
use common::{BIN, Switchboard};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use switchboard_testkit::{Peers, PyGen, StdioCommand, process};

const TOKEN: &str = "node-token-for-tests";
const GONE_WITHIN: Duration = Duration::from_secs(20);

/// Waits until none of `pids` runs; panics naming those that still do.
#[track_caller]
fn assert_all_gone(pids: &[u32], what: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let left = runtime.block_on(process::wait_until_gone(pids, GONE_WITHIN));
    assert!(
        left.is_empty(),
        "{what}: still running {left:?} of {pids:?}"
    );
}

fn signal(pid: u32, signal: Signal) {
    kill(Pid::from_raw(i32::try_from(pid).unwrap()), signal).unwrap();
}

/// `switchboard guard --parent <this test> -- sh -c SCRIPT`, stdout piped.
fn guard_sh(script: &str) -> std::process::Child {
    Command::new(BIN)
        .args(["guard", "--parent", &std::process::id().to_string()])
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The first line the child printed, as a pid.
fn first_pid(child: &mut std::process::Child) -> u32 {
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    line.trim().parse().unwrap_or_else(|_| panic!("{line:?}"))
}

/// `servers add NAME --command ... [--node NODE]` for `command`.
fn add_server(sb: &Switchboard, name: &str, command: &StdioCommand, node: Option<&str>) {
    let mut add = vec![
        "servers",
        "add",
        name,
        "--command",
        command.program.as_str(),
    ];
    for arg in &command.args {
        add.extend(["--arg", arg.as_str()]);
    }
    let env: Vec<String> = command
        .env
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    for pair in &env {
        add.extend(["--env", pair.as_str()]);
    }
    if let Some(node) = node {
        add.extend(["--node", node]);
    }
    sb.run(&add).ok();
}

/// Calls `tool` of `server` through the command line; its text, which is a pid.
fn call_for_pid(sb: &Switchboard, server: &str, tool: &str) -> u32 {
    let run = sb.run(&["call", server, tool]).ok();
    run.stdout
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{run:?}"))
}

#[test]
fn the_guard_exits_as_its_program_did_and_ends_what_it_left_outside_its_group() {
    let mut guard = guard_sh("setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!; exit 7");
    let detached = first_pid(&mut guard);
    let status = guard.wait().unwrap();
    assert_eq!(status.code(), Some(7));
    assert_all_gone(&[detached], "the program's detached child");
}

#[test]
fn sigterm_reaches_the_program_and_then_everything_ends() {
    let mut guard =
        guard_sh("setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!; exec sleep 1000");
    let detached = first_pid(&mut guard);
    let program = process::children_of(guard.id());
    assert_eq!(program.len(), 1, "{program:?}");
    signal(guard.id(), Signal::SIGTERM);
    let status = guard.wait().unwrap();
    // The program was ended by the SIGTERM passed on to it.
    assert_eq!(status.code(), Some(128 + 15));
    assert_all_gone(
        &[program[0], detached],
        "the program and its detached child",
    );
}

#[test]
fn a_guard_whose_parent_is_already_gone_starts_nothing() {
    let output = Command::new(BIN)
        .args(["guard", "--parent", "1", "--", "sh", "-c", "echo started"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    // Ended as the parent's death would have ended it, without running the program.
    assert_eq!(output.status.code(), Some(128 + 15), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
}

/// A host routes three stdio servers to a node: the demo server, the python peer with a
/// grandchild in its group, and a server with a child in a session of its own and an orphaned
/// daemon. The node is killed with SIGKILL, which it cannot handle: all of them end anyway.
#[test]
fn a_node_killed_with_sigkill_leaves_none_of_its_servers_running() {
    let mut node = NodeProc::start(NodeLaunch::plaintext(TOKEN));
    let sb = Switchboard::new();
    write_settings(&sb.data_dir(), "", &[node.section("box", &sb.data_dir())]);
    let peers = Peers::locate();
    let demo = StdioCommand {
        program: BIN.to_owned(),
        args: vec!["demo-server".to_owned()],
        env: Vec::new(),
    };
    add_server(&sb, "boxdemo", &demo, Some("box"));
    add_server(&sb, "boxpy", &peers.python_stdio(PyGen::V1), Some("box"));
    add_server(&sb, "boxdetach", &peers.detaching_stdio(), Some("box"));

    sb.run(&["call", "boxdemo", "echo", "--args", r#"{"text": "x"}"#])
        .ok();
    let mut started = vec![
        call_for_pid(&sb, "boxpy", "spawn_child"),
        call_for_pid(&sb, "boxdetach", "spawn_setsid"),
        call_for_pid(&sb, "boxdetach", "spawn_daemon"),
    ];
    started.extend(process::descendants(node.pid()));
    assert!(
        started.len() >= 3 + 3 + 2,
        "three servers under guards, and what they started: {started:?}"
    );

    node.kill();
    assert_all_gone(&started, "after the node was killed");
}

/// `switchboard mcp --stdio` killed with SIGKILL while its upstream servers run: neither they
/// nor what they started outlive it.
#[tokio::test]
async fn mcp_stdio_killed_with_sigkill_leaves_none_of_its_servers_running() {
    let sb = Switchboard::new();
    let peers = Peers::locate();
    add_server(&sb, "py", &peers.python_stdio(PyGen::V1), None);
    add_server(&sb, "detach", &peers.detaching_stdio(), None);
    std::fs::write(
        sb.data_dir().join("switchboard.toml"),
        "[gateway]\nunapproved = \"run\"\n",
    )
    .unwrap();
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
    let mut started = Vec::new();
    for tool in [
        "mcp__py__spawn_child",
        "mcp__detach__spawn_setsid",
        "mcp__detach__spawn_daemon",
    ] {
        let result = client
            .call_tool(CallToolRequestParams::new(tool))
            .await
            .unwrap();
        let text = result.content[0].as_text().unwrap().text.clone();
        started.push(
            text.trim()
                .parse::<u32>()
                .unwrap_or_else(|_| panic!("{tool}: {text}")),
        );
    }
    started.extend(process::descendants(pid));

    signal(pid, Signal::SIGKILL);
    let left = process::wait_until_gone(&started, GONE_WITHIN).await;
    assert!(left.is_empty(), "still running {left:?} of {started:?}");
    drop(client);
}

/// A call from the command line starts the server and closes it when done, the normal way:
/// the server's child in a session of its own and its orphaned daemon end with it.
#[test]
fn a_server_disconnected_the_normal_way_leaves_no_detached_process() {
    let sb = Switchboard::new();
    add_server(&sb, "detach", &Peers::locate().detaching_stdio(), None);
    let setsid = call_for_pid(&sb, "detach", "spawn_setsid");
    let daemon = call_for_pid(&sb, "detach", "spawn_daemon");
    assert_all_gone(&[setsid, daemon], "after the command closed its server");
}

/// Under a guard as without one, a program that does not exist cannot be started: the
/// answer says so at once rather than after the retries a server that hung up would get.
#[test]
fn a_missing_program_is_a_failed_start_not_a_failed_handshake() {
    let sb = Switchboard::new();
    sb.run(&["servers", "add", "nothing", "--command", "no-such-program"])
        .ok();
    let started = std::time::Instant::now();
    let run = sb.run(&["--json", "call", "nothing", "echo"]).failed();
    let message = run.json()["message"].as_str().unwrap().to_owned();
    assert!(
        message
            .contains("could not start `no-such-program`: `no-such-program` was not found on PATH"),
        "{run:?}"
    );
    assert!(!message.contains("handshake"), "{run:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{run:?}");
}

//! The gateway's tasks with the Python SDK 1.x's client (`session.experimental`, the
//! 2025-11-25 revision's tasks) through `/mcp`: a tool its server runs as a task, called as
//! one, its result waited for and its task polled to its end; a cancel that reaches the
//! server; `tasks/list` showing the caller's tasks only, through the view they were started
//! in; a plain tool run as a task of Switchboard's where a view says `always`, and refused
//! where nothing says so; the same over `switchboard mcp --stdio`. Upstreams: server-everything (`simulate-research-query`), the
//! Python SDK's tasks peer over Streamable HTTP (`gated_task`, `slow_task`,
//! `task_cancelled_count`) and the
//! demo server (`echo`).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::Peers;

use crate::common;

use common::gateway::{Gateway, send_as, stdio_command, tasks_client};
use common::rest::{create_server, remote_body};

const METHOD_NOT_FOUND: i64 = -32601;

fn client(step: &str, url: &str, token: &str, rest: &[&str]) -> Value {
    let mut args = vec![step, "--url", url, "--token", token];
    args.extend_from_slice(rest);
    tasks_client(&args).unwrap_or_else(|e| panic!("{e}"))
}

fn listed(seen: &Value) -> Vec<String> {
    seen["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_owned())
        .collect()
}

/// A view of `admin`'s over the demo server's `echo` (under its own name), with `tasks`.
async fn demo_view(gw: &Gateway, name: &str, tasks: Value) {
    let base = &gw.served.base;
    let (status, servers) = send_as(base, &gw.admin, Method::GET, "/api/mcp-servers", None).await;
    assert_eq!(status, 200, "{servers}");
    let demo = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "demo")
        .unwrap()["id"]
        .clone();
    let view = json!({"name": name, "tasks": tasks,
        "servers": [{"serverId": demo, "tools": ["echo"], "prefix": ""}]});
    let (status, created) =
        send_as(base, &gw.admin, Method::POST, "/api/mcp/views", Some(view)).await;
    assert_eq!(status, 201, "{created}");
}

#[tokio::test]
async fn python_sdk_1_calls_a_task_tool_as_a_task_and_waits_for_its_result() {
    let gw = Gateway::start(&[]).await;
    let url = gw.url("/mcp");
    let seen = client(
        "run",
        &url,
        &gw.admin,
        &[
            "--call",
            "mcp__everything__simulate-research-query",
            "--args",
            r#"{"topic": "tasks"}"#,
        ],
    );
    assert_eq!(seen["protocol"], "2025-11-25", "{seen}");
    assert_eq!(
        seen["capability"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        "{seen}"
    );
    assert!(
        matches!(
            seen["execution"]["taskSupport"].as_str(),
            Some("optional" | "required")
        ),
        "as its server says: {seen}"
    );
    let created = &seen["created"];
    let id = created["taskId"].as_str().unwrap();
    assert!(id.starts_with("tsk_"), "our id, not the server's: {seen}");
    assert_eq!(created["status"], "working", "{seen}");
    assert_eq!(
        created["ttl"],
        Value::Null,
        "kept as long as it takes: {seen}"
    );
    assert!(created["pollInterval"].as_u64().unwrap() >= 1000, "{seen}");
    assert_eq!(seen["result"]["isError"], false, "{seen}");
    let report = seen["result"]["text"].as_str().unwrap();
    assert!(report.contains("# Research Report: tasks"), "{seen}");
    assert_eq!(seen["related"], json!({"taskId": id}), "{seen}");
    assert_eq!(seen["statuses"], json!(["completed"]), "{seen}");
    assert_eq!(listed(&seen), [id], "{seen}");

    // Another person sees none of it; through a view, neither does its owner.
    let theirs = client("list", &url, &gw.bob, &["--task", id]);
    assert_eq!(listed(&theirs), Vec::<String>::new(), "{theirs}");
    assert!(theirs["get"]["error"].is_i64(), "{theirs}");
    demo_view(&gw, "elsewhere", json!({"runAsTask": "never"})).await;
    let elsewhere = client(
        "list",
        &gw.url("/mcp/v/elsewhere"),
        &gw.admin,
        &["--task", id],
    );
    assert_eq!(listed(&elsewhere), Vec::<String>::new(), "{elsewhere}");
    assert!(elsewhere["get"]["error"].is_i64(), "{elsewhere}");
    let again = client("list", &url, &gw.admin, &["--task", id]);
    assert_eq!(listed(&again), [id], "{again}");
    assert_eq!(again["get"]["status"], "completed", "{again}");
}

/// Over stdio the task's server is the tasks peer over HTTP: `serve`, which shares the store,
/// may be the one that polls the task, and it reaches the same server.
#[tokio::test]
async fn python_sdk_1_gets_a_task_over_stdio_too() {
    let gw = Gateway::start(&[]).await;
    let peer = Peers::locate().tasks_http().await.unwrap();
    create_server(
        &gw.served,
        remote_body("tasks", "streamable_http", &peer.url(), None),
    )
    .await;
    let command = stdio_command(&gw.sb, &["--user", "admin"]);
    let mut args = vec![
        "run",
        "--call",
        "mcp__tasks__slow_task",
        "--args",
        r#"{"seconds": 0.2}"#,
        "--",
    ];
    args.extend(command.iter().map(String::as_str));
    let seen = tasks_client(&args).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        seen["capability"]["requests"],
        json!({"tools": {"call": {}}}),
        "{seen}"
    );
    assert_eq!(
        seen["execution"],
        json!({"taskSupport": "required"}),
        "{seen}"
    );
    assert_eq!(seen["result"]["text"], "slept 0.2", "{seen}");
    assert_eq!(seen["statuses"], json!(["completed"]), "{seen}");
    let id = seen["created"]["taskId"].as_str().unwrap();
    assert_eq!(listed(&seen), [id], "{seen}");
}

#[tokio::test]
async fn cancelling_a_task_reaches_its_server() {
    let gw = Gateway::start(&[]).await;
    let peer = Peers::locate().tasks_http().await.unwrap();
    create_server(
        &gw.served,
        remote_body("tasks", "streamable_http", &peer.url(), None),
    )
    .await;
    let seen = client(
        "cancel",
        &gw.url("/mcp"),
        &gw.admin,
        &[
            "--call",
            "mcp__tasks__gated_task",
            "--count",
            "mcp__tasks__task_cancelled_count",
        ],
    );
    assert_eq!(seen["created"]["status"], "working", "{seen}");
    assert_eq!(
        seen["cancelled"]["taskId"], seen["created"]["taskId"],
        "{seen}"
    );
    let statuses = seen["statuses"].as_array().unwrap();
    assert_eq!(statuses.last().unwrap(), "cancelled", "{seen}");
    assert_eq!(seen["count"], "1", "the server was told: {seen}");
}

#[tokio::test]
async fn a_view_that_says_always_runs_a_plain_tool_as_a_task() {
    let gw = Gateway::start(&[]).await;
    demo_view(&gw, "background", json!({"runAsTask": "always"})).await;
    let seen = client(
        "run",
        &gw.url("/mcp/v/background"),
        &gw.admin,
        &["--call", "echo", "--args", r#"{"text": "hello"}"#],
    );
    assert_eq!(
        seen["execution"],
        json!({"taskSupport": "optional"}),
        "{seen}"
    );
    assert_eq!(seen["created"]["status"], "working", "{seen}");
    assert!(
        seen["result"]["text"].as_str().unwrap().contains("hello"),
        "{seen}"
    );
    assert_eq!(seen["statuses"], json!(["completed"]), "{seen}");
    let id = seen["created"]["taskId"].as_str().unwrap();
    assert_eq!(listed(&seen), [id], "{seen}");

    // Where nothing runs it as a task, the plain tool is not one, and a task of it is refused
    // as the 2025-11-25 revision says.
    let plain = client(
        "refused",
        &gw.url("/mcp"),
        &gw.admin,
        &[
            "--call",
            "mcp__demo__echo",
            "--args",
            r#"{"text": "hello"}"#,
        ],
    );
    assert_eq!(plain["error"], METHOD_NOT_FOUND, "{plain}");
}

//! The interop matrix: the Python SDK's clients (mcp 1.x, which speaks 2025-11-25 in a
//! session, and 2.x, which negotiates the stateless 2026-07-28 revision) through `/mcp` and
//! through `switchboard mcp --stdio`, against upstreams of every revision behind one gateway:
//!
//! - `legacy`: server-everything over legacy SSE (the 2024-11-05 transport, TypeScript SDK);
//! - `py1`: the Python SDK 1.x's FastMCP over stdio (it takes the 2025-11-25 we ask for);
//! - `plain`: a 2025-11-25 server written without an SDK (no `resultType`, no discovery),
//!   and `older`, the same answering as a 2025-06-18 server;
//! - `rmcp`: rmcp's 2026-07-28 server (the testkit's conformance server) over stdio.
//!
//! Each client lists, calls, follows progress, cancels, answers an elicitation, sees a log
//! line, reads a resource and gets a prompt of each upstream that has them (the MCP
//! Inspector's CLI, which does one request a run: lists, calls, reads and gets); the SDKs check
//! that every answer is what their revision expects (mcp 2.x refuses a result without
//! `resultType`). What each pair supports is the README's table.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::gateway::{Gateway, conformance_server, inspector, interop_client, stdio_command};
use common::rest::{create_server, remote_body, stdio_body};
use serde_json::{Value, json};
use switchboard_testkit::{EverythingHttp, HttpPeer, Peers, PyGen};

/// The gateway with the four upstreams added for its admin; the SSE peer lives as long as it.
async fn matrix_gateway() -> (Gateway, HttpPeer) {
    let gw = Gateway::start(&[]).await;
    let peers = Peers::locate();
    let legacy = peers.everything_http(EverythingHttp::Sse).await.unwrap();
    create_server(
        &gw.served,
        remote_body("legacy", "sse", &legacy.url(), None),
    )
    .await;
    create_server(
        &gw.served,
        stdio_body("py1", &peers.python_stdio(PyGen::V1), None),
    )
    .await;
    create_server(&gw.served, stdio_body("plain", &peers.plain_stdio(), None)).await;
    let mut older = stdio_body("older", &peers.plain_stdio(), None);
    older["env"]["PLAIN_REVISION"] = json!("2025-06-18");
    create_server(&gw.served, older).await;
    create_server(&gw.served, stdio_body("rmcp", &conformance_server(), None)).await;
    (gw, legacy)
}

/// What each client does with each upstream (see `tests/peers/interop_client.py`).
fn plan() -> Value {
    json!([
        {
            "name": "legacy", "prefix": "mcp__legacy__",
            "echo": ["echo", {"message": "hi legacy"}, "hi legacy"],
            "progress": ["trigger-long-running-operation", {"duration": 0.3, "steps": 3}],
            "ask": ["trigger-elicitation-request", {}],
            "task": ["simulate-research-query", {"topic": "tides"}],
            "resource": "switchboard://legacy/",
            "prompt": "simple-prompt",
        },
        {
            "name": "py1", "prefix": "mcp__py1__",
            "echo": ["echo", {"text": "hi py1"}, "hi py1"],
            "progress": ["long_task", {"steps": 3, "step_ms": 20}],
            "slow": ["slow", {"seconds": 30}],
            "cancelled": "cancelled_count",
        },
        {
            "name": "plain", "prefix": "mcp__plain__",
            "echo": ["echo", {"text": "hi plain"}, "hi plain"],
            "progress": ["progress", {"steps": 3}],
            "slow": ["slow", {"seconds": 30}],
            "cancelled": "cancelled",
            "ask": ["ask", {"question": "Your name?"}],
            "log": ["log", {"message": "plain says hello"}],
            "resource": "switchboard://plain/",
            "prompt": "greet",
        },
        {
            "name": "older", "prefix": "mcp__older__",
            "echo": ["echo", {"text": "hi 2025-06-18"}, "hi 2025-06-18"],
            "progress": ["progress", {"steps": 2}],
            "ask": ["ask", {"question": "Your name?"}],
            "log": ["log", {"message": "older says hello"}],
            "resource": "switchboard://older/",
            "prompt": "greet",
        },
        {
            "name": "rmcp", "prefix": "mcp__rmcp__",
            "echo": ["test_simple_text", {}, "simple text"],
            "progress": ["test_tool_with_progress", {}],
            "ask": ["test_elicitation", {"message": "Your name?"}],
            "log": ["test_tool_with_logging", {}],
            "resource": "switchboard://rmcp/",
            "prompt": "test_simple_prompt",
        },
    ])
}

/// Every step of every upstream went as its revision and the client's expect.
#[track_caller]
fn assert_matrix(client: &str, seen: &Value) {
    let plan = plan();
    let mut failures = Vec::new();
    for upstream in plan.as_array().unwrap() {
        let name = upstream["name"].as_str().unwrap();
        let got = &seen[name];
        let mut check = |what: &str, ok: bool| {
            if !ok {
                failures.push(format!("{name} {what}: {}", got[what]));
            }
        };
        check(
            "tools",
            got["tools"].as_array().is_some_and(|t| !t.is_empty()),
        );
        check("echo", got["echo"]["ok"] == true);
        check(
            "progress",
            got["progress"]["ok"] == true && got["progress"]["reports"].as_u64() >= Some(1),
        );
        if upstream.get("slow").is_some() {
            let cancel = &got["cancel"];
            check(
                "cancel",
                cancel["abandoned"] == true
                    && cancel["seconds"].as_f64().is_some_and(|s| s < 10.0)
                    && cancel["upstream_cancelled"].as_u64() >= Some(1),
            );
        }
        if upstream.get("ask").is_some() {
            check(
                "ask",
                got["ask"]["ok"] == true && got["ask"]["questions"].as_u64() >= Some(1),
            );
        }
        if upstream.get("log").is_some() {
            check(
                "log",
                got["log"]["ok"] == true
                    && got["log"]["lines"]
                        .as_array()
                        .is_some_and(|l| !l.is_empty()),
            );
        }
        if upstream.get("task").is_some() {
            // A tool the upstream runs only as a task, called plainly by the client: the
            // gateway runs it as a task and answers with its result.
            check(
                "task",
                got["task"]["isError"] == false
                    && got["task"]["text"]
                        .as_str()
                        .is_some_and(|t| t.contains("Research Report: tides")),
            );
        }
        if upstream.get("resource").is_some() {
            check("read", got["read"]["text"].is_string());
        }
        if upstream.get("prompt").is_some() {
            check("prompt", got["prompt"]["messages"].as_u64() >= Some(1));
        }
    }
    assert!(
        failures.is_empty(),
        "{client}: {}\n{seen:#}",
        failures.join("\n")
    );
}

fn over_http(gw: &Gateway, generation: PyGen) -> Value {
    let url = gw.url("/mcp");
    let plan = plan().to_string();
    interop_client(
        generation,
        &[
            "http",
            "--url",
            url.as_str(),
            "--token",
            gw.admin.as_str(),
            "--plan",
            plan.as_str(),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn over_stdio(gw: &Gateway, generation: PyGen) -> Value {
    let command = stdio_command(&gw.sb, &["--user", "admin"]);
    let plan = plan().to_string();
    let mut args = vec!["stdio", "--plan", plan.as_str(), "--"];
    args.extend(command.iter().map(String::as_str));
    interop_client(generation, &args).unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test]
async fn python_sdk_1_with_every_upstream_revision() {
    let (gw, _legacy) = matrix_gateway().await;
    let seen = over_http(&gw, PyGen::V1);
    assert_eq!(seen["protocol"], "2025-11-25", "{seen}");
    assert_matrix("mcp 1.x over /mcp", &seen);
    let seen = over_stdio(&gw, PyGen::V1);
    assert_matrix("mcp 1.x over mcp --stdio", &seen);
}

#[tokio::test]
async fn python_sdk_2_with_every_upstream_revision() {
    let (gw, _legacy) = matrix_gateway().await;
    let seen = over_http(&gw, PyGen::V2);
    assert_eq!(seen["protocol"], "2026-07-28", "{seen}");
    assert_matrix("mcp 2.x over /mcp", &seen);
    let seen = over_stdio(&gw, PyGen::V2);
    assert_matrix("mcp 2.x over mcp --stdio", &seen);
}

/// The MCP Inspector's CLI (the TypeScript SDK's client) through `/mcp`: each upstream's tool
/// called, its resource read and its prompt got.
#[tokio::test]
async fn mcp_inspector_cli_with_every_upstream_revision() {
    let (gw, _legacy) = matrix_gateway().await;
    let header = format!("Authorization: Bearer {}", gw.admin);
    let run = |extra: &[&str]| {
        let url = gw.url("/mcp");
        let mut args = vec![url.as_str(), "--transport", "http"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--header", header.as_str()]);
        inspector(&args).unwrap_or_else(|e| panic!("{e}"))
    };
    let resources = run(&["--method", "resources/list"]);
    let prompts = run(&["--method", "prompts/list"]);
    for upstream in plan().as_array().unwrap() {
        let prefix = upstream["prefix"].as_str().unwrap();
        let (tool, args, expected) = (
            &upstream["echo"][0],
            &upstream["echo"][1],
            &upstream["echo"][2],
        );
        let mut call = vec![
            "--method".to_owned(),
            "tools/call".to_owned(),
            "--tool-name".to_owned(),
            format!("{prefix}{}", tool.as_str().unwrap()),
        ];
        for (name, value) in args.as_object().unwrap() {
            call.push("--tool-arg".to_owned());
            call.push(format!("{name}={}", value.as_str().unwrap()));
        }
        let call: Vec<&str> = call.iter().map(String::as_str).collect();
        let called = run(&call);
        assert_ne!(called["isError"], true, "{prefix}: {called}");
        assert!(
            called.to_string().contains(expected.as_str().unwrap()),
            "{prefix}: {called}"
        );
        if let Some(wrapped) = upstream["resource"].as_str() {
            let uri = resources["resources"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|r| r["uri"].as_str())
                .find(|uri| uri.starts_with(wrapped))
                .unwrap_or_else(|| panic!("{prefix}: {resources}"));
            let read = run(&["--method", "resources/read", "--uri", uri]);
            assert!(!read["contents"].as_array().unwrap().is_empty(), "{read}");
        }
        if let Some(prompt) = upstream["prompt"].as_str() {
            let name = prompts["prompts"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|p| p["name"].as_str())
                .find(|name| name.starts_with(prefix) && name.ends_with(&prompt.replace('-', "_")))
                .or_else(|| {
                    prompts["prompts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter_map(|p| p["name"].as_str())
                        .find(|name| name.starts_with(prefix) && name.ends_with(prompt))
                })
                .unwrap_or_else(|| panic!("{prefix}: {prompts}"));
            let got = run(&["--method", "prompts/get", "--prompt-name", name]);
            assert!(!got["messages"].as_array().unwrap().is_empty(), "{got}");
        }
    }
}

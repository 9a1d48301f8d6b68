//! The gateway with MCP clients written by others: the Python SDK's (mcp 1.x, and 2.x, which
//! negotiates the stateless 2026-07-28 revision by itself) and the TypeScript SDK's through the
//! MCP Inspector's CLI list tools, call one, read a resource and get a prompt through `/mcp`
//! (bearer token) and through `switchboard mcp --stdio`. Upstreams: the demo server (`echo`)
//! and server-everything (resources and prompts).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::gateway::{Gateway, inspector, python_client, stdio_command};
use serde_json::Value;
use switchboard_testkit::PyGen;

const CALL: &[&str] = &[
    "--call",
    "mcp__demo__echo",
    "--args",
    r#"{"text": "hello"}"#,
];

/// What every client must have seen: the demo's echo called, a resource read and a prompt got,
/// and none of the other person's tools.
#[track_caller]
fn assert_saw_everything(seen: &Value) {
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tools.contains(&"mcp__demo__echo"), "{seen}");
    assert!(
        tools.iter().any(|t| t.starts_with("mcp__everything__")),
        "{seen}"
    );
    assert!(!tools.iter().any(|t| t.contains("bobs")), "{seen}");
    assert_eq!(seen["call"]["isError"], false, "{seen}");
    assert!(
        seen["call"]["text"].as_str().unwrap().contains("hello"),
        "{seen}"
    );
    assert!(seen["read"]["contents"].as_u64().unwrap() >= 1, "{seen}");
    assert!(seen["prompt"]["messages"].as_u64().unwrap() >= 1, "{seen}");
}

fn python_over_http(gw: &Gateway, generation: PyGen, legacy: bool) -> Value {
    let url = gw.url("/mcp");
    let mut args = vec!["http", "--url", url.as_str(), "--token", gw.admin.as_str()];
    args.extend_from_slice(CALL);
    if legacy {
        args.push("--legacy");
    }
    python_client(generation, &args).unwrap_or_else(|e| panic!("{e}"))
}

fn python_over_stdio(gw: &Gateway, generation: PyGen) -> Value {
    let command = stdio_command(&gw.sb, &["--user", "admin"]);
    let mut args = vec!["stdio"];
    args.extend_from_slice(CALL);
    args.push("--");
    args.extend(command.iter().map(String::as_str));
    python_client(generation, &args).unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test]
async fn python_sdk_1_over_http() {
    let gw = Gateway::start(&[]).await;
    let seen = python_over_http(&gw, PyGen::V1, false);
    assert_saw_everything(&seen);
}

#[tokio::test]
async fn python_sdk_2_over_http_negotiates_the_stateless_revision() {
    let gw = Gateway::start(&[]).await;
    let seen = python_over_http(&gw, PyGen::V2, false);
    assert_saw_everything(&seen);
    assert_eq!(seen["protocol"], "2026-07-28", "{seen}");
    let legacy = python_over_http(&gw, PyGen::V2, true);
    assert_saw_everything(&legacy);
}

/// server-everything (the TypeScript SDK) speaks 2025-11-25 and answers a call without
/// `resultType`; the 2026-07-28 client gets it with one (the SDK refuses a result without).
#[tokio::test]
async fn a_2026_client_calls_a_tool_of_a_2025_upstream() {
    let gw = Gateway::start(&[]).await;
    let url = gw.url("/mcp");
    let seen = python_client(
        PyGen::V2,
        &[
            "http",
            "--url",
            url.as_str(),
            "--token",
            gw.admin.as_str(),
            "--call",
            "mcp__everything__echo",
            "--args",
            r#"{"message": "hello from 2026"}"#,
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(seen["protocol"], "2026-07-28", "{seen}");
    assert_eq!(seen["call"]["isError"], false, "{seen}");
    assert!(
        seen["call"]["text"]
            .as_str()
            .unwrap()
            .contains("hello from 2026"),
        "{seen}"
    );
}

#[tokio::test]
async fn python_sdks_over_stdio() {
    let gw = Gateway::start(&[]).await;
    for generation in [PyGen::V1, PyGen::V2] {
        let seen = python_over_stdio(&gw, generation);
        assert_saw_everything(&seen);
    }
}

/// The Inspector's answers for one server (named by `before` and `after`, around the method's
/// options): tools listed, echo called, the first resource read, the first prompt got.
fn inspector_session(before: &[String], after: &[String]) -> Vec<Value> {
    let run = |extra: &[&str]| {
        // `--header` takes every value up to the next option, and after `--` everything is
        // the server's command line: the method's options go in between.
        let mut args: Vec<&str> = before.iter().map(String::as_str).collect();
        args.extend_from_slice(extra);
        args.extend(after.iter().map(String::as_str));
        inspector(&args).unwrap_or_else(|e| panic!("{e}"))
    };
    let tools = run(&["--method", "tools/list"]);
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"mcp__demo__echo"), "{tools}");
    let called = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "mcp__demo__echo",
        "--tool-arg",
        "text=hello",
    ]);
    assert_ne!(called["isError"], true, "{called}");
    assert!(called.to_string().contains("hello"), "{called}");
    let resources = run(&["--method", "resources/list"]);
    let uri = resources["resources"][0]["uri"]
        .as_str()
        .unwrap_or_else(|| panic!("{resources}"))
        .to_owned();
    let read = run(&["--method", "resources/read", "--uri", &uri]);
    assert!(!read["contents"].as_array().unwrap().is_empty(), "{read}");
    let prompts = run(&["--method", "prompts/list"]);
    let plain = prompts["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["arguments"]
                .as_array()
                .is_none_or(|a| a.iter().all(|a| a["required"] != true))
        })
        .unwrap_or_else(|| panic!("{prompts}"));
    let got = run(&[
        "--method",
        "prompts/get",
        "--prompt-name",
        plain["name"].as_str().unwrap(),
    ]);
    assert!(!got["messages"].as_array().unwrap().is_empty(), "{got}");
    vec![tools, called, read, got]
}

#[tokio::test]
async fn mcp_inspector_cli_over_http() {
    let gw = Gateway::start(&[]).await;
    let header = format!("Authorization: Bearer {}", gw.admin);
    let before = [gw.url("/mcp"), "--transport".to_owned(), "http".to_owned()];
    inspector_session(&before, &["--header".to_owned(), header]);
}

#[tokio::test]
async fn mcp_inspector_cli_over_stdio() {
    let gw = Gateway::start(&[]).await;
    let mut after = vec!["--".to_owned()];
    after.extend(stdio_command(&gw.sb, &["--user", "admin"]));
    inspector_session(&["--transport".to_owned(), "stdio".to_owned()], &after);
}

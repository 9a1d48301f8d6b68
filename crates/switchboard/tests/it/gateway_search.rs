//! A gateway view in `search` mode used by the Python SDK 1.x's client, over Streamable HTTP
//! against `serve` and over `switchboard mcp --stdio --view`: `tools/list` shows the search
//! tools and the pinned tool only; `search_tools` finds the right tool; `describe_tool` gives
//! its schema; `call_tool` runs it and its result comes back; a tool outside the view (left
//! out of it, or another person's) is never found, described nor called; the audit records
//! the real tool. Upstreams: the demo server (`calculate`, `echo`, ...) and server-everything.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::Method;
use serde_json::{Value, json};

use crate::common;

use common::gateway::{Gateway, plan_client, send_as, stdio_command};

const INVALID_PARAMS: i64 = -32602;
const FIXED: [&str; 3] = ["search_tools", "describe_tool", "call_tool"];

/// The id of `admin`'s server named `name`.
async fn server_id(gw: &Gateway, name: &str) -> Value {
    let (status, servers) = send_as(
        &gw.served.base,
        &gw.admin,
        Method::GET,
        "/api/mcp-servers",
        None,
    )
    .await;
    assert_eq!(status, 200, "{servers}");
    servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap()["id"]
        .clone()
}

/// `admin`'s view `big`: every tool of server-everything and the demo server's `calculate`
/// and `echo`, searched, with `echo` pinned.
async fn big_view(gw: &Gateway) -> Value {
    let (demo, everything) = (
        server_id(gw, "demo").await,
        server_id(gw, "everything").await,
    );
    let view = json!({
        "name": "big",
        "toolExposure": "search",
        "servers": [
            {"serverId": everything},
            {"serverId": demo, "tools": ["calculate", "echo"]}
        ],
        "pinnedTools": [{"serverId": demo, "tool": "echo"}]
    });
    let (status, created) = send_as(
        &gw.served.base,
        &gw.admin,
        Method::POST,
        "/api/mcp/views",
        Some(view),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["toolExposure"], "search", "{created}");
    assert_eq!(created["pinnedTools"][0]["tool"], "echo", "{created}");
    created
}

fn call(name: &str, args: Value) -> Value {
    json!({"op": "call", "name": name, "args": args})
}

/// What searching, describing and calling the view's tools, and reaching outside it, give.
fn plan() -> String {
    json!([
        {"op": "list"},
        call("search_tools", json!({"query": "calculate an arithmetic expression", "limit": 5})),
        call("describe_tool", json!({"name": "mcp__demo__calculate"})),
        call("call_tool", json!({"name": "mcp__demo__calculate", "arguments": {"expression": "6 * 7"}})),
        // Outside the view: the demo server's `random_number` (left out), Bob's echo.
        call("search_tools", json!({"query": "random number", "limit": 50})),
        call("call_tool", json!({"name": "mcp__demo__random_number", "arguments": {}})),
        call("describe_tool", json!({"name": "mcp__bobs__echo"})),
        call("call_tool", json!({"name": "mcp__bobs__echo", "arguments": {"text": "x"}})),
        call("mcp__demo__random_number", json!({})),
        // A tool of the view that is not listed, called directly; the pinned one.
        call("mcp__everything__echo", json!({"message": "direct"})),
        call("mcp__demo__echo", json!({"text": "pinned"})),
        call("search_tools", json!({"limit": 5})),
    ])
    .to_string()
}

/// Checks the report of [`plan`].
fn check(seen: &Value) {
    let steps = seen["steps"].as_array().unwrap();
    let mut listed: Vec<&str> = FIXED.to_vec();
    listed.push("mcp__demo__echo");
    assert_eq!(steps[0]["tools"], json!(listed), "{seen}");

    let found = steps[1]["structured"]["tools"].as_array().unwrap();
    assert_eq!(found[0]["name"], "mcp__demo__calculate", "{seen}");
    assert_eq!(found[0]["server"], "demo", "{seen}");
    assert!(
        found[0]["inputSchema"]["properties"]["expression"].is_object(),
        "{seen}"
    );
    assert!(
        steps[1]["text"]
            .as_str()
            .unwrap()
            .contains("mcp__demo__calculate")
    );

    let described = &steps[2]["structured"];
    assert_eq!(described["name"], "mcp__demo__calculate", "{seen}");
    assert!(
        described["inputSchema"]["properties"]["expression"].is_object(),
        "{seen}"
    );
    assert!(described["description"].is_string(), "{seen}");

    assert_eq!(steps[3]["isError"], false, "{seen}");
    assert!(steps[3]["text"].as_str().unwrap().contains("42"), "{seen}");

    let outside: Vec<&str> = steps[4]["structured"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        outside
            .iter()
            .all(|name| name.starts_with("mcp__everything__")
                || ["mcp__demo__calculate", "mcp__demo__echo"].contains(name)),
        "{outside:?}"
    );
    for (at, step) in steps.iter().enumerate().take(9).skip(5) {
        assert_eq!(step["error"]["code"], INVALID_PARAMS, "step {at}: {seen}");
    }
    assert_eq!(steps[9]["isError"], false, "{seen}");
    assert!(
        steps[9]["text"].as_str().unwrap().contains("direct"),
        "{seen}"
    );
    assert!(
        steps[10]["text"].as_str().unwrap().contains("pinned"),
        "{seen}"
    );
    let refused = &steps[11]["error"];
    assert_eq!(refused["code"], INVALID_PARAMS, "{seen}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("`query` is required"),
        "{seen}"
    );
}

#[tokio::test]
async fn python_sdk_1_searches_describes_and_calls_through_a_search_view() {
    let gw = Gateway::start(&[]).await;
    big_view(&gw).await;
    let plan = plan();
    let seen = plan_client(&[
        "http",
        "--url",
        &gw.url("/mcp/v/big"),
        "--token",
        &gw.admin,
        "--plan",
        &plan,
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    check(&seen);

    // The audit names the tool that ran, not `call_tool`.
    let (status, audit) = send_as(
        &gw.served.base,
        &gw.admin,
        Method::GET,
        "/api/tool-calls?limit=50",
        None,
    )
    .await;
    assert_eq!(status, 200, "{audit}");
    let records = audit.as_array().unwrap_or_else(|| panic!("{audit}"));
    let demo = server_id(&gw, "demo").await;
    assert!(
        records.iter().any(|r| r["tool"] == "calculate"
            && r["serverId"] == demo
            && r["caller"] == "gateway"
            && r["outcome"] == "ok"),
        "{audit}"
    );
    assert!(
        records
            .iter()
            .all(|r| !FIXED.contains(&r["tool"].as_str().unwrap())),
        "{audit}"
    );
    assert!(
        records.iter().all(|r| r["tool"] != "random_number"),
        "{audit}"
    );
}

#[tokio::test]
async fn python_sdk_1_gets_the_same_over_stdio() {
    let gw = Gateway::start(&[]).await;
    big_view(&gw).await;
    let command = stdio_command(&gw.sb, &["--user", "admin", "--view", "big"]);
    let plan = plan();
    let mut args = vec!["stdio", "--plan", &plan, "--"];
    args.extend(command.iter().map(String::as_str));
    let seen = plan_client(&args).unwrap_or_else(|e| panic!("{e}"));
    check(&seen);
}

#[tokio::test]
async fn a_search_view_pinning_outside_itself_or_of_an_unknown_exposure_is_refused() {
    let gw = Gateway::start(&[]).await;
    let demo = server_id(&gw, "demo").await;
    let everything = server_id(&gw, "everything").await;
    let save = |body: Value| {
        let base = gw.served.base.clone();
        let admin = gw.admin.clone();
        async move { send_as(&base, &admin, Method::POST, "/api/mcp/views", Some(body)).await }
    };
    let (status, refused) = save(json!({
        "name": "pins", "toolExposure": "search",
        "servers": [{"serverId": demo, "tools": ["echo"]}],
        "pinnedTools": [{"serverId": everything}]
    }))
    .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["code"], "VALIDATION_ERROR", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("pinnedTools[0]"),
        "{refused}"
    );
    let (status, refused) = save(json!({
        "name": "modes", "toolExposure": "some",
        "servers": [{"serverId": demo}]
    }))
    .await;
    assert_eq!(status, 400, "{refused}");
}

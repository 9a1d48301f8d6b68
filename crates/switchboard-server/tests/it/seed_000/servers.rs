//! Seed 000's `MCPServerController` at `/api/mcp/servers` with `McpServerSpec` bodies, against
//! real stdio MCP servers (server-everything and the Python peer).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::{Peers, PyGen, StdioCommand, process};

use crate::common::{Api, assert_error, start};

/// A seed 000 `McpServerSpec` for a stdio command, its args as an array.
fn stdio_spec(id: &str, command: &StdioCommand) -> Value {
    json!({
        "id": id,
        "transport": "STDIO",
        "command": command.program,
        "args": command.args,
        "env": command.env.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
        "enabled": true,
    })
}

async fn post(api: &Api, body: Value) -> (StatusCode, Value) {
    api.send(
        Method::POST,
        "/api/mcp/servers",
        Some(&api.admin),
        Some(body),
    )
    .await
}

async fn health(api: &Api, id: &str) -> Value {
    let path = format!("/api/mcp/servers/{id}/health");
    let (status, body) = api.send(Method::GET, &path, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn listed(api: &Api) -> Vec<Value> {
    let (status, body) = api
        .send(Method::GET, "/api/mcp/servers", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body.as_array().unwrap().clone()
}

/// The children of this process whose command line mentions `needle`.
fn children_running(needle: &str) -> Vec<u32> {
    process::children_of_current()
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|line| String::from_utf8_lossy(&line).contains(needle))
        })
        .collect()
}

#[tokio::test]
async fn a_server_is_registered_listed_checked_and_deleted() {
    let api = start().await;
    let everything = Peers::locate().everything_stdio();
    let (status, _) = post(&api, stdio_spec("everything", &everything)).await;
    assert_eq!(status, StatusCode::OK);

    let servers = listed(&api).await;
    assert_eq!(servers.len(), 1, "{servers:?}");
    let server = &servers[0];
    assert_eq!(server["id"], "everything");
    assert_eq!(server["transport"], "STDIO");
    assert_eq!(server["command"], everything.program.as_str());
    assert_eq!(server["args"], everything.args.join(" "));
    assert_eq!(server["enabled"], true);
    assert!(server["env"].is_object(), "{server}");
    for time in ["createdAt", "updatedAt"] {
        assert!(
            server[time].as_str().is_some_and(|t| t.ends_with('Z')),
            "{server}"
        );
    }

    // Registering builds the client, as the seed's registry does.
    let report = health(&api, "everything").await;
    assert_eq!(report["serverId"], "everything");
    assert_eq!(report["connected"], true, "{report}");
    assert!(
        report["lastCheck"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "{report}"
    );

    let (status, _) = api
        .send(
            Method::DELETE,
            "/api/mcp/servers/everything",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert!(listed(&api).await.is_empty());
    api.manager.shutdown().await;
}

/// Seed 000 cannot say which env variables are credentials: one whose name looks like a
/// credential is sealed and never answered; an argument holding a space comes back as a list,
/// so a read-then-register keeps it whole.
#[tokio::test]
async fn credential_env_is_never_answered_and_args_survive_a_round_trip() {
    let api = start().await;
    let (status, body) = post(
        &api,
        json!({
            "id": "gh",
            "transport": "STDIO",
            "command": "npx",
            "args": ["-y", "/my docs/server.js"],
            "env": {"GITHUB_TOKEN": "ghp_secret_value", "LOG_LEVEL": "debug"},
            "enabled": false,
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(!body.to_string().contains("ghp_secret_value"), "{body}");
    let server = listed(&api).await.remove(0);
    assert!(!server.to_string().contains("ghp_secret_value"), "{server}");
    assert_eq!(server["env"]["LOG_LEVEL"], "debug", "{server}");
    assert_eq!(server["args"], json!(["-y", "/my docs/server.js"]));
    // Registered again as read (the masked value keeps the stored secret).
    let (status, body) = post(&api, server.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let again = listed(&api).await.remove(0);
    assert_eq!(again["args"], json!(["-y", "/my docs/server.js"]));
    assert_eq!(again["env"], server["env"]);
}

/// `test` is a valid id, though `/api/mcp/servers/test` is also where an unsaved
/// configuration is tested: its server is still deleted at its own path.
#[tokio::test]
async fn a_server_named_test_is_deleted_at_its_path() {
    let api = start().await;
    let (status, body) = post(
        &api,
        json!({"id": "test", "transport": "SSE", "url": "https://example.com/sse", "enabled": false}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = api
        .send(
            Method::DELETE,
            "/api/mcp/servers/test",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert!(listed(&api).await.is_empty());
    let (status, body) = api
        .send(
            Method::DELETE,
            "/api/mcp/servers/test",
            Some(&api.admin),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
}

#[tokio::test]
async fn unknown_servers_are_404() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    for (method, path) in [
        (Method::DELETE, "/api/mcp/servers/nope"),
        (Method::GET, "/api/mcp/servers/nope/health"),
    ] {
        let (status, body) = api.send(method, path, admin, None).await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    }
}

#[tokio::test]
async fn transports_are_read_in_any_case_and_others_are_refused() {
    let api = start().await;
    for (id, transport, url) in [
        ("a", "stdio", None),
        ("b", "Sse", Some("https://example.com/sse")),
        ("c", "streamable_HTTP", Some("https://example.com/mcp")),
    ] {
        let mut spec = json!({"id": id, "transport": transport, "enabled": false});
        match url {
            Some(url) => spec["url"] = json!(url),
            None => spec["command"] = json!("node"),
        }
        let (status, body) = post(&api, spec).await;
        assert_eq!(status, StatusCode::OK, "{transport}: {body}");
    }
    let transports: Vec<Value> = listed(&api)
        .await
        .iter()
        .map(|s| s["transport"].clone())
        .collect();
    assert_eq!(
        transports,
        [json!("STDIO"), json!("SSE"), json!("STREAMABLE_HTTP")]
    );

    for transport in ["GRPC", "websocket", "http"] {
        let spec = json!({"id": "d", "transport": transport, "url": "https://example.com/mcp"});
        let (status, body) = post(&api, spec).await;
        assert_error(
            status,
            &body,
            StatusCode::BAD_REQUEST,
            "UNSUPPORTED_TRANSPORT",
        );
    }
    assert_eq!(listed(&api).await.len(), 3);
}

#[tokio::test]
async fn an_id_must_be_usable_in_a_path() {
    let api = start().await;
    for id in ["has space", "a/b", ""] {
        let spec = json!({"id": id, "transport": "STDIO", "command": "node", "enabled": false});
        let (status, body) = post(&api, spec).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    assert!(listed(&api).await.is_empty());
}

#[tokio::test]
async fn args_may_be_one_whitespace_separated_string() {
    let api = start().await;
    let everything = Peers::locate().everything_stdio();
    assert!(
        everything
            .args
            .iter()
            .all(|a| !a.contains(char::is_whitespace))
    );
    let mut spec = stdio_spec("everything", &everything);
    spec["args"] = json!(format!("  {}\t", everything.args.join("   ")));
    let (status, _) = post(&api, spec).await;
    assert_eq!(status, StatusCode::OK);
    // One argument per word, or the process would not have started.
    assert_eq!(health(&api, "everything").await["connected"], true);
    assert_eq!(listed(&api).await[0]["args"], everything.args.join(" "));
    api.manager.shutdown().await;
}

#[tokio::test]
async fn replacing_a_server_closes_its_connection_and_builds_the_new_one() {
    let api = start().await;
    let peers = Peers::locate();
    let everything = peers.everything_stdio();
    let python = peers.python_stdio(PyGen::V1);
    let old_marker = everything.args[0].clone();
    let new_marker = python.args[0].clone();

    let (status, _) = post(&api, stdio_spec("tools", &everything)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health(&api, "tools").await["connected"], true);
    let old = children_running(&old_marker);
    assert_eq!(old.len(), 1, "one process for the server");

    let (status, _) = post(&api, stdio_spec("tools", &python)).await;
    assert_eq!(status, StatusCode::OK);
    let left = process::wait_until_gone(&old, Duration::from_secs(10)).await;
    assert!(left.is_empty(), "the old server is still running: {left:?}");
    assert_eq!(
        children_running(&new_marker).len(),
        1,
        "the new command runs"
    );
    assert_eq!(health(&api, "tools").await["connected"], true);

    let servers = listed(&api).await;
    assert_eq!(servers.len(), 1, "replaced, not added: {servers:?}");
    assert_eq!(servers[0]["command"], python.program.as_str());
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_member_registers_only_what_the_launch_rules_allow() {
    let api = start().await;
    let everything = Peers::locate().everything_stdio();
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/servers",
            Some(&api.member),
            Some(stdio_spec("everything", &everything)),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    assert!(
        children_running(&everything.args[0]).is_empty(),
        "nothing was started"
    );
    let (status, body) = api
        .send(Method::GET, "/api/mcp/servers", Some(&api.member), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!([]));
}

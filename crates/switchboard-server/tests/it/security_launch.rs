//! Members start stdio servers only as the admin's launch templates,
//! checked when saved, imported or edited, and again at every spawn; loader and interpreter
//! variables are refused whatever a template lists; quoted stderr is capped. Admins keep full
//! control. The real router on a socket, with the server's own [`ServerPolicy`].

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::{assert_error, everything};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_app::{App, AppConfig, Rules};
use switchboard_server::{AppState, AuthMode, ServerConfig, app};
use switchboard_store::{Role, Store, StoreConfig};

/// One `serve`: the router on its socket, with its own configuration and manager.
struct Serve {
    base: String,
    client: reqwest::Client,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

/// A store with an admin and a member, shared by the `serve`s a test starts on it (a restart
/// with other settings is a second `serve` on the same store).
struct Users {
    store: Arc<dyn Store>,
    admin: String,
    member: String,
    _dir: tempfile::TempDir,
}

async fn users() -> Users {
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let member = store.create_user("member", Role::Member).await.unwrap();
    Users {
        admin: store.issue_token(&admin.id, "t").await.unwrap().secret,
        member: store.issue_token(&member.id, "t").await.unwrap().secret,
        store,
        _dir: dir,
    }
}

async fn serve(users: &Users, templates: &[&str]) -> Serve {
    let application = App::on_store(
        Arc::clone(&users.store),
        AppConfig {
            manager: common::manager_config(),
            rules: Rules {
                launch: switchboard_core::LaunchRules::parse_all(templates).unwrap(),
                ..Rules::default()
            },
            ..AppConfig::default()
        },
    )
    .unwrap();
    let state = AppState::new(
        Arc::new(application),
        ServerConfig::default(),
        AuthMode::Tokens,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        axum::serve(listener, app(state))
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    Serve {
        base,
        client: reqwest::Client::new(),
        _shutdown: shutdown,
    }
}

impl Serve {
    async fn send(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }
}

/// The template that admits exactly the everything peer as the test harness starts it.
fn everything_template() -> String {
    let server = everything();
    let words: Vec<&str> = std::iter::once(&server["command"])
        .chain(server["args"].as_array().unwrap())
        .map(|w| w.as_str().unwrap())
        .collect();
    format!("{} env=LOG_LEVEL", words.join(" "))
}

const NPX_TEMPLATE: &str = "npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN";

/// The key exfiltration of the issue: `npx -c` with a shell line that prints the key.
fn npx_dash_c() -> Value {
    json!({
        "name": "exfil",
        "transport": "stdio",
        "command": "npx",
        "args": ["-c", "base64 -w0 /data/secret.key >&2"],
    })
}

#[tokio::test]
async fn npx_dash_c_is_refused_on_save_import_and_edit() {
    let users = users().await;
    let api = serve(&users, &[NPX_TEMPLATE]).await;
    let member = users.member.as_str();

    // Today `--allow-command npx` saved this with 201.
    let (status, body) = api
        .send(Method::POST, "/api/mcp-servers", member, Some(npx_dash_c()))
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("npx -y @modelcontextprotocol/server-*"),
        "{message}"
    );

    for args in [
        json!(["-y", "@modelcontextprotocol/server-everything", "-c", "id"]),
        json!([
            "-y",
            "--call",
            "id",
            "@modelcontextprotocol/server-everything"
        ]),
        json!([
            "--node-options=--require=/tmp/x.js",
            "-y",
            "@modelcontextprotocol/server-x"
        ]),
        json!(["-y", "@modelcontextprotocol/server-x@file:../../tmp/evil"]),
    ] {
        let mut spec = npx_dash_c();
        spec["args"] = args.clone();
        let (status, body) = api
            .send(Method::POST, "/api/mcp-servers", member, Some(spec))
            .await;
        assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    }

    let file = json!({"mcpServers": {"exfil": {
        "command": "npx", "args": ["-c", "cat /data/secret.key >&2"]
    }}})
    .to_string();
    let (status, report) = api
        .send(
            Method::POST,
            "/api/import/mcp-servers",
            member,
            Some(json!({"text": file})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["imported"], json!([]), "{report}");
    assert_eq!(
        report["skipped"][0]["code"], "LAUNCH_NOT_ALLOWED",
        "{report}"
    );

    // A conforming server may not be edited into the attack either.
    let good = json!({"name": "gh", "transport": "stdio", "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "x"}});
    let (status, body) = api
        .send(Method::POST, "/api/mcp-servers", member, Some(good))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/gh",
            member,
            Some(npx_dash_c()),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");

    let (_, listed) = api
        .send(Method::GET, "/api/mcp-servers", member, None)
        .await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["args"][0], "-y", "{listed}");
}

#[tokio::test]
async fn loader_variables_and_env_only_edits_are_refused() {
    let users = users().await;
    let api = serve(&users, &[NPX_TEMPLATE]).await;
    let member = users.member.as_str();
    let good = json!({"name": "gh", "transport": "stdio", "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "x"}});

    for (name, value) in [
        ("PATH", "/tmp/evil:/usr/bin"),
        ("NODE_OPTIONS", "--require /tmp/evil.js"),
        ("LD_PRELOAD", "/tmp/evil.so"),
        ("node_options", "--require /tmp/evil.js"),
        ("NPM_CONFIG_SCRIPT_SHELL", "/tmp/evil.sh"),
        ("SWITCHBOARD_SECRET_KEY", "x"),
        ("NOT_LISTED", "x"),
    ] {
        let mut spec = good.clone();
        spec["env"][name] = json!(value);
        let (status, body) = api
            .send(Method::POST, "/api/mcp-servers", member, Some(spec))
            .await;
        assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
        assert!(body["message"].as_str().unwrap().contains(name), "{body}");
    }
    let mut with_cwd = good.clone();
    with_cwd["cwd"] = json!("/tmp");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            member,
            Some(with_cwd.clone()),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");

    // An edit that changes only env (or cwd) is checked too; today only a changed command was.
    let (status, body) = api
        .send(Method::POST, "/api/mcp-servers", member, Some(good.clone()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let mut env_edit = good.clone();
    env_edit["env"]["NODE_OPTIONS"] = json!("--require /tmp/evil.js");
    for edit in [env_edit, with_cwd] {
        let (status, body) = api
            .send(Method::PUT, "/api/mcp-servers/gh", member, Some(edit))
            .await;
        assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    }
    let (_, stored) = api
        .send(Method::GET, "/api/mcp-servers/gh", member, None)
        .await;
    assert_eq!(stored["env"], json!({"GITHUB_TOKEN": "x"}), "{stored}");
    assert!(stored.get("cwd").is_none(), "{stored}");

    // Admins keep full control.
    let mut admin_spec = good;
    admin_spec["env"]["NODE_OPTIONS"] = json!("--max-old-space-size=512");
    admin_spec["args"] = json!(["-c", "echo admin"]);
    admin_spec["cwd"] = json!("/tmp");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            &users.admin,
            Some(admin_spec),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn a_removed_template_stops_the_members_server_at_its_next_spawn() {
    let users = users().await;
    let member = users.member.as_str();
    let template = everything_template();
    let before = serve(&users, &[&template]).await;
    let mut server = everything();
    server["env"] = json!({"LOG_LEVEL": "info"});
    let (status, body) = before
        .send(
            Method::POST,
            "/api/mcp-servers",
            member,
            Some(server.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, report) = before
        .send(
            Method::POST,
            "/api/mcp-servers/everything/test",
            member,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(report.to_string().contains("echo"), "{report}");

    // The same store served again without the template (a restart with other flags).
    let after = serve(&users, &[]).await;
    let (status, body) = after
        .send(
            Method::POST,
            "/api/mcp-servers/everything/test",
            member,
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    let (status, body) = after
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            member,
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    let (status, health) = after
        .send(
            Method::GET,
            "/api/mcp-servers/everything/health",
            member,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{health}");
    assert_eq!(health["status"], "error", "{health}");
    assert!(
        health["lastError"]
            .as_str()
            .unwrap()
            .contains("LAUNCH_NOT_ALLOWED"),
        "{health}"
    );

    // The admin's own server with the same command still runs.
    let (status, body) = after
        .send(Method::POST, "/api/mcp-servers", &users.admin, Some(server))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, report) = after
        .send(
            Method::POST,
            "/api/mcp-servers/everything/test",
            &users.admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{report}");
}

#[tokio::test]
async fn quoted_stderr_is_the_last_lines_capped() {
    let users = users().await;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("noisy.sh");
    // 200 lines of 400 characters, then it dies before any handshake.
    std::fs::write(
        &script,
        "i=0; line=$(printf '%0400d' 0)\n\
         while [ $i -lt 200 ]; do i=$((i+1)); echo \"noise $i $line\" >&2; done\n\
         echo 'the last words' >&2; exit 1\n",
    )
    .unwrap();
    let script = script.to_str().unwrap();
    let api = serve(&users, &[&format!("/bin/sh {script}")]).await;
    let spec = json!({"name": "noisy", "transport": "stdio", "command": "/bin/sh",
        "args": [script]});
    let (status, body) = api
        .send(Method::POST, "/api/mcp-servers", &users.member, Some(spec))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers/noisy/test",
            &users.member,
            None,
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::SERVICE_UNAVAILABLE,
        "MCP_CONNECTION_ERROR",
    );
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("the last words"), "{message}");
    assert!(message.contains("noise 200"), "{message}");
    assert!(!message.contains("noise 190 "), "{message}");
    // Today twenty whole lines (8 KiB) were quoted.
    assert!(message.len() < 1500, "{} bytes: {message}", message.len());
}

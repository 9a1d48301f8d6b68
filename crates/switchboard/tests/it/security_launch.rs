//! Launch templates, against a real `switchboard serve`: members run stdio servers only as
//! the admin's `--launch-template`s, checked at save, edit and every spawn (a restart without
//! the template stops them); `--allow-command` is refused at start; a member's server never
//! sees serve's own secrets; quoted stderr is capped.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::serve::{Served, terminate};
use common::{BIN, PROVIDER_VARS, Switchboard};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The at-rest key serve is given in its environment (32 bytes, base64).
const SECRET_KEY: &str = "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=";
const PROVIDER_KEY: &str = "sk-canary-provider-key";

/// `serve` on a store that already has its users (so it prints no token), with serve's own
/// secrets in its environment.
fn serve(sb: &Switchboard, extra: &[&str]) -> Served {
    let mut command = Command::new(BIN);
    for var in PROVIDER_VARS {
        command.env_remove(var);
    }
    let mut child = command
        .arg("--data-dir")
        .arg(sb.data_dir())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_ALLOW_COMMANDS")
        .env_remove("SWITCHBOARD_LAUNCH_TEMPLATES")
        .env("SWITCHBOARD_SECRET_KEY", SECRET_KEY)
        .env("OPENAI_API_KEY", PROVIDER_KEY)
        .env("ANTHROPIC_API_KEY", PROVIDER_KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let base = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "serve ended early"
        );
        if let Some(url) = line.trim().strip_prefix("switchboard is listening on ") {
            break url.to_owned();
        }
    };
    std::thread::spawn(move || for _ in stderr.lines() {});
    Served {
        child,
        base,
        token: None,
    }
}

/// An admin's and a member's token, made before serve first starts.
fn users(sb: &Switchboard) -> (String, String) {
    let token = |args: &[&str], name: &str| {
        let out = sb
            .run_with_env(args, &[("SWITCHBOARD_SECRET_KEY", SECRET_KEY)])
            .ok()
            .stdout;
        let prefix = format!("API token for {name} (shown once, keep it): ");
        out.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap()
            .to_owned()
    };
    (
        token(&["users", "add", "root", "--role", "admin"], "root"),
        token(&["users", "add", "mem"], "mem"),
    )
}

async fn send(
    served: &Served,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", served.base))
        .bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

fn refused(status: StatusCode, body: &Value) {
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "LAUNCH_NOT_ALLOWED", "{body}");
}

#[test]
fn allow_command_and_bad_templates_are_refused_at_start() {
    let sb = Switchboard::new();
    for (args, env) in [
        (vec!["--allow-command", "npx"], vec![]),
        (vec![], vec![("SWITCHBOARD_ALLOW_COMMANDS", "npx")]),
    ] {
        let mut all = vec!["serve", "--listen", "127.0.0.1:0"];
        all.extend(args);
        let run = sb.run_with_env(&all, &env).failed();
        assert!(run.stderr.contains("--launch-template"), "{run:?}");
    }
    for template in ["npx -y x env=NODE_OPTIONS", "npx env=A -y", "np* -y"] {
        let run = sb
            .run(&[
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--launch-template",
                template,
            ])
            .failed();
        assert!(run.stderr.contains("launch template"), "{run:?}");
    }
}

#[tokio::test]
async fn npx_dash_c_and_loader_variables_are_refused() {
    let sb = Switchboard::new();
    let (_admin, member) = users(&sb);
    let mut served = serve(
        &sb,
        &[
            "--launch-template",
            "npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN",
        ],
    );
    let key_file = sb.data_dir().join("secret.key");
    // The exfiltration: with `--allow-command npx` this was saved, and its test
    // printed the key in the error.
    let exfil = json!({"name": "exfil", "transport": "stdio", "command": "npx",
        "args": ["-c", format!("base64 -w0 {} >&2", key_file.display())]});
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers",
        &member,
        Some(exfil),
    )
    .await;
    refused(status, &body);

    let good = json!({"name": "gh", "transport": "stdio", "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"]});
    for (name, value) in [
        ("PATH", "/tmp/evil"),
        ("NODE_OPTIONS", "--require /tmp/evil.js"),
        ("LD_PRELOAD", "/tmp/evil.so"),
        ("SWITCHBOARD_SECRET_KEY", "x"),
        ("OPENAI_API_KEY", "x"),
    ] {
        let mut spec = good.clone();
        spec["env"] = json!({ name: value });
        let (status, body) = send(
            &served,
            Method::POST,
            "/api/mcp-servers",
            &member,
            Some(spec),
        )
        .await;
        refused(status, &body);
    }
    let (status, body) = send(&served, Method::GET, "/api/mcp-servers", &member, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!([]), "nothing was saved");
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn a_members_server_runs_by_its_template_and_stops_when_it_is_removed() {
    let sb = Switchboard::new();
    let (admin, member) = users(&sb);
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("env-check.sh");
    std::fs::write(
        &script,
        "env | grep -i -e switchboard -e api_key -e database -e canary >&2\n\
         echo 'env checked' >&2; exit 1\n",
    )
    .unwrap();
    let script = script.to_str().unwrap().to_owned();
    let demo_template = format!("{BIN} demo-server env=DEMO_GREETING");
    let script_template = format!("/bin/sh {script}");
    let mut served = serve(
        &sb,
        &[
            "--launch-template",
            &demo_template,
            "--launch-template",
            &script_template,
        ],
    );

    let demo = json!({"name": "demo", "transport": "stdio", "command": BIN,
        "args": ["demo-server"], "env": {"DEMO_GREETING": "hi"}});
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers",
        &member,
        Some(demo.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, report) = send(
        &served,
        Method::POST,
        "/api/mcp-servers/demo/test",
        &member,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(report.to_string().contains("calculate"), "{report}");

    // An edit of env alone is checked.
    let mut env_edit = demo.clone();
    env_edit["env"]["NODE_OPTIONS"] = json!("--require /tmp/evil.js");
    let (status, body) = send(
        &served,
        Method::PUT,
        "/api/mcp-servers/demo",
        &member,
        Some(env_edit),
    )
    .await;
    refused(status, &body);

    // The child sees none of serve's secrets.
    let check = json!({"name": "envcheck", "transport": "stdio", "command": "/bin/sh",
        "args": [script]});
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers",
        &member,
        Some(check),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers/envcheck/test",
        &member,
        None,
    )
    .await;
    assert!(status.is_server_error(), "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("env checked"), "{message}");
    for secret in ["SWITCHBOARD", SECRET_KEY, PROVIDER_KEY, "API_KEY"] {
        assert!(!message.contains(secret), "{secret} leaked: {message}");
    }
    assert!(terminate(&mut served).success());

    // Restarted without the demo template: the member's server no longer starts.
    let mut served = serve(&sb, &["--launch-template", &script_template]);
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers/demo/test",
        &member,
        None,
    )
    .await;
    refused(status, &body);
    let (status, body) = send(
        &served,
        Method::GET,
        "/api/mcp-servers/demo/tools",
        &member,
        None,
    )
    .await;
    refused(status, &body);
    let (_, health) = send(
        &served,
        Method::GET,
        "/api/mcp-servers/demo/health",
        &member,
        None,
    )
    .await;
    assert_eq!(health["status"], "error", "{health}");
    assert!(
        health["lastError"]
            .as_str()
            .unwrap()
            .contains("LAUNCH_NOT_ALLOWED"),
        "{health}"
    );
    // The admin may still run it, env and all.
    let mut admins = demo;
    admins["env"]["NODE_OPTIONS"] = json!("--max-old-space-size=256");
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers",
        &admin,
        Some(admins),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, report) = send(
        &served,
        Method::POST,
        "/api/mcp-servers/demo/test",
        &admin,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(terminate(&mut served).success());
}

//! The catalogue of ready servers: listed, added with its settings through the checked
//! create path (member rules, quotas), marked as a preset; and every local entry, pointed at
//! its installed test peer, offers exactly the tools the catalogue says.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::Config;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_core::catalogue::{Catalogue, Launch};
use switchboard_testkit::{PEERS_ENV, Peers};

use common::{Api, assert_error, start, start_with};

async fn add(api: &Api, token: &str, entry: &str, body: Value) -> (StatusCode, Value) {
    api.send(
        Method::POST,
        &format!("/api/catalogue/{entry}/add"),
        Some(token),
        Some(body),
    )
    .await
}

#[tokio::test]
async fn the_catalogue_lists_every_entry_with_its_launch_tools_and_settings() {
    let api = start().await;
    let (status, _) = api.send(Method::GET, "/api/catalogue", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = api
        .send(Method::GET, "/api/catalogue", Some(&api.member), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let entries = body.as_array().unwrap();
    let names: Vec<&str> = entries.iter().filter_map(|e| e["name"].as_str()).collect();
    for name in ["everything", "filesystem", "memory", "fetch", "time", "git"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let fs = entries.iter().find(|e| e["name"] == "filesystem").unwrap();
    assert_eq!(fs["source"], "reference");
    assert_eq!(fs["transport"], "stdio");
    assert_eq!(fs["launch"]["command"], "npx");
    assert!(
        fs["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("read_file"))
    );
    assert_eq!(
        fs["settings"][0],
        json!({"name": "root", "label": "Root folder", "kind": "path", "required": true,
               "description": fs["settings"][0]["description"]})
    );
    let search = entries
        .iter()
        .find(|e| e["name"] == "modelscope-search")
        .unwrap();
    assert_eq!(search["source"], "modelscope");
    assert_eq!(
        search["launch"]["url"],
        "https://mcp.modelscope.cn/servers/search"
    );
    assert_eq!(search["settings"][0]["kind"], "secret");
}

#[tokio::test]
async fn an_entry_is_added_with_its_settings_and_marked_a_preset() {
    let api = start().await;
    let (status, server) = add(
        &api,
        &api.admin,
        "filesystem",
        json!({"name": "notes", "settings": {"root": "/srv/notes"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    assert_eq!(server["name"], "notes");
    assert_eq!(server["command"], "npx");
    assert_eq!(
        server["args"],
        json!([
            "-y",
            "@modelcontextprotocol/server-filesystem@2026.8.31",
            "/srv/notes"
        ])
    );
    assert_eq!(server["isPreset"], true);
    assert_eq!(server["presetType"], "reference");
    assert_eq!(server["catalogueEntry"], "filesystem");

    // The server is an ordinary server of the caller's, and its preset mark is listed.
    let (status, read) = api
        .send(
            Method::GET,
            "/api/mcp-servers/notes",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    let (_, marks) = api
        .send(
            Method::GET,
            "/api/catalogue/servers",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(
        marks,
        json!([{"serverId": "notes", "presetType": "reference"}])
    );
    // Another user sees neither the server nor its mark.
    let (_, theirs) = api
        .send(
            Method::GET,
            "/api/catalogue/servers",
            Some(&api.member),
            None,
        )
        .await;
    assert_eq!(theirs, json!([]));

    // The same name again is a conflict, as for any server.
    let (status, body) = add(
        &api,
        &api.admin,
        "filesystem",
        json!({"name": "notes", "settings": {"root": "/srv/other"}}),
    )
    .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
}

#[tokio::test]
async fn a_secret_setting_is_sealed_and_never_answered() {
    let api = start().await;
    let secret = "ms-secret-token-8271";
    let (status, server) = add(
        &api,
        &api.admin,
        "modelscope-search",
        json!({"settings": {"api_key": secret}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    assert!(!server.to_string().contains(secret), "{server}");
    assert_eq!(server["transport"], "sse");
    assert_eq!(server["auth"]["type"], "bearer");
    assert_eq!(server["presetType"], "modelscope");
    let id = server["id"].as_str().unwrap();
    // Seed 002's listing shows it as its MCPServerConfig, a preset.
    let (_, listed) = api
        .send(Method::GET, "/api/mcp/servers", Some(&api.admin), None)
        .await;
    let seed = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap();
    assert_eq!(seed["isPreset"], true, "{seed}");
    assert_eq!(seed["presetType"], "modelscope");
    assert!(!listed.to_string().contains(secret));
    // The connection gets the token in clear.
    let owner = api.store.user_by_token(&api.admin).await.unwrap().unwrap();
    let spec = api
        .store
        .connection_spec(&owner.id, &switchboard_core::ServerId(id.to_owned()))
        .await
        .unwrap();
    assert_eq!(
        spec.auth,
        switchboard_core::Auth::Bearer {
            token: secret.into()
        }
    );
    // A bad value is refused by the setting's name, the value never quoted.
    let (status, body) = add(
        &api,
        &api.admin,
        "modelscope-fetch",
        json!({"settings": {"api_key": "line\nbreak-secret"}}),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(
        body["message"].as_str().unwrap().contains("api_key"),
        "{body}"
    );
    assert!(!body.to_string().contains("break-secret"), "{body}");
}

#[tokio::test]
async fn settings_that_do_not_fit_are_refused_by_name() {
    let api = start().await;
    let (status, body) = add(&api, &api.admin, "filesystem", json!({})).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(body["message"].as_str().unwrap().contains("root"), "{body}");
    let (status, body) = add(
        &api,
        &api.admin,
        "filesystem",
        json!({"settings": {"root": "relative"}}),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(
        body["message"].as_str().unwrap().contains("absolute"),
        "{body}"
    );
    let (status, body) = add(
        &api,
        &api.admin,
        "filesystem",
        json!({"settings": {"root": "/a", "extra": "x"}}),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = add(&api, &api.admin, "filesystem", json!({"oops": 1})).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = add(&api, &api.admin, "no-such-entry", json!({})).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert!(
        body["message"].as_str().unwrap().contains("no-such-entry"),
        "{body}"
    );
    // In Chinese too.
    let response = api
        .client
        .post(format!("{}/api/catalogue/filesystem/add", api.base))
        .bearer_auth(&api.admin)
        .header("accept-language", "zh-Hans")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("必填"), "{body}");
}

#[tokio::test]
async fn a_member_is_held_to_the_launch_templates_and_the_quota() {
    let mut config = Config::default();
    config.limits.max_servers = 1;
    let api = start_with(config).await;
    // No launch template allows npx for members: the catalogue is no way around that.
    let (status, body) = add(&api, &api.member, "memory", json!({})).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    let (_, servers) = api
        .send(Method::GET, "/api/mcp-servers", Some(&api.member), None)
        .await;
    assert_eq!(servers, json!([]));
    // The quota counts catalogue servers like any other.
    let (status, body) = add(&api, &api.admin, "memory", json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = add(&api, &api.admin, "time", json!({})).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED");
}

/// The command and arguments that run `launch` from the installed peers instead of the
/// registry: `npx -y @scope/pkg@V rest..` becomes `node <pkg's bin script> rest..` (on the
/// peers' Node 24), `uvx pkg==V rest..` becomes `<ref venv>/bin/pkg rest..`.
fn from_peers(peers: &Peers, command: &str, args: &[String]) -> (String, Vec<String>) {
    let root = peers.root();
    match command {
        "npx" => {
            let (package, _) = args[1].rsplit_once('@').unwrap();
            let dir = root.join("node/node_modules").join(package);
            let manifest: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap())
                    .unwrap();
            let bin = match &manifest["bin"] {
                Value::String(script) => script.clone(),
                Value::Object(bins) => bins.values().next().unwrap().as_str().unwrap().to_owned(),
                other => panic!("{package} has no bin: {other}"),
            };
            let mut all = vec![path(&dir.join(bin))];
            all.extend(args[2..].iter().cloned());
            (path(peers.node22()), all)
        }
        "uvx" => {
            let (package, _) = args[0].split_once("==").unwrap();
            let script = root.join("ref/bin").join(package);
            assert!(
                script.exists(),
                "{} is missing: run scripts/test.sh --install-only",
                script.display()
            );
            (path(&script), args[1..].to_vec())
        }
        other => panic!("no peer for {other}"),
    }
}

fn path(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn git_repository(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir(&repo).unwrap();
    let status = std::process::Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(status.success());
    repo
}

#[tokio::test]
async fn every_local_entry_offers_the_tools_the_catalogue_lists() {
    if std::env::var_os(PEERS_ENV).is_none() {
        eprintln!("skipped: {PEERS_ENV} is not set (scripts/test.sh sets it)");
        return;
    }
    let peers = Peers::locate();
    let api = start().await;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let repository = git_repository(dir.path());
    let catalogue = Catalogue::embedded().unwrap();
    let mut checked = Vec::new();
    for entry in catalogue.entries() {
        let Launch::Process(_) = &entry.launch else {
            continue;
        };
        let settings = json!({
            "filesystem": {"root": path(&root)},
            "git": {"repository": path(&repository)},
            "memory": {"memory_file": path(&dir.path().join("memory.jsonl"))},
            "time": {"local_timezone": "Europe/Paris"},
        });
        let body = json!({"settings": settings.get(&entry.name).cloned().unwrap_or(json!({}))});
        let (status, server) = add(&api, &api.admin, &entry.name, body).await;
        assert_eq!(status, StatusCode::CREATED, "{}: {server}", entry.name);

        // The registry is out of reach at test time: the same server, from the peers.
        let args: Vec<String> = serde_json::from_value(server["args"].clone()).unwrap();
        let (command, args) = from_peers(&peers, server["command"].as_str().unwrap(), &args);
        let id = server["id"].as_str().unwrap();
        let (status, body) = api
            .send(
                Method::PUT,
                &format!("/api/mcp-servers/{id}"),
                Some(&api.admin),
                Some(json!({
                    "name": server["name"], "transport": "stdio", "command": command,
                    "args": args, "env": server.get("env").cloned().unwrap_or(json!({})),
                })),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{}: {body}", entry.name);

        let (status, tools) = api
            .send(
                Method::GET,
                &format!("/api/mcp-servers/{id}/tools"),
                Some(&api.admin),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{}: {tools}", entry.name);
        let offered: BTreeSet<&str> = (tools.as_array().unwrap().iter())
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        let listed: BTreeSet<&str> = entry.tools.iter().map(String::as_str).collect();
        assert_eq!(offered, listed, "{}", entry.name);
        checked.push(entry.name.clone());
    }
    assert_eq!(
        checked,
        [
            "everything",
            "filesystem",
            "memory",
            "fetch",
            "time",
            "git",
            "sequential-thinking"
        ]
    );
}

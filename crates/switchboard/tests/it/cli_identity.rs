//! One person, whichever door: the command line on the data directory of a `serve` with
//! tokens acts as the admin `serve` made, so it and the web UI (the REST API) see the same
//! servers; `--user` (or `SWITCHBOARD_USER`) makes it act as another user, on every command;
//! and the gateway snippet the settings page offers launches the command line the same way.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::rest::send;
use common::serve::{serve, terminate};
use reqwest::Method;
use serde_json::Value;

fn names(listed: &Value) -> Vec<&str> {
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_command_line_and_the_web_ui_see_the_same_servers() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &[]);
    // The admin's demo server, added by `serve` on first start, is the command line's too.
    let listed = sb.run(&["--json", "servers", "list"]).ok().json();
    assert_eq!(names(&listed), ["demo"], "{listed}");
    sb.run(&[
        "servers",
        "add",
        "from-cli",
        "--command",
        common::BIN,
        "--arg",
        "demo-server",
    ])
    .ok();
    let (status, seen) = send(&served, Method::GET, "/api/mcp-servers", None).await;
    assert_eq!(status, 200, "{seen}");
    let mut seen = names(&seen);
    seen.sort_unstable();
    assert_eq!(seen, ["demo", "from-cli"]);

    // Another user, named on any command, or in the environment.
    sb.run(&["users", "add", "bob"]).ok();
    let bobs = sb
        .run(&["--json", "servers", "list", "--user", "bob"])
        .ok()
        .json();
    assert_eq!(names(&bobs), Vec::<&str>::new(), "{bobs}");
    let bobs = sb
        .run_with_env(&["--json", "tools", "list"], &[("SWITCHBOARD_USER", "bob")])
        .ok()
        .json();
    assert_eq!(bobs["tools"], serde_json::json!([]), "{bobs}");
    let nobody = sb.run(&["servers", "list", "--user", "nobody"]).failed();
    assert!(nobody.stderr.contains("nobody"), "{nobody:?}");
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn the_gateway_snippet_names_this_machines_command_and_data_for_the_admin_only() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &[]);
    let (status, admin) = send(&served, Method::GET, "/api/mcp/connect", None).await;
    assert_eq!(status, 200, "{admin}");
    let stdio = &admin["stdio"];
    let command = std::path::Path::new(stdio["command"].as_str().unwrap());
    assert!(command.is_absolute() && command.exists(), "{admin}");
    let data_dir = std::path::absolute(sb.data_dir()).unwrap();
    assert_eq!(
        stdio["args"],
        serde_json::json!(["--data-dir", data_dir, "--user", "admin", "mcp", "--stdio"]),
        "{admin}"
    );
    assert_eq!(admin["unapproved"], "refuse", "{admin}");

    // A member is not told the paths of a machine they do not run.
    let added = sb.run(&["--json", "users", "add", "bob"]).ok().json();
    let bob = added["token"]["secret"].as_str().unwrap();
    let answer: Value = reqwest::Client::new()
        .get(format!("{}/api/mcp/connect", served.base))
        .bearer_auth(bob)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["stdio"], Value::Null, "{answer}");
    assert_eq!(answer["unapproved"], "refuse", "{answer}");
    assert!(terminate(&mut served).success());
}

//! `switchboard servers login NAME`: the authorization URL is printed, the browser
//! comes back to the command's loopback listener, and the tokens land in the store, where
//! `switchboard call` finds them; `servers logout` forgets them. Against the Python SDK's
//! authorization server (`peers/oauth_server.py`, approving at once).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::{BIN, Switchboard};
use switchboard_testkit::Peers;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_sign_in_is_used_by_the_other_commands() {
    let mut peer = Peers::locate().oauth_http(true, 3600).await.unwrap();
    let sb = Switchboard::new();
    sb.run(&["servers", "add", "notes", "--url", &peer.url(), "--oauth"])
        .ok();
    let before = sb.run(&["call", "notes", "whoami"]).failed();
    assert!(before.stderr.contains("sign in"), "{before:?}");

    let data_dir = sb.data_dir();
    let mut login = Command::new(BIN)
        .args([
            "--data-dir",
            data_dir.to_str().unwrap(),
            "servers",
            "login",
            "notes",
        ])
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(login.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().unwrap().unwrap();
        if line.starts_with("http") {
            break line;
        }
    };
    // The browser: the authorization server approves and sends it to the loopback listener.
    let redirect = url::Url::parse(&url)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .unwrap()
        .1
        .into_owned();
    assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
    let callback = switchboard_testkit::headless_sign_in::follow_to_callback(&url, &redirect)
        .await
        .unwrap();
    let mut back = url::Url::parse(&redirect).unwrap();
    back.query_pairs_mut()
        .append_pair("code", &callback.code)
        .append_pair("state", &callback.state);
    let page = reqwest::get(back.as_str()).await.unwrap();
    assert!(page.status().is_success());
    let status = login.wait().unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(status.success(), "{rest:?}");
    assert!(rest.iter().any(|l| l == "signed in to `notes`"), "{rest:?}");

    let called = sb.run(&["call", "notes", "whoami"]).ok();
    assert!(called.stdout.contains("signed in"), "{called:?}");

    sb.run(&["servers", "logout", "notes"]).ok();
    let after = sb.run(&["call", "notes", "whoami"]).failed();
    assert!(after.stderr.contains("sign in"), "{after:?}");
    peer.kill().await.unwrap();
}

#[test]
fn login_refuses_a_server_without_oauth() {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "plain",
        "--url",
        "https://example.com/mcp",
    ])
    .ok();
    let refused = sb.run(&["servers", "login", "plain"]).failed();
    assert!(refused.stderr.contains("does not use OAuth"), "{refused:?}");
}

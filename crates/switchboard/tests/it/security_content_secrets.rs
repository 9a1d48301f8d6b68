//! A server's secrets are cut out of its resources and prompts as out of its tool results,
//! wherever the server runs (inside `serve`, on a node) and whichever way they are read (the
//! REST API, the gateway's `/mcp`). The server is `plain_server.py`, which tells its secret
//! env value in a resource and a prompt.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::gateway::{initialize, mcp_request};
use common::node::{NodeLaunch, NodeProc, write_settings};
use common::rest::{create_server, send, stdio_body};
use common::serve::serve;
use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::Peers;

const SECRET: &str = "plain-secret-5e81c0d2";

fn body(name: &str, node: Option<&str>) -> Value {
    let mut body = stdio_body(name, &Peers::locate().plain_stdio(), node);
    body["env"]["PLAIN_SECRET"] = json!(SECRET);
    body["secret_env"] = json!(["PLAIN_SECRET"]);
    body
}

#[track_caller]
fn assert_masked(what: &str, answer: &Value) {
    let text = answer.to_string();
    assert!(!text.contains(SECRET), "{what} shows the secret: {text}");
    assert!(text.contains("***"), "{what} was not read: {text}");
}

#[tokio::test]
async fn resources_and_prompts_are_redacted_locally_on_a_node_and_through_the_gateway() {
    let node = NodeProc::start(NodeLaunch::plaintext("content-secrets-token"));
    let sb = Switchboard::new();
    write_settings(&sb.data_dir(), "", &[node.section("box", &sb.data_dir())]);
    let served = serve(&sb, &["--single-user"]);
    let local = create_server(&served, body("here", None)).await;
    let remote = create_server(&served, body("there", Some("box"))).await;

    for id in [&local, &remote] {
        let uri = "note://plain/secret";
        let (status, read) = send(
            &served,
            Method::GET,
            &format!(
                "/api/mcp-servers/{id}/resources/read?uri={}",
                uri.replace(':', "%3A").replace('/', "%2F")
            ),
            None,
        )
        .await;
        assert_eq!(status, 200, "{read}");
        assert_masked(&format!("{id}'s resource through the API"), &read);
        let (status, prompt) = send(
            &served,
            Method::POST,
            &format!("/api/mcp-servers/{id}/prompts/secret"),
            Some(json!({})),
        )
        .await;
        assert_eq!(status, 200, "{prompt}");
        assert_masked(&format!("{id}'s prompt through the API"), &prompt);
    }

    let url = format!("{}/mcp", served.base);
    let session = initialize(&url, None).await.session().unwrap();
    let ask = |id: u32, method: &'static str, params: Value| {
        let url = url.clone();
        let session = session.clone();
        async move {
            let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            mcp_request(Method::POST, &url, None, Some(&session), Some(body))
                .await
                .json()
        }
    };
    let listed = ask(1, "resources/list", json!({})).await;
    let secret_uris: Vec<String> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .filter(|uri| uri.ends_with("secret"))
        .map(str::to_owned)
        .collect();
    assert_eq!(secret_uris.len(), 2, "{listed}");
    for (n, uri) in secret_uris.iter().enumerate() {
        let read = ask(10 + n as u32, "resources/read", json!({"uri": uri})).await;
        assert!(read["result"].is_object(), "{read}");
        assert_masked(&format!("{uri} through /mcp"), &read);
    }
    for (n, name) in ["mcp__here__secret", "mcp__there__secret"]
        .iter()
        .enumerate()
    {
        let got = ask(20 + n as u32, "prompts/get", json!({"name": name})).await;
        assert!(got["result"].is_object(), "{got}");
        assert_masked(&format!("{name} through /mcp"), &got);
    }
}

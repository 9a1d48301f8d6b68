//! How a host and an MCP node trust each other: the shared token, TLS with a
//! certificate the host's `ca` vouches for, client certificates when the node asks for them;
//! and every mismatch refused: a wrong token, a wrong CA, `http://` to a TLS node, `https://`
//! to a plaintext one, no client certificate for an mTLS node, and a plaintext node on a
//! non-loopback address.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::Switchboard;
use common::certs::Certs;
use common::node::{NodeLaunch, NodeProc, NodeSection, write_settings};
use common::rest::{
    call_tool, create_server, demo_command, eventually, health, result_text, send, stdio_body,
};
use common::serve::{Served, serve, terminate};
use reqwest::Method;
use serde_json::{Value, json};

const TOKEN: &str = "node-token-for-tests";

/// Saves the demo server on `node` and calls its echo.
async fn call_on(served: &Served, node: &str) -> (reqwest::StatusCode, Value, String) {
    let id = create_server(
        served,
        stdio_body(
            &format!("on{}", node.replace('-', "")),
            &demo_command(),
            Some(node),
        ),
    )
    .await;
    let (status, body) = call_tool(served, &id, "echo", json!({"text": "hello"})).await;
    (status, body, id)
}

/// The state the host reports for `node` once it is no longer connecting.
async fn settled_state(served: &Served, node: &str) -> Value {
    eventually(&format!("node {node} settling"), || async move {
        let (_, nodes) = send(served, Method::GET, "/api/nodes", None).await;
        let entry = nodes
            .as_array()
            .and_then(|all| all.iter().find(|n| n["name"] == node))
            .cloned()
            .ok_or_else(|| nodes.to_string())?;
        if entry["state"] == "connecting" {
            Err(entry.to_string())
        } else {
            Ok(entry)
        }
    })
    .await
}

#[tokio::test]
async fn a_wrong_token_is_refused() {
    let node = NodeProc::start(NodeLaunch::plaintext(TOKEN));
    let sb = Switchboard::new();
    let section = NodeSection::new("box", &node.url, "not-the-token", &sb.data_dir());
    write_settings(&sb.data_dir(), "", &[section]);
    let mut served = serve(&sb, &["--single-user"]);

    let (status, body, id) = call_on(&served, "box").await;
    assert_eq!(body["code"], "MCP_UNREACHABLE", "{status} {body}");
    assert!(!body.to_string().contains(TOKEN));
    assert!(!body.to_string().contains("not-the-token"), "{body}");

    let entry = settled_state(&served, "box").await;
    assert_eq!(entry["state"], "down", "{entry}");
    let why = entry["lastError"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    assert!(why.contains("token"), "{entry}");
    let health = health(&served, &id).await;
    assert_eq!(health["status"], "error", "{health}");
    assert!(
        health["lastError"]
            .as_str()
            .unwrap_or_default()
            .to_lowercase()
            .contains("token"),
        "{health}"
    );
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn tls_with_the_right_ca_is_accepted_and_every_mismatch_refused() {
    let certs = Arc::new(Certs::new());
    let tls = NodeProc::start(NodeLaunch::tls(TOKEN, &certs));
    assert!(tls.url.starts_with("https://"), "{}", tls.url);
    let plain = NodeProc::start(NodeLaunch::plaintext(TOKEN));
    assert!(plain.url.starts_with("http://"), "{}", plain.url);
    let sb = Switchboard::new();
    let dir = sb.data_dir();
    let localhost = tls.url.replace("127.0.0.1", "localhost");
    write_settings(
        &dir,
        "",
        &[
            tls.section("secure", &dir),
            // The same node by name, which its certificate also covers.
            tls.section("secure-by-name", &dir).with_url(&localhost),
            tls.section("wrong-ca", &dir)
                .with_ca(Some(certs.other_ca.clone())),
            tls.section("http-to-tls", &dir)
                .with_url(&tls.url.replace("https://", "http://"))
                .with_ca(None),
            plain
                .section("https-to-plain", &dir)
                .with_url(&plain.url.replace("http://", "https://"))
                .with_ca(Some(certs.ca.clone())),
        ],
    );
    let mut served = serve(&sb, &["--single-user"]);

    for good in ["secure", "secure-by-name"] {
        let (status, body, _) = call_on(&served, good).await;
        assert_eq!(status, 200, "{good}: {body}");
        assert_eq!(result_text(&body), "hello");
        assert_eq!(settled_state(&served, good).await["state"], "up");
    }
    for bad in ["wrong-ca", "http-to-tls", "https-to-plain"] {
        let (status, body, id) = call_on(&served, bad).await;
        assert_eq!(body["code"], "MCP_UNREACHABLE", "{bad}: {status} {body}");
        assert_eq!(settled_state(&served, bad).await["state"], "down", "{bad}");
        let health = health(&served, &id).await;
        assert_eq!(health["status"], "error", "{bad}: {health}");
        assert!(
            health["lastError"].as_str().unwrap().contains(bad),
            "{health}"
        );
    }
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn an_mtls_node_wants_the_hosts_certificate() {
    let certs = Arc::new(Certs::new());
    let node = NodeProc::start(NodeLaunch::mtls(TOKEN, &certs));
    let sb = Switchboard::new();
    let dir = sb.data_dir();
    write_settings(
        &dir,
        "",
        &[
            node.section("with-cert", &dir).with_client(&certs),
            node.section("without-cert", &dir),
        ],
    );
    let mut served = serve(&sb, &["--single-user"]);

    let (status, body, _) = call_on(&served, "with-cert").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(result_text(&body), "hello");
    let (status, body, _) = call_on(&served, "without-cert").await;
    assert_eq!(body["code"], "MCP_UNREACHABLE", "{status} {body}");
    assert_eq!(
        settled_state(&served, "without-cert").await["state"],
        "down"
    );
    assert!(terminate(&mut served).success());
}

#[test]
fn a_plaintext_node_on_a_public_address_refuses_to_start() {
    let run = NodeLaunch::plaintext(TOKEN)
        .run_to_exit("0.0.0.0:0")
        .failed();
    assert!(
        run.stderr.contains("refusing to serve without TLS"),
        "{run:#?}"
    );
}

#[test]
fn a_node_without_a_token_refuses_to_start() {
    let run = NodeLaunch::plaintext("")
        .run_to_exit("127.0.0.1:0")
        .failed();
    assert!(run.stderr.to_lowercase().contains("token"), "{run:#?}");
}

//! The router reaching a node over TLS: the node's certificate checked against the `ca` of the
//! settings (and no other), a client certificate for a node that asks for one, and plaintext
//! to a TLS node refused. Needs the peers (`SWITCHBOARD_PEERS`).

use crate::router_support;

use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use router_support::*;
use serde_json::json;
use switchboard_grpc::{NodeConfig, Router, ServerTls};
use switchboard_mcp::{AdmitAll, CallOptions, McpError, NodeState, ToolBackend};
use switchboard_testkit::{Peers, PyGen};

/// A CA, the node's certificate for `127.0.0.1` signed by it, a host's client certificate
/// signed by it, and another CA that signed nothing.
struct Certs {
    ca: String,
    node: (String, String),
    client: (String, String),
    other_ca: String,
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    CertifiedIssuer::self_signed(params, KeyPair::generate().expect("key")).expect("a CA")
}

fn signed(
    ca: &CertifiedIssuer<'static, KeyPair>,
    names: &[&str],
    usage: ExtendedKeyUsagePurpose,
) -> (String, String) {
    let key = KeyPair::generate().expect("key");
    let names = names
        .iter()
        .map(|name| (*name).to_owned())
        .collect::<Vec<_>>();
    let mut params = CertificateParams::new(names).expect("params");
    params.extended_key_usages = vec![usage];
    let cert = params.signed_by(&key, ca).expect("signed");
    (cert.pem(), key.serialize_pem())
}

fn certs() -> Certs {
    let authority = ca("Switchboard router test CA");
    Certs {
        ca: authority.pem(),
        node: signed(
            &authority,
            &["localhost", "127.0.0.1"],
            ExtendedKeyUsagePurpose::ServerAuth,
        ),
        client: signed(&authority, &["host"], ExtendedKeyUsagePurpose::ClientAuth),
        other_ca: ca("Some other CA").pem(),
    }
}

fn node_tls(certs: &Certs, client_ca: bool) -> ServerTls {
    ServerTls {
        cert_pem: certs.node.0.clone().into_bytes(),
        key_pem: certs.node.1.clone().into_bytes(),
        client_ca_pem: client_ca.then(|| certs.ca.clone().into_bytes()),
    }
}

fn https(port: u16, ca: &str) -> NodeConfig {
    NodeConfig {
        url: format!("https://127.0.0.1:{port}"),
        ca_pem: Some(ca.as_bytes().to_vec()),
        ..loopback_node("box", port)
    }
}

/// Calls echo on a python server on the node `box` of a router made of `config`.
async fn echo_through(config: NodeConfig) -> (Router, Result<String, McpError>) {
    let router = Router::new(local(), vec![config], Arc::new(AdmitAll)).expect("router");
    let spec = on_node(
        stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1)),
        "box",
    );
    let called = router
        .call(
            &owner(),
            &spec,
            "echo",
            args(json!({"text": "sealed"})),
            CallOptions::default(),
        )
        .await
        .map(|result| text(&result));
    (router, called)
}

#[tokio::test(flavor = "multi_thread")]
async fn tls_with_the_settings_ca_and_nothing_else() {
    let certs = certs();
    let node = TestNode::start_with(0, Some(node_tls(&certs, false))).await;

    let (router, called) = echo_through(https(node.port(), &certs.ca)).await;
    assert!(called.expect("over TLS").contains("sealed"));
    wait_for_state(&router, "box", NodeState::Up).await;

    let (router, called) = echo_through(https(node.port(), &certs.other_ca)).await;
    let error = called.expect_err("a certificate the CA did not sign");
    assert!(
        matches!(error, McpError::NodeUnreachable { .. }),
        "{error:?}"
    );
    wait_for_state(&router, "box", NodeState::Down).await;

    let (_, called) = echo_through(loopback_node("box", node.port())).await;
    let error = called.expect_err("plaintext to a TLS node");
    // Refused either way. Usually the TLS node's answer is read as "not HTTP/2" (never
    // delivered, unreachable); but when the node closes first, hyper reports only a broken
    // pipe while writing the call's stream, which cannot prove the call never started (a node
    // dying mid-call looks the same), so it is lost after sending: safe, never re-sent.
    assert!(
        matches!(
            error,
            McpError::NodeUnreachable { .. } | McpError::LostAfterSend { .. }
        ),
        "{error:?}"
    );
    node.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_that_asks_for_a_client_certificate_gets_the_configured_one() {
    let certs = certs();
    let node = TestNode::start_with(0, Some(node_tls(&certs, true))).await;

    let (router, called) = echo_through(https(node.port(), &certs.ca)).await;
    let error = called.expect_err("no client certificate");
    // TLS 1.3: the client's handshake is complete before the node refuses its missing
    // certificate, so the request may be written first and only meet a broken pipe, which
    // cannot be told from a call lost after it was sent. The node's fatal alert, when it is
    // read first, says the call never reached the node.
    assert!(
        matches!(
            error,
            McpError::NodeUnreachable { .. } | McpError::LostAfterSend { .. }
        ),
        "{error:?}"
    );
    wait_for_state(&router, "box", NodeState::Down).await;

    let with_identity = NodeConfig {
        client_identity: Some((
            certs.client.0.clone().into_bytes(),
            certs.client.1.clone().into_bytes(),
        )),
        ..https(node.port(), &certs.ca)
    };
    let (_, called) = echo_through(with_identity).await;
    assert!(called.expect("mTLS").contains("sealed"));
    node.kill().await;
}

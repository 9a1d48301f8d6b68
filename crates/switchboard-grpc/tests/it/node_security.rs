//! What a node refuses: a wrong or missing token, plaintext off loopback, a plaintext host
//! at a TLS node, a host without a client certificate when mTLS is on, and a member's stdio
//! server that does not fit the node's own launch templates.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use serde_json::json;
use switchboard_core::{LaunchRules, ServerSpec};
use switchboard_grpc::pb::{self, call_tool_event::Event, mcp_node_client::McpNodeClient};
use switchboard_grpc::{Node, NodeError, NodeOptions, ServerTls};
use switchboard_testkit::Peers;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};

#[tokio::test]
async fn a_wrong_or_missing_token_is_refused_without_echoing_it() {
    let node = start(options()).await;
    for token in [Some("not-the-token"), Some(""), None] {
        let mut host = client_with(node.address, token).await;
        let refused = host.health(pb::HealthRequest {}).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::Unauthenticated);
        assert_eq!(refused.message(), "the node token is missing or wrong");
        let refused = host
            .get_tools(pb::GetToolsRequest {
                server: Some(server_ref(&py1())),
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), tonic::Code::Unauthenticated);
    }
    // Nothing was started for the refused requests.
    assert_eq!(node.manager.process_count(), 0);
    let mut host = client(node.address).await;
    assert!(host.health(pb::HealthRequest {}).await.is_ok());
    node.stop().await.unwrap();
}

#[tokio::test]
async fn plaintext_off_loopback_needs_allow_plaintext_and_a_token_is_required() {
    let everywhere = NodeOptions {
        listen: "0.0.0.0:0".parse().unwrap(),
        ..options()
    };
    match Node::bind(everywhere).await {
        Err(NodeError::PlaintextRefused(address)) => assert!(address.ip().is_unspecified()),
        other => panic!("expected PlaintextRefused, got {:?}", other.err()),
    }
    let allowed = NodeOptions {
        listen: "0.0.0.0:0".parse().unwrap(),
        allow_plaintext: true,
        ..options()
    };
    let node = Node::bind(allowed).await.unwrap();
    assert_ne!(node.local_addr().port(), 0);
    drop(node);
    for token in ["", "  \n"] {
        let empty = NodeOptions {
            token: token.into(),
            ..options()
        };
        assert!(matches!(Node::bind(empty).await, Err(NodeError::NoToken)));
    }
}

/// A CA, the node's certificate for `localhost` signed by it, and a host's client certificate.
struct Pki {
    ca: String,
    node_cert: String,
    node_key: String,
    host_cert: String,
    host_key: String,
}

fn pki() -> Pki {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name
        .push(DnType::CommonName, "node test CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let leaf = |names: Vec<String>, usage| {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(names).unwrap();
        params.extended_key_usages = vec![usage];
        let cert = params.signed_by(&key, &ca).unwrap();
        (cert.pem(), key.serialize_pem())
    };
    let (node_cert, node_key) = leaf(
        vec!["localhost".into(), "127.0.0.1".into()],
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let (host_cert, host_key) = leaf(vec!["host".into()], ExtendedKeyUsagePurpose::ClientAuth);
    Pki {
        ca: ca.pem(),
        node_cert,
        node_key,
        host_cert,
        host_key,
    }
}

fn tls_options(pki: &Pki, mtls: bool) -> NodeOptions {
    NodeOptions {
        tls: Some(ServerTls {
            cert_pem: pki.node_cert.clone().into_bytes(),
            key_pem: pki.node_key.clone().into_bytes(),
            client_ca_pem: mtls.then(|| pki.ca.clone().into_bytes()),
        }),
        ..options()
    }
}

/// A TLS client trusting `pki`'s CA, with the host's certificate when `present_cert`.
async fn tls_client(
    pki: &Pki,
    address: std::net::SocketAddr,
    present_cert: bool,
) -> Result<Client, tonic::transport::Error> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&pki.ca))
        .domain_name("localhost");
    if present_cert {
        tls = tls.identity(Identity::from_pem(&pki.host_cert, &pki.host_key));
    }
    let channel = Endpoint::from_shared(format!("https://localhost:{}", address.port()))
        .unwrap()
        .tls_config(tls)?
        .connect()
        .await?;
    Ok(McpNodeClient::with_interceptor(
        channel,
        bearer(Some(TOKEN)),
    ))
}

#[tokio::test]
async fn a_tls_node_serves_a_host_that_trusts_its_ca_and_refuses_plaintext() {
    let pki = pki();
    let node = start(tls_options(&pki, false)).await;
    let mut host = tls_client(&pki, node.address, false).await.unwrap();
    let echoed = call(
        &mut host,
        server_ref(&py1()),
        "echo",
        json!({"text": "over tls"}),
    )
    .await;
    assert!(result_text(&echoed).contains("over tls"));

    // A plaintext host does not get an answer from a TLS node.
    let plaintext = Endpoint::from_shared(format!("http://{}", node.address))
        .unwrap()
        .connect()
        .await;
    if let Ok(channel) = plaintext {
        let mut host = McpNodeClient::with_interceptor(channel, bearer(Some(TOKEN)));
        let refused = tokio::time::timeout(PATIENCE, host.health(pb::HealthRequest {}))
            .await
            .expect("the plaintext request fails in time");
        assert!(
            refused.is_err(),
            "a plaintext host was answered by a TLS node"
        );
    }
    node.stop().await.unwrap();
}

#[tokio::test]
async fn an_mtls_node_refuses_a_host_without_a_client_certificate() {
    let pki = pki();
    let node = start(tls_options(&pki, true)).await;
    let without = match tls_client(&pki, node.address, false).await {
        Ok(mut host) => host.health(pb::HealthRequest {}).await.is_err(),
        Err(_) => true,
    };
    assert!(without, "a host without a client certificate was answered");
    let mut host = tls_client(&pki, node.address, true).await.unwrap();
    let health = host
        .health(pb::HealthRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.version, env!("CARGO_PKG_VERSION"));
    node.stop().await.unwrap();
}

#[tokio::test]
async fn an_unreadable_certificate_fails_at_bind() {
    let options = NodeOptions {
        tls: Some(ServerTls {
            cert_pem: b"not a certificate".to_vec(),
            key_pem: b"not a key".to_vec(),
            client_ca_pem: None,
        }),
        ..options()
    };
    assert!(matches!(Node::bind(options).await, Err(NodeError::Tls(_))));
}

#[tokio::test]
async fn a_members_server_must_fit_the_nodes_launch_templates() {
    let everything = Peers::locate().everything_stdio();
    let template = format!("{} {}", everything.program, everything.args.join(" "));
    let node = start(NodeOptions {
        launch: LaunchRules::parse_all(&[template]).unwrap(),
        ..options()
    })
    .await;
    let mut host = client(node.address).await;
    let alice = owner();
    let member = |spec: &ServerSpec| server_ref_for(&alice, spec, false);

    // Outside the node's templates: refused even though the host sent it.
    let outside = host
        .get_tools(pb::GetToolsRequest {
            server: Some(member(&py1())),
        })
        .await
        .unwrap()
        .into_inner();
    match outside.outcome.unwrap() {
        pb::get_tools_response::Outcome::Error(error) => {
            assert_eq!(error.code, "LAUNCH_NOT_ALLOWED", "{error:?}");
        }
        other => panic!("expected LAUNCH_NOT_ALLOWED, got {other:?}"),
    }
    let error = error_of(call(&mut host, member(&py1()), "echo", json!({"text": "x"})).await);
    assert_eq!(error.code, "LAUNCH_NOT_ALLOWED");
    assert_eq!(node.manager.process_count(), 0);

    // Inside them: a member's server runs.
    let fits = stdio_spec("everything", &everything);
    let echoed = call(
        &mut host,
        member(&fits),
        "echo",
        json!({"message": "member"}),
    )
    .await;
    assert!(result_text(&echoed).contains("member"));

    // An admin's (any_command) server runs whatever the templates say.
    let mut admin = server_ref(&py1());
    admin.owner = "root".into();
    let echoed = call(&mut host, admin, "echo", json!({"text": "admin"})).await;
    assert!(result_text(&echoed).contains("admin"));
    node.stop().await.unwrap();
}

/// Each request is judged by the admission it carries: while an admin's call on one version of
/// a server is in flight, a member's request for another version of the same (owner, server)
/// outside the node's templates is refused (an admission is never inherited from another
/// request).
#[tokio::test]
async fn a_members_request_is_refused_while_an_admins_runs_for_the_same_server() {
    let everything = Peers::locate().everything_stdio();
    let template = format!("{} {}", everything.program, everything.args.join(" "));
    let node = start(NodeOptions {
        launch: LaunchRules::parse_all(&[template]).unwrap(),
        ..options()
    })
    .await;
    let mut host = client(node.address).await;
    let mut member_host = client(node.address).await;
    let alice = owner();
    let admins = py1();
    let mut members = admins.clone();
    members
        .env
        .insert("SWITCHBOARD_TEST_VARIANT".into(), "member".into());
    assert_eq!(members.id, admins.id, "the same server");

    let long = json!({"steps": 1000, "step_ms": 50});
    let admin_ref = server_ref_for(&alice, &admins, true);
    let mut in_flight =
        OpenCall::open(&mut host, start_message(admin_ref, "long_task", long)).await;
    assert!(matches!(in_flight.next().await, Some(Event::Progress(_))));

    let refused = member_host
        .get_tools(pb::GetToolsRequest {
            server: Some(server_ref_for(&alice, &members, false)),
        })
        .await
        .unwrap()
        .into_inner();
    match refused.outcome.unwrap() {
        pb::get_tools_response::Outcome::Error(error) => {
            assert_eq!(error.code, "LAUNCH_NOT_ALLOWED", "{error:?}");
        }
        other => panic!("a member's py1 ran: {other:?}"),
    }
    drop(in_flight);
    node.stop().await.unwrap();
}

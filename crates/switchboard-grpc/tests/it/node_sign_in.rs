//! `FetchForSignIn`: a host's OAuth flow for a server on the node sends its HTTP requests from
//! the node, under the request's admission. A member's request to a loopback address is
//! refused by the node's destination guard, as the server's own connection would be; an
//! admin's reaches it; a server without OAuth sign-in has no flow to send requests for.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use switchboard_core::{Auth, ServerSpec};
use switchboard_grpc::pb::{self, sign_in_fetch_reply::Outcome};

use crate::common::{client, options, owner, server_ref_for, start};

fn oauth_spec(url: &str) -> ServerSpec {
    ServerSpec {
        auth: Auth::OAuth {
            client_id: None,
            client_secret: None,
            scopes: Vec::new(),
        },
        ..ServerSpec::http("notes", url, None)
    }
}

fn fetch(server: pb::ServerRef, url: &str) -> pb::SignInFetch {
    pb::SignInFetch {
        server: Some(server),
        method: "GET".into(),
        url: url.into(),
        ..pb::SignInFetch::default()
    }
}

/// A one-answer HTTP server on loopback: its address, and the task that answers once.
async fn metadata_server() -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = axum::Router::new().route(
        "/.well-known/oauth-protected-resource/mcp",
        axum::routing::get(|| async { axum::Json(serde_json::json!({"resource": "notes"})) }),
    );
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (base, task)
}

#[tokio::test]
async fn a_sign_in_request_follows_the_admission_of_the_person_it_is_for() {
    let node = start(options()).await;
    let mut rpc = client(node.address).await;
    let (base, server) = metadata_server().await;
    let spec = oauth_spec(&format!("{base}/mcp"));
    let url = format!("{base}/.well-known/oauth-protected-resource/mcp");

    // A member's request may not reach a loopback address from the node.
    let member = server_ref_for(&owner(), &spec, false);
    let reply = rpc
        .fetch_for_sign_in(fetch(member, &url))
        .await
        .unwrap()
        .into_inner();
    match reply.outcome {
        Some(Outcome::Error(error)) => {
            assert_eq!(error.code, "DESTINATION_NOT_ALLOWED", "{error:?}");
        }
        other => panic!("a member reached loopback: {other:?}"),
    }

    // An admin's does, and gets the answer as it came.
    let admin = server_ref_for(&owner(), &spec, true);
    let reply = rpc
        .fetch_for_sign_in(fetch(admin.clone(), &url))
        .await
        .unwrap()
        .into_inner();
    let Some(Outcome::Answer(answer)) = reply.outcome else {
        panic!("no answer: {:?}", reply.outcome);
    };
    assert_eq!(answer.status, 200);
    let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
    assert_eq!(body["resource"], "notes");

    // Only for a server with OAuth sign-in, and only to an http(s) URL.
    let plain = server_ref_for(
        &owner(),
        &ServerSpec::http("plain", format!("{base}/mcp"), None),
        true,
    );
    let reply = rpc
        .fetch_for_sign_in(fetch(plain, &url))
        .await
        .unwrap()
        .into_inner();
    assert!(
        matches!(&reply.outcome, Some(Outcome::Error(error)) if error.code == "MCP_AUTH_FAILED"),
        "{reply:?}"
    );
    let refused = rpc
        .fetch_for_sign_in(fetch(admin, "file:///etc/passwd"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);

    server.abort();
    node.stop().await.unwrap();
}

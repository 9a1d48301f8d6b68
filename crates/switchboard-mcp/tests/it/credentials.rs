//! Credentials and custom headers reach Streamable HTTP servers, and a refusal is reported as
//! an authentication failure.

use crate::common;

use common::{manager, owner};
use switchboard_core::{Auth, ErrorCode, ServerSpec, TransportKind};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Answers the first request with 401 and hands back the request head it saw.
async fn refusing_server() -> (String, tokio::task::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let seen = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = socket.read(&mut buf).await.expect("read");
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        let body = "unauthorized";
        let response = format!(
            "HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(response.as_bytes()).await.expect("write");
        String::from_utf8_lossy(&head).to_ascii_lowercase()
    });
    (url, seen)
}

async fn refused(spec: ServerSpec, seen: tokio::task::JoinHandle<String>) -> String {
    let m = manager();
    let error = m.list_tools(&owner(), &spec).await.expect_err("refused");
    assert_eq!(error.code(), ErrorCode::McpAuthFailed, "{error:?}");
    assert!(
        !format!("{error} {error:?}").contains("s3cret"),
        "no secret in the error"
    );
    seen.await.expect("request seen")
}

#[tokio::test]
async fn bearer_token_and_headers_are_sent() {
    let (url, seen) = refusing_server().await;
    let spec = ServerSpec::http("remote", &url, Some(TransportKind::StreamableHttp))
        .with_auth(Auth::Bearer {
            token: "s3cret-token".into(),
        })
        .with_header("X-Team", "ops");
    let head = refused(spec, seen).await;
    assert!(
        head.contains("authorization: bearer s3cret-token"),
        "{head}"
    );
    assert!(head.contains("x-team: ops"), "{head}");
}

#[tokio::test]
async fn api_key_goes_in_its_header() {
    let (url, seen) = refusing_server().await;
    let spec = ServerSpec::http("remote", &url, Some(TransportKind::StreamableHttp)).with_auth(
        Auth::ApiKey {
            header: "X-Api-Key".into(),
            key: "s3cret-key".into(),
        },
    );
    let head = refused(spec, seen).await;
    assert!(head.contains("x-api-key: s3cret-key"), "{head}");
    assert!(!head.contains("authorization:"), "{head}");
}

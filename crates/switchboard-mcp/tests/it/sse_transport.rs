//! The legacy HTTP+SSE transport (2024-11-05) end to end: a full rmcp session against the pinned
//! reference server, and the error and lifecycle cases against scripted local responders that
//! answer exactly what each case needs.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup step should fail the test"
)]

use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig, ClientJsonRpcMessage, ProtocolVersion};
use rmcp::transport::Transport;
use switchboard_mcp::transport::sse::{
    EndpointError, SseClientConfig, SseClientTransport, SseTransportError,
};
use switchboard_testkit::{EverythingHttp, Peers};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};

/// An upper bound for things that should happen at once, so a bug fails instead of hanging.
const PROMPTLY: Duration = Duration::from_secs(20);

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
const ENDPOINT_EVENT: &str = "event: endpoint\ndata: /message?sessionId=abc\n\n";

#[tokio::test]
async fn full_session_with_the_reference_server() {
    let server = Peers::locate()
        .everything_http(EverythingHttp::Sse)
        .await
        .unwrap();
    let transport =
        SseClientTransport::connect(reqwest::Client::new(), SseClientConfig::new(server.url()))
            .await
            .unwrap();
    let client = ClientConfig::default()
        .with_protocol_version(ProtocolVersion::V_2024_11_05)
        .serve(transport)
        .await
        .unwrap();
    let info = client.peer_info().unwrap();
    assert_eq!(info.protocol_version, ProtocolVersion::V_2024_11_05);

    let tools = client.list_all_tools().await.unwrap();
    let echo = tools.iter().find(|tool| tool.name == "echo").unwrap();
    assert!(echo.input_schema["properties"].get("message").is_some());

    // rmcp sends concurrently: several POSTs in flight, answers matched by id on the stream.
    let calls = (0..5).map(|i| {
        let args = serde_json::json!({ "message": format!("hello {i}") });
        let params =
            CallToolRequestParams::new("echo").with_arguments(args.as_object().unwrap().clone());
        client.call_tool(params)
    });
    let results = futures::future::try_join_all(calls).await.unwrap();
    for (i, result) in results.iter().enumerate() {
        assert_eq!(
            result.content[0].as_text().unwrap().text,
            format!("Echo: hello {i}")
        );
    }
    client.cancel().await.unwrap();
}

/// One request as a scripted responder sees it.
struct Request {
    head: String,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

async fn accept(listener: &TcpListener) -> (BufReader<TcpStream>, Request) {
    let mut conn = BufReader::new(listener.accept().await.unwrap().0);
    let mut head = String::new();
    while conn.read_line(&mut head).await.unwrap() > 2 {}
    let mut request = Request {
        head,
        body: Vec::new(),
    };
    let length = request
        .header("content-length")
        .map_or(0, |v| v.parse().unwrap());
    request.body.resize(length, 0);
    conn.read_exact(&mut request.body).await.unwrap();
    (conn, request)
}

async fn listen() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/sse", listener.local_addr().unwrap());
    (listener, url)
}

/// Answers one request with `response`, then holds the connection until the client lets go.
async fn serve_once(response: String) -> String {
    let (listener, url) = listen().await;
    tokio::spawn(async move {
        let (mut conn, _) = accept(&listener).await;
        conn.write_all(response.as_bytes()).await.unwrap();
        let _ = conn.read_to_end(&mut Vec::new()).await;
    });
    url
}

async fn connect_to(url: &str, timeout: Duration) -> Result<SseClientTransport, SseTransportError> {
    let mut config = SseClientConfig::new(url);
    config.connect_timeout = timeout;
    SseClientTransport::connect(reqwest::Client::new(), config).await
}

#[tokio::test]
async fn refused_credentials_are_unauthorized() {
    for (status, reason) in [(401, "Unauthorized"), (403, "Forbidden")] {
        let url = serve_once(format!(
            "HTTP/1.1 {status} {reason}\r\nwww-authenticate: Bearer realm=\"mcp\"\r\n\
             content-length: 0\r\n\r\n"
        ))
        .await;
        let error = connect_to(&url, PROMPTLY).await.unwrap_err();
        let SseTransportError::Unauthorized {
            status: got,
            www_authenticate,
        } = error
        else {
            panic!("{status} gave {error:?}");
        };
        assert_eq!(got.as_u16(), status);
        assert_eq!(www_authenticate.as_deref(), Some("Bearer realm=\"mcp\""));
    }
}

#[tokio::test]
async fn a_stream_that_never_sends_the_endpoint_times_out_as_no_endpoint() {
    let url = serve_once(format!(
        "{SSE_HEAD}: keep-alive\n\nevent: ping\ndata: 1\n\n"
    ))
    .await;
    let started = Instant::now();
    let error = connect_to(&url, Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(matches!(error, SseTransportError::NoEndpoint), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_stream_that_ends_before_the_endpoint_is_no_endpoint() {
    let (listener, url) = listen().await;
    tokio::spawn(async move {
        let (mut conn, _) = accept(&listener).await;
        conn.write_all(format!("{SSE_HEAD}: bye\n\n").as_bytes())
            .await
            .unwrap();
    });
    let error = connect_to(&url, PROMPTLY).await.unwrap_err();
    assert!(matches!(error, SseTransportError::NoEndpoint), "{error:?}");
}

#[tokio::test]
async fn unusable_answers_are_reported_as_such() {
    let url = serve_once(format!(
        "{SSE_HEAD}event: endpoint\ndata: http://evil.example/m\n\n"
    ))
    .await;
    let error = connect_to(&url, PROMPTLY).await.unwrap_err();
    assert!(
        matches!(
            &error,
            SseTransportError::BadEndpoint {
                reason: EndpointError::CrossOrigin { .. },
                ..
            }
        ),
        "{error:?}"
    );

    let html = "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 2\r\n\r\nhi";
    let error = connect_to(&serve_once(html.to_owned()).await, PROMPTLY)
        .await
        .unwrap_err();
    assert!(
        matches!(error, SseTransportError::NotEventStream { .. }),
        "{error:?}"
    );

    let missing = "HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\n\r\nno such\n\n";
    let error = connect_to(&serve_once(missing.to_owned()).await, PROMPTLY)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, SseTransportError::Http { status } if status.as_u16() == 404),
        "{error:?}"
    );
    // The body of whatever answered is not quoted back.
    assert!(!error.to_string().contains("no such"), "{error}");
}

fn ping(id: u32) -> ClientJsonRpcMessage {
    serde_json::from_value(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
        .unwrap()
}

#[tokio::test]
async fn scripted_session_posts_with_headers_and_receives_until_the_stream_ends() {
    let (listener, url) = listen().await;
    let (seen_tx, mut seen) = mpsc::unbounded_channel();
    let (end_stream, end_rx) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let (mut sse, get) = accept(&listener).await;
        seen_tx.send(get).unwrap();
        sse.write_all(format!("{SSE_HEAD}{ENDPOINT_EVENT}").as_bytes())
            .await
            .unwrap();

        // `connection: close`, so that each POST comes on a connection of its own.
        let (mut post, request) = accept(&listener).await;
        seen_tx.send(request).unwrap();
        let accepted =
            "HTTP/1.1 202 Accepted\r\nconnection: close\r\ncontent-length: 8\r\n\r\nAccepted";
        post.write_all(accepted.as_bytes()).await.unwrap();
        drop(post);
        let answer = "data: not json\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        sse.write_all(answer.as_bytes()).await.unwrap();

        let (mut post, _) = accept(&listener).await;
        let failed = "HTTP/1.1 500 Oops\r\nconnection: close\r\ncontent-length: 4\r\n\r\nboom";
        post.write_all(failed.as_bytes()).await.unwrap();
        end_rx.await.unwrap();
        // Dropping `sse` ends the stream.
    });

    let mut config = SseClientConfig::new(&url);
    config.headers.insert("x-api-key", "k1".parse().unwrap());
    let mut transport = SseClientTransport::connect(reqwest::Client::new(), config)
        .await
        .unwrap();
    let get = seen.recv().await.unwrap();
    assert!(get.head.starts_with("GET /sse "));
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("x-api-key"), Some("k1"));

    transport.send(ping(1)).await.unwrap();
    let post = seen.recv().await.unwrap();
    assert!(
        post.head.starts_with("POST /message?sessionId=abc "),
        "{}",
        post.head
    );
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert_eq!(post.header("x-api-key"), Some("k1"));
    let body: serde_json::Value = serde_json::from_slice(&post.body).unwrap();
    assert_eq!(body["method"], "ping");

    let answer = transport.receive().await.unwrap(); // the garbage event before it is skipped
    assert_eq!(serde_json::to_value(answer).unwrap()["id"], 1);

    let error = transport.send(ping(2)).await.unwrap_err();
    assert!(
        matches!(&error, SseTransportError::Http { status } if status.as_u16() == 500),
        "{error:?}"
    );
    assert!(!error.to_string().contains("boom"), "{error}");

    end_stream.send(()).unwrap();
    assert!(
        transport.receive().await.is_none(),
        "the server ended the stream"
    );
    let error = transport.send(ping(3)).await.unwrap_err();
    assert!(
        matches!(error, SseTransportError::StreamClosed),
        "{error:?}"
    );
    server.await.unwrap();
}

#[tokio::test]
async fn closing_or_dropping_the_transport_hangs_up_the_stream() {
    for close in [true, false] {
        let (listener, url) = listen().await;
        let (hung_up, hung_up_rx) = oneshot::channel();
        tokio::spawn(async move {
            let (mut sse, _) = accept(&listener).await;
            sse.write_all(format!("{SSE_HEAD}{ENDPOINT_EVENT}").as_bytes())
                .await
                .unwrap();
            let _ = sse.read_to_end(&mut Vec::new()).await; // returns when the client hangs up
            let _ = hung_up.send(());
        });
        let mut transport = connect_to(&url, PROMPTLY).await.unwrap();
        if close {
            Transport::<rmcp::RoleClient>::close(&mut transport)
                .await
                .unwrap();
            let error = transport.send(ping(1)).await.unwrap_err();
            assert!(
                matches!(error, SseTransportError::StreamClosed),
                "{error:?}"
            );
        } else {
            drop(transport);
        }
        let hung_up = tokio::time::timeout(PROMPTLY, hung_up_rx).await;
        assert!(
            matches!(hung_up, Ok(Ok(()))),
            "close={close}: the connection stayed open"
        );
    }
}

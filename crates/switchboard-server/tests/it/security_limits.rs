//! Quotas and limits, against the real router on a real socket served by
//! `switchboard_server::serve`: per-user quotas on stored things (403 `QUOTA_EXCEEDED`),
//! open event streams and runs at once (429 `RATE_LIMITED`), failed authentications and
//! write bursts (429 with `Retry-After`), header read timeouts and the connection cap.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::{Api, assert_error, start_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_app::limits::Limits;
use switchboard_testkit::{ScriptedLlm, Turn};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Far longer than any limit under test: only a hang reaches it.
const PATIENCE: Duration = Duration::from_secs(20);

async fn start_limited(limits: Limits) -> Api {
    start_with(common::Config {
        limits,
        // The scripted model and the servers these tests save are on loopback.
        rules: switchboard_app::Rules {
            destinations: switchboard_core::DestinationRules::parse(["127.0.0.0/8"]).unwrap(),
            ..Default::default()
        },
        ..common::Config::default()
    })
    .await
}

fn http_server(name: &str) -> Value {
    json!({"name": name, "transport": "streamable_http", "url": "http://127.0.0.1:9/mcp"})
}

fn assert_retry_after(response: &reqwest::Response) {
    let seconds: u64 = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("a Retry-After header in whole seconds");
    assert!(seconds >= 1, "{seconds}");
}

async fn error_of(response: reqwest::Response, expected: StatusCode, code: &str) {
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_error(status, &body, expected, code);
}

#[tokio::test]
async fn an_import_of_19998_servers_stops_at_the_quota() {
    let api = start_limited(Limits::default()).await;
    let quota = Limits::default().max_servers as usize;
    let servers: serde_json::Map<String, Value> = (0..19_998)
        .map(|i| (format!("s{i}"), json!({"url": "http://127.0.0.1:9/mcp"})))
        .collect();
    let text = json!({ "mcpServers": servers }).to_string();
    let (status, report) = api
        .send(
            Method::POST,
            "/api/import/mcp-servers",
            Some(&api.member),
            Some(json!({ "text": text })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{}", &report.to_string()[..200]);
    assert_eq!(report["imported"].as_array().unwrap().len(), quota);
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 19_998 - quota);
    assert!(skipped.iter().all(|s| s["code"] == "QUOTA_EXCEEDED"));
    let (_, listed) = api
        .send(Method::GET, "/api/mcp-servers", Some(&api.member), None)
        .await;
    assert_eq!(listed.as_array().unwrap().len(), quota);
}

#[tokio::test]
async fn creating_past_a_quota_is_refused_with_403() {
    let api = start_limited(Limits {
        max_servers: 2,
        max_providers: 1,
        max_assistants: 1,
        ..Limits::default()
    })
    .await;
    let member = Some(api.member.as_str());
    for name in ["a", "b"] {
        let (status, body) = api
            .send(
                Method::POST,
                "/api/mcp-servers",
                member,
                Some(http_server(name)),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            member,
            Some(http_server("c")),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED");
    // Admins are under the same quota.
    for name in ["a", "b"] {
        let (status, _) = api
            .send(
                Method::POST,
                "/api/mcp-servers",
                Some(&api.admin),
                Some(http_server(name)),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(http_server("c")),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED");

    let provider = |name: &str| {
        json!({"name": name, "kind": "openai", "baseUrl": "http://127.0.0.1:9/v1",
               "apiKey": "sk-x", "defaultModel": "m"})
    };
    let (status, _) = api
        .send(Method::POST, "/api/providers", member, Some(provider("p1")))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, body) = api
        .send(Method::POST, "/api/providers", member, Some(provider("p2")))
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED");

    let (status, _) = api
        .send(
            Method::POST,
            "/api/assistants",
            member,
            Some(json!({"name": "one"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, body) = api
        .send(
            Method::POST,
            "/api/assistants",
            member,
            Some(json!({"name": "two"})),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED");
}

#[tokio::test]
async fn event_streams_past_the_limit_are_refused_and_given_back() {
    let api = start_limited(Limits {
        max_event_streams: 2,
        ..Limits::default()
    })
    .await;
    let open = || {
        api.client
            .get(format!("{}/api/events", api.base))
            .bearer_auth(&api.member)
            .send()
    };
    let first = open().await.unwrap();
    let second = open().await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(second.status(), StatusCode::OK);
    let third = open().await.unwrap();
    assert_retry_after(&third);
    error_of(third, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    // Another user has their own streams.
    let admin = api
        .client
        .get(format!("{}/api/events", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(admin.status(), StatusCode::OK);
    // Closing one gives its slot back (once the server sees the connection close).
    drop(first);
    let mut reopened = None;
    for _ in 0..2_000 {
        let response = open().await.unwrap();
        if response.status() == StatusCode::OK {
            reopened = Some(response);
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(reopened.is_some(), "the closed stream's slot came back");
}

/// The member's assistant answering with `llm`.
async fn members_assistant(api: &Api, llm: &ScriptedLlm) -> Value {
    let member = Some(api.member.as_str());
    let (status, provider) = api
        .send(
            Method::POST,
            "/api/providers",
            member,
            Some(
                json!({"name": "scripted", "kind": "openai", "baseUrl": llm.openai_base_url(),
                        "apiKey": "sk-test", "defaultModel": "scripted-model"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    let (status, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            member,
            Some(json!({"name": "Helper", "providerId": provider["id"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    assistant
}

/// A person keeps at most `max_messages` messages: past it a new turn is refused with 403
/// `QUOTA_EXCEEDED` before anything is stored, and deleting a conversation frees room.
#[tokio::test]
async fn the_messages_a_person_keeps_are_capped() {
    let api = start_limited(Limits {
        max_messages: 2,
        ..Limits::default()
    })
    .await;
    let llm = ScriptedLlm::start(vec![Turn::text("one"), Turn::text("two")]).await;
    let member = Some(api.member.as_str());
    let assistant = members_assistant(&api, &llm).await;
    let new_conversation = || async {
        let (status, conversation) = api
            .send(
                Method::POST,
                "/api/conversations",
                member,
                Some(json!({"title": "t", "assistantId": assistant["id"]})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{conversation}");
        conversation["id"].as_str().unwrap().to_owned()
    };
    // Streamed, so the answer has ended (and is stored) when the response has.
    let send = |id: String| {
        api.client
            .post(format!("{}/api/conversations/{id}/messages", api.base))
            .bearer_auth(&api.member)
            .header("accept", "text/event-stream")
            .json(&json!({"content": "hi"}))
            .send()
    };
    // The question and its answer: two messages, the quota.
    let first = new_conversation().await;
    let answered = send(first.clone()).await.unwrap();
    assert!(answered.status().is_success(), "{}", answered.status());
    let events = answered.text().await.unwrap();
    assert!(events.contains("message.completed"), "{events}");
    let second = new_conversation().await;
    let refused = send(second.clone()).await.unwrap();
    error_of(refused, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED").await;
    let (_, messages) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{second}/messages"),
            member,
            None,
        )
        .await;
    assert_eq!(messages, json!([]), "nothing stored");
    // Deleting the first conversation gives its messages back.
    let (status, _) = api
        .send(
            Method::DELETE,
            &format!("/api/conversations/{first}"),
            member,
            None,
        )
        .await;
    assert!(status.is_success(), "{status}");
    let again = send(second).await.unwrap();
    assert!(again.status().is_success(), "{}", again.status());
    let events = again.text().await.unwrap();
    assert!(events.contains("message.completed"), "{events}");
}

#[tokio::test]
async fn runs_at_once_are_capped_per_user() {
    let api = start_limited(Limits {
        max_runs: 1,
        ..Limits::default()
    })
    .await;
    // The model takes far longer than the test: the first run is still going.
    let llm = ScriptedLlm::start(vec![
        Turn::text("slow").delay(Duration::from_secs(600)),
        Turn::text("slow").delay(Duration::from_secs(600)),
    ])
    .await;
    let member = Some(api.member.as_str());
    let assistant = members_assistant(&api, &llm).await;
    let mut conversations = Vec::new();
    for title in ["one", "two"] {
        let (status, conversation) = api
            .send(
                Method::POST,
                "/api/conversations",
                member,
                Some(json!({"title": title, "assistantId": assistant["id"]})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{conversation}");
        conversations.push(conversation["id"].as_str().unwrap().to_owned());
    }
    let send = |id: &str| {
        api.client
            .post(format!("{}/api/conversations/{id}/messages", api.base))
            .bearer_auth(&api.member)
            .json(&json!({"content": "hi"}))
            .send()
    };
    let first = send(&conversations[0]).await.unwrap();
    assert_eq!(first.status(), StatusCode::ACCEPTED);
    let second = send(&conversations[1]).await.unwrap();
    assert_retry_after(&second);
    error_of(second, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    // Refused before the message was stored.
    let (_, messages) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{}/messages", conversations[1]),
            member,
            None,
        )
        .await;
    assert_eq!(messages.as_array().map_or(0, Vec::len), 0, "{messages}");
}

/// Reads until the server closes the connection; what it sent.
async fn until_closed(socket: &mut tokio::net::TcpStream) -> Vec<u8> {
    let mut seen = Vec::new();
    tokio::time::timeout(PATIENCE, socket.read_to_end(&mut seen))
        .await
        .expect("the server closed the connection")
        .ok();
    seen
}

#[tokio::test]
async fn silent_and_half_header_connections_are_closed() {
    let api = start_limited(Limits {
        header_read_timeout: Duration::from_millis(300),
        ..Limits::default()
    })
    .await;
    let address = api.base.trim_start_matches("http://").to_owned();
    let mut silent = tokio::net::TcpStream::connect(&address).await.unwrap();
    let mut half = tokio::net::TcpStream::connect(&address).await.unwrap();
    half.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\nX-Slow: ").as_bytes())
        .await
        .unwrap();
    until_closed(&mut silent).await;
    until_closed(&mut half).await;

    // A keep-alive connection idle after a response is closed the same way.
    let mut idle = tokio::net::TcpStream::connect(&address).await.unwrap();
    idle.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let answer = until_closed(&mut idle).await;
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

#[tokio::test]
async fn a_body_sent_too_slowly_is_answered_408_and_its_connection_closed() {
    let api = start_limited(Limits {
        body_read_timeout: Duration::from_millis(300),
        ..Limits::default()
    })
    .await;
    let address = api.base.trim_start_matches("http://").to_owned();
    let mut slow = tokio::net::TcpStream::connect(&address).await.unwrap();
    slow.write_all(
        format!(
            "POST /api/mcp-servers HTTP/1.1\r\nHost: {address}\r\n\
             Authorization: Bearer {}\r\nContent-Type: application/json\r\n\
             Content-Length: 100\r\n\r\n{{\"name\":",
            api.member
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let answer = String::from_utf8_lossy(&until_closed(&mut slow).await).into_owned();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("REQUEST_TIMEOUT"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
    // Nothing was saved, and a body sent at once is taken as before.
    let (status, body) = api
        .send(Method::GET, "/api/mcp-servers", Some(&api.member), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.as_array().map(Vec::len), Some(0), "{body}");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.member),
            Some(http_server("quick")),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn connections_past_the_cap_wait_for_one_to_close() {
    let api = start_limited(Limits {
        max_connections: 2,
        ..Limits::default()
    })
    .await;
    let address = api.base.trim_start_matches("http://").to_owned();
    let first = tokio::net::TcpStream::connect(&address).await.unwrap();
    let _second = tokio::net::TcpStream::connect(&address).await.unwrap();
    // The third connects (the listen backlog) but is not served while two are open.
    let mut third = tokio::net::TcpStream::connect(&address).await.unwrap();
    third
        .write_all(
            format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(500), third.read(&mut byte)).await;
    assert!(
        early.is_err(),
        "the third connection was served past the cap"
    );
    drop(first);
    let answer = until_closed(&mut third).await;
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

#[tokio::test]
async fn repeated_bad_tokens_get_429_with_retry_after() {
    let api = start_with(common::Config::default()).await;
    let threshold = Limits::default().auth_failures.burst as usize;
    let mut unauthorized = 0;
    let mut limited = None;
    for i in 0..300 {
        let response = api
            .client
            .get(format!("{}/api/mcp-servers", api.base))
            .bearer_auth(format!("sb_guess_{i}"))
            .send()
            .await
            .unwrap();
        match response.status() {
            StatusCode::UNAUTHORIZED => unauthorized += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                limited = Some(response);
                break;
            }
            other => panic!("unexpected {other}"),
        }
    }
    let limited = limited.expect("bad tokens were limited");
    assert!(
        unauthorized <= threshold + 1,
        "{unauthorized} failures before the limit"
    );
    assert_retry_after(&limited);
    error_of(limited, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
}

#[tokio::test]
async fn others_bad_tokens_never_lock_out_a_valid_one() {
    // Behind a reverse proxy everyone shares one address: a stranger's guesses from it must
    // not refuse the admin's valid token, while the guesses themselves stay limited.
    let api = start_with(common::Config::default()).await;
    let threshold = Limits::default().auth_failures.burst as usize;
    let guess = |i: usize| {
        api.client
            .get(format!("{}/api/mcp-servers", api.base))
            .bearer_auth(format!("sb_guess_{i}"))
            .send()
    };
    let mut limited = false;
    for i in 0..threshold + 5 {
        if guess(i).await.unwrap().status() == StatusCode::TOO_MANY_REQUESTS {
            limited = true;
        }
    }
    assert!(limited, "the guesses were not limited");
    for scheme in ["Bearer", "bearer"] {
        let valid = api
            .client
            .get(format!("{}/api/mcp-servers", api.base))
            .header("authorization", format!("{scheme} {}", api.admin))
            .send()
            .await
            .unwrap();
        assert_eq!(valid.status(), StatusCode::OK, "{scheme}");
    }
    assert_eq!(
        guess(10_000).await.unwrap().status(),
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn a_burst_of_writes_gets_429_with_retry_after() {
    let api = start_limited(Limits::default()).await;
    let mut created = 0;
    let mut limited = None;
    for i in 0..300 {
        let response = api
            .client
            .post(format!("{}/api/mcp-servers", api.base))
            .bearer_auth(&api.member)
            .json(&http_server(&format!("s{i}")))
            .send()
            .await
            .unwrap();
        match response.status() {
            StatusCode::CREATED => created += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                limited = Some(response);
                break;
            }
            other => panic!("unexpected {other}"),
        }
    }
    let limited = limited.expect("the burst was limited");
    assert!(created < 100, "{created} writes before the limit");
    assert_retry_after(&limited);
    error_of(limited, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    // Reads are not writes.
    let (status, _) = api
        .send(Method::GET, "/api/mcp-servers", Some(&api.member), None)
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn tool_calls_are_not_counted_as_writes() {
    let api = start_limited(Limits::default()).await;
    // Past the write burst (60), a tool call is still answered on its merits (no such
    // server here), never 429: the gateway's calls are not stored writes.
    for i in 0..150 {
        for path in [
            "/api/mcp/proxy/nowhere/tools/echo/call".to_owned(),
            format!("/api/mcp/proxy/nowhere-{i}/tools/echo/call"),
        ] {
            let (status, body) = api
                .send(
                    Method::POST,
                    &path,
                    Some(api.member.as_str()),
                    Some(json!({})),
                )
                .await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
        }
        let (status, body) = api
            .send(
                Method::POST,
                "/api/mcp/tools/call",
                Some(api.member.as_str()),
                Some(json!({"server_id": "nowhere", "tool_name": "echo", "arguments": {}})),
            )
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    }
}

//! Error answers in the caller's language (seeds 002 and 003): Chinese for
//! `Accept-Language: zh-CN`, English without a header, the user's stored choice over the
//! header, and the code's hint in the same language; `GET/PATCH /api/me` and the locale
//! files the web UI reads.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Config;
use common::{Api, assert_error, start, start_as};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A request as `token` with `Accept-Language: language` (when given).
async fn send(
    api: &Api,
    method: Method,
    path: &str,
    token: &str,
    language: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value, Option<String>) {
    let mut request = api
        .client
        .request(method, format!("{}{path}", api.base))
        .bearer_auth(token);
    if let Some(language) = language {
        request = request.header("accept-language", language);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let content_language = response
        .headers()
        .get("content-language")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, response.json().await.unwrap(), content_language)
}

fn text(body: &Value, field: &str) -> String {
    body[field].as_str().unwrap_or_default().to_owned()
}

fn has_chinese(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[tokio::test]
async fn the_same_error_comes_in_chinese_for_zh_and_in_english_otherwise() {
    let api = start().await;
    let path = "/api/mcp-servers/no-such-server";
    let (status, english, language) = send(&api, Method::GET, path, &api.member, None, None).await;
    assert_error(
        status,
        &english,
        StatusCode::NOT_FOUND,
        "MCP_SERVER_NOT_FOUND",
    );
    assert_eq!(language.as_deref(), Some("en-US"));
    assert!(!has_chinese(&text(&english, "message")), "{english}");
    assert!(text(&english, "hint").contains("server list"), "{english}");

    for tag in [
        "zh-CN",
        "zh",
        "zh-Hans",
        "zh-SG",
        "fr;q=1, zh-CN;q=0.8, en;q=0.5",
    ] {
        let (status, chinese, language) =
            send(&api, Method::GET, path, &api.member, Some(tag), None).await;
        assert_error(
            status,
            &chinese,
            StatusCode::NOT_FOUND,
            "MCP_SERVER_NOT_FOUND",
        );
        assert_eq!(language.as_deref(), Some("zh-Hans"), "{tag}");
        // The store's not-found, worded by the locale files around the id.
        assert_eq!(
            text(&chinese, "message"),
            "MCP 服务器 \"no-such-server\" 不存在",
            "{tag}: {chinese}"
        );
        assert!(has_chinese(&text(&chinese, "hint")), "{chinese}");
        // The shape is the same: {code, message, timestamp} and the hint, nothing else.
        let mut keys: Vec<&String> = chinese.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["code", "hint", "message", "timestamp"]);
    }
    for tag in ["en-US", "zh-TW", "de", "zh-CN;q=0.2, en;q=0.9"] {
        let (_, body, language) = send(&api, Method::GET, path, &api.member, Some(tag), None).await;
        assert_eq!(language.as_deref(), Some("en-US"), "{tag}");
        assert!(!has_chinese(&text(&body, "message")), "{tag}: {body}");
    }
}

#[tokio::test]
async fn messages_the_server_words_itself_are_wholly_chinese() {
    let api = start().await;
    // An unknown field (the validation message names it).
    let (status, body, _) = send(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.admin,
        Some("zh-CN"),
        Some(json!({"name": "a", "command": "x", "secretEnvs": ["T"]})),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let message = text(&body, "message");
    assert!(
        message.starts_with("未知字段 `secretEnvs`；可用字段为 "),
        "{body}"
    );
    assert!(!message.contains("unknown field"), "{body}");

    // A body that is not JSON (the JSON extractor's rejection).
    let response = api
        .client
        .post(format!("{}/api/conversations", api.base))
        .bearer_auth(&api.member)
        .header("accept-language", "zh-CN")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.unwrap();
    assert!(
        text(&body, "message").starts_with("请求体不是有效的 JSON："),
        "{body}"
    );

    // No token at all, and an unknown /api path (the UI fallback's 404).
    let response = api
        .client
        .get(format!("{}/api/conversations", api.base))
        .header("accept-language", "zh-CN")
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "UNAUTHORIZED");
    assert_eq!(
        body["message"],
        "请发送 API 令牌：Authorization: Bearer <token>"
    );
    let (status, body, _) = send(
        &api,
        Method::GET,
        "/api/nowhere",
        &api.member,
        Some("zh"),
        None,
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!(body["message"], "不存在路由 /api/nowhere");

    // The guard's refusal of a Host it does not answer to.
    let response = api
        .client
        .get(format!("{}/api/conversations", api.base))
        .header("host", "evil.example")
        .header("accept-language", "zh-CN")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "ORIGIN_NOT_ALLOWED");
    assert!(
        text(&body, "message").starts_with("此服务器不响应主机 \"evil.example\""),
        "{body}"
    );
    // English stays as it always was.
    let (_, body, _) = send(&api, Method::GET, "/api/nowhere", &api.member, None, None).await;
    assert_eq!(body["message"], "there is no route /api/nowhere");
}

#[tokio::test]
async fn the_users_preference_wins_over_the_header_until_cleared() {
    let api = start().await;
    let path = "/api/conversations/none";
    let (status, me, _) = send(&api, Method::GET, "/api/me", &api.member, None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["name"], "member");
    assert_eq!(me["role"], "member");
    assert_eq!(me["locale"], Value::Null);

    let set = Some(json!({"locale": "zh-Hans"}));
    let (status, me, _) = send(&api, Method::PATCH, "/api/me", &api.member, None, set).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["locale"], "zh-Hans");
    let (_, me, _) = send(&api, Method::GET, "/api/me", &api.member, None, None).await;
    assert_eq!(me["locale"], "zh-Hans");

    for header in [None, Some("en-US"), Some("en-US, en;q=0.9")] {
        let (status, body, language) =
            send(&api, Method::GET, path, &api.member, header, None).await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(language.as_deref(), Some("zh-Hans"), "{header:?}");
        assert_eq!(
            text(&body, "message"),
            "会话 \"none\" 不存在",
            "{header:?}: {body}"
        );
    }
    // Another user is not affected.
    let (_, body, _) = send(&api, Method::GET, path, &api.admin, None, None).await;
    assert!(!has_chinese(&text(&body, "message")), "{body}");

    // Leaving the field out changes nothing; an unknown locale is refused, in the
    // preferred language.
    let (status, me, _) = send(
        &api,
        Method::PATCH,
        "/api/me",
        &api.member,
        None,
        Some(json!({})),
    )
    .await;
    assert_eq!((status, &me["locale"]), (StatusCode::OK, &json!("zh-Hans")));
    let bad = Some(json!({"locale": "fr"}));
    let (status, body, _) = send(&api, Method::PATCH, "/api/me", &api.member, None, bad).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        body["message"],
        "未知语言 \"fr\"；可用语言为 en-US 和 zh-Hans"
    );

    let clear = Some(json!({"locale": null}));
    let (status, me, _) = send(&api, Method::PATCH, "/api/me", &api.member, None, clear).await;
    assert_eq!((status, &me["locale"]), (StatusCode::OK, &Value::Null));
    let (_, body, language) = send(&api, Method::GET, path, &api.member, None, None).await;
    assert_eq!(language.as_deref(), Some("en-US"));
    assert!(!has_chinese(&text(&body, "message")), "{body}");
}

#[tokio::test]
async fn single_user_mode_keeps_the_preference_too() {
    let api = start_as(Config::default(), true).await;
    let set = Some(json!({"locale": "zh-Hans"}));
    let (status, _, _) = send(&api, Method::PATCH, "/api/me", "", None, set).await;
    assert_eq!(status, StatusCode::OK);
    let (_, body, language) =
        send(&api, Method::GET, "/api/conversations/none", "", None, None).await;
    assert_eq!(language.as_deref(), Some("zh-Hans"), "{body}");
}

#[tokio::test]
async fn an_mcp_error_carries_its_hint_in_both_languages() {
    let api = start().await;
    // Something answers, but only HTTP 503: the message can only say what it saw, and the
    // code's hint says what to do.
    let unavailable = switchboard_testkit::CannedHttp::start(503, "text/plain", "down").await;
    let server = json!({"name": "down", "url": unavailable.url("127.0.0.1", "/mcp")});
    let (status, _, _) = send(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.admin,
        None,
        Some(server),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let test = "/api/mcp-servers/down/test";
    let (status, body, _) = send(&api, Method::POST, test, &api.admin, None, None).await;
    assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_UNREACHABLE");
    assert!(text(&body, "hint").contains("URL"), "{body}");
    let (status, body, _) = send(&api, Method::POST, test, &api.admin, Some("zh-CN"), None).await;
    assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_UNREACHABLE");
    assert!(
        text(&body, "message").starts_with("无法访问 http://127.0.0.1:"),
        "{body}"
    );
    assert!(text(&body, "hint").contains("请检查服务器的 URL"), "{body}");

    // Nothing listens on port 9 of loopback: the message says so, and what to do, in both
    // languages; the code's more general hint is left out.
    let server = json!({"name": "gone", "url": "http://127.0.0.1:9/mcp"});
    let (status, _, _) = send(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.admin,
        None,
        Some(server),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let test = "/api/mcp-servers/gone/test";
    let (status, body, _) = send(&api, Method::POST, test, &api.admin, None, None).await;
    assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_UNREACHABLE");
    assert_eq!(
        text(&body, "message"),
        "cannot reach http://127.0.0.1:9/mcp: the connection was refused (nothing listens on \
         that port); check the address and that the server is running",
        "{body}"
    );
    assert!(body.get("hint").is_none(), "{body}");
    let (_, body, _) = send(&api, Method::POST, test, &api.admin, Some("zh-CN"), None).await;
    assert!(
        text(&body, "message").starts_with("无法访问 http://127.0.0.1:9/mcp：连接被拒绝"),
        "{body}"
    );
    api.manager.shutdown().await;
}

#[tokio::test]
async fn the_web_ui_reads_the_locale_files_without_a_token() {
    let api = start().await;
    for (lang, expected) in [("en-US", "Send"), ("zh-Hans", "发送")] {
        let response = api
            .client
            .get(format!("{}/api/locales/{lang}", api.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let texts: Value = response.json().await.unwrap();
        assert_eq!(texts["ui.chat.send"], expected, "{lang}");
        assert!(texts["error.MCP_TIMEOUT.hint"].is_string(), "{lang}");
    }
    let response = api
        .client
        .get(format!("{}/api/locales/fr", api.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

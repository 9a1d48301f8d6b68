//! Stored text and the NUL character, through the real router: a name, title, URL or prompt
//! with `\u0000` is refused with 400 in the error shape (on Postgres it used to be a 500 with
//! the raw database error), and an import skips such an entry on its own, listing it, while
//! the other entries are created whole.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{assert_error, start};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn nul_in_stored_text_is_a_400_naming_the_field() {
    let api = start().await;
    let member = Some(api.member.as_str());
    let refusals = [
        (
            "/api/mcp-servers",
            json!({"name": "bad\u{0}name", "url": "https://example.com/mcp"}),
            "name",
        ),
        (
            "/api/mcp-servers",
            json!({"name": "bad-url", "url": "https://example.com/\u{0}/mcp"}),
            "url",
        ),
        (
            "/api/providers",
            json!({"name": "p\u{0}", "kind": "openai", "defaultModel": "m"}),
            "name",
        ),
        (
            "/api/assistants",
            json!({"name": "a", "systemPrompt": "be\u{0}brief"}),
            "systemPrompt",
        ),
        ("/api/conversations", json!({"title": "t\u{0}"}), "title"),
    ];
    for (path, body, field) in refusals {
        let (status, answer) = api.send(Method::POST, path, member, Some(body)).await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        let message = answer["message"].as_str().unwrap();
        assert!(
            message.contains(field) && message.contains("NUL"),
            "{path}: {message}"
        );
    }
    for path in [
        "/api/mcp-servers",
        "/api/providers",
        "/api/assistants",
        "/api/conversations",
    ] {
        let (status, listed) = api.send(Method::GET, path, member, None).await;
        assert_eq!(status, StatusCode::OK, "{listed}");
        assert_eq!(listed, json!([]), "{path} holds a half-written row");
    }
}

#[tokio::test]
async fn an_import_skips_an_entry_with_nul_and_creates_the_rest() {
    let api = start().await;
    let text = json!({
        "mcpServers": {
            "first": {"url": "https://one.example.com/mcp"},
            "bad\u{0}": {"url": "https://two.example.com/mcp"},
            "third": {"url": "https://three.example.com/mcp?x=\u{0}"},
            "fourth": {"url": "https://four.example.com/mcp"},
        }
    })
    .to_string();
    let (status, report) = api
        .send(
            Method::POST,
            "/api/import/mcp-servers",
            Some(api.member.as_str()),
            Some(json!({"text": text})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    let imported: Vec<&str> = report["imported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(imported, ["first", "fourth"], "{report}");
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{report}");
    for skip in skipped {
        assert_eq!(skip["code"], "VALIDATION_ERROR", "{report}");
        assert!(
            skip["message"].as_str().unwrap().contains("NUL"),
            "{report}"
        );
    }
    let (_, listed) = api
        .send(
            Method::GET,
            "/api/mcp-servers",
            Some(api.member.as_str()),
            None,
        )
        .await;
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
}

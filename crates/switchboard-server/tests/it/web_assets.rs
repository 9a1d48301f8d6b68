//! The web UI's files as the router serves them: the app for every page path, each asset
//! with its type, revalidation by ETag, the Content-Security-Policy, and a 404 in the API's
//! error shape for unknown API paths and missing assets.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use serde_json::Value;

#[tokio::test]
async fn pages_get_the_app_and_assets_their_type() {
    let api = common::start().await;
    for page in [
        "/",
        "/settings/mcp",
        "/chat/0193abc",
        "/assistants",
        "/providers",
    ] {
        let response = api
            .client
            .get(format!("{}{page}", api.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{page}");
        assert_eq!(response.headers()[CONTENT_TYPE], "text/html; charset=utf-8");
        let csp = response.headers()[CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(csp.contains("script-src 'self'"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert!(
            csp.contains("img-src 'self' data:"),
            "no remote images: {csp}"
        );
        let body = response.text().await.unwrap();
        assert!(
            body.contains(r#"<script type="module" src="/js/main.js">"#),
            "{body}"
        );
        assert!(!body.contains("<script>"), "no inline script: {body}");
    }
    for (asset, kind) in [
        ("/js/main.js", "text/javascript; charset=utf-8"),
        ("/vendor/purify.js", "text/javascript; charset=utf-8"),
        ("/app.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let response = api
            .client
            .get(format!("{}{asset}", api.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{asset}");
        assert_eq!(response.headers()[CONTENT_TYPE], kind, "{asset}");
        assert_eq!(response.headers()[CACHE_CONTROL], "no-cache", "{asset}");
    }
}

#[tokio::test]
async fn an_unchanged_asset_is_answered_not_modified() {
    let api = common::start().await;
    let url = format!("{}/js/app.js", api.base);
    let first = api.client.get(&url).send().await.unwrap();
    let etag = first.headers()[ETAG].clone();
    let again = api
        .client
        .get(&url)
        .header(IF_NONE_MATCH, etag.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.bytes().await.unwrap().is_empty());
    let other = api
        .client
        .get(&url)
        .header(IF_NONE_MATCH, "\"other\"")
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), StatusCode::OK);
}

#[tokio::test]
async fn unknown_api_paths_missing_assets_and_tests_are_not_found() {
    let api = common::start().await;
    for path in [
        "/api/no-such-route",
        "/api",
        "/js/no-such-file.js",
        "/tests/browser/chat.mjs",
        "/tests/unit/chat-state.test.mjs",
    ] {
        let response = api
            .client
            .get(format!("{}{path}", api.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["code"], "NOT_FOUND", "{path}: {body}");
    }
    // Writing to a page is not a route either.
    let response = api
        .client
        .post(format!("{}/settings/mcp", api.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

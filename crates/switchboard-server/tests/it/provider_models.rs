//! Providers that just work: a provider is tested by listing its models (saved or not), and
//! a failure says what failed in words; model servers on this machine are found on the
//! configured ports and only offered; a changed URL keeps the stored key within its origin
//! and asks before the key goes to another.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_app::config::LocalPorts;
use switchboard_testkit::{SCRIPTED_MODELS, ScriptedLlm};

use crate::common::{Api, Config, assert_error, start, start_with};

fn provider(base_url: &str, key: Option<&str>) -> Value {
    let mut body = json!({
        "name": "local",
        "kind": "openai",
        "baseUrl": base_url,
        "defaultModel": "scripted-large",
    });
    if let Some(key) = key {
        body["apiKey"] = json!(key);
    }
    body
}

async fn create(api: &Api, body: Value) -> String {
    let (status, created) = api
        .send(Method::POST, "/api/providers", Some(&api.admin), Some(body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["id"].as_str().unwrap().to_owned()
}

/// A port of 127.0.0.1 where nothing listens.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `path` answered in Chinese.
async fn in_chinese(api: &Api, method: Method, path: &str, body: Option<Value>) -> Value {
    let mut request = api
        .client
        .request(method, format!("{}{path}", api.base))
        .bearer_auth(&api.admin)
        .header("accept-language", "zh-Hans");
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap().json().await.unwrap()
}

fn models() -> Value {
    json!(SCRIPTED_MODELS)
}

#[tokio::test]
async fn the_test_lists_a_providers_models_saved_or_not() {
    let api = start().await;
    let llm = ScriptedLlm::start(Vec::new()).await;
    let id = create(&api, provider(&llm.openai_base_url(), None)).await;

    let (status, listed) = api
        .send(
            Method::GET,
            &format!("/api/providers/{id}/models"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed, json!({"models": models()}));

    let (status, listed) = api
        .send(
            Method::POST,
            "/api/providers/test",
            Some(&api.admin),
            Some(json!({"config": provider(&llm.openai_base_url(), None)})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed["models"], models());
    assert_eq!(llm.listings().len(), 2);
    // Testing stored nothing.
    let (_, all) = api
        .send(Method::GET, "/api/providers", Some(&api.admin), None)
        .await;
    assert_eq!(all.as_array().unwrap().len(), 1);

    // Another person's provider is not found.
    let (status, body) = api
        .send(
            Method::GET,
            &format!("/api/providers/{id}/models"),
            Some(&api.member),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn a_refused_port_a_wrong_key_and_a_wrong_path_say_so_in_words() {
    let api = start().await;
    let port = closed_port();
    let refused = json!({"config": provider(&format!("http://127.0.0.1:{port}/v1"), None)});
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers/test",
            Some(&api.admin),
            Some(refused.clone()),
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::BAD_GATEWAY,
        "UPSTREAM_UNAVAILABLE",
    );
    assert_eq!(
        body["message"],
        format!(
            "cannot list the provider's models: nothing listens at 127.0.0.1:{port} (the \
             connection was refused): check that the server is running and that the port is right"
        )
    );
    let chinese = in_chinese(&api, Method::POST, "/api/providers/test", Some(refused)).await;
    let words = chinese["message"].as_str().unwrap();
    assert!(
        words.contains(&format!("127.0.0.1:{port}")) && words.contains("连接被拒绝"),
        "{words}"
    );

    let llm = ScriptedLlm::start(Vec::new()).await;
    llm.require_api_key("sk-right");
    let id = create(&api, provider(&llm.openai_base_url(), Some("sk-wrong"))).await;
    let (status, body) = api
        .send(
            Method::GET,
            &format!("/api/providers/{id}/models"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::BAD_GATEWAY,
        "UPSTREAM_UNAVAILABLE",
    );
    assert_eq!(
        body["message"],
        "cannot list the provider's models: the provider refused the API key (401: Incorrect \
         API key provided.): check the key"
    );
    assert!(!body.to_string().contains("sk-wrong"), "{body}");
    let chinese = in_chinese(
        &api,
        Method::GET,
        &format!("/api/providers/{id}/models"),
        None,
    )
    .await;
    assert!(
        chinese["message"]
            .as_str()
            .unwrap()
            .contains("拒绝了 API Key"),
        "{chinese}"
    );

    let wrong_path = format!("http://{}/openai/v1", llm.addr());
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers/test",
            Some(&api.admin),
            Some(json!({"config": provider(&wrong_path, Some("sk-right"))})),
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::BAD_GATEWAY,
        "UPSTREAM_UNAVAILABLE",
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("nothing answers at /openai/v1/models (404): check the base URL"),
        "{body}"
    );
}

#[tokio::test]
async fn a_member_tests_only_what_they_may_reach() {
    let api = start().await;
    let llm = ScriptedLlm::start(Vec::new()).await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers/test",
            Some(&api.member),
            Some(json!({"config": provider(&llm.openai_base_url(), None)})),
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::FORBIDDEN,
        "DESTINATION_NOT_ALLOWED",
    );
    assert!(llm.listings().is_empty());
    // Nor may they look at this machine's ports.
    let (status, body) = api
        .send(Method::GET, "/api/local-providers", Some(&api.member), None)
        .await;
    assert_error(
        status,
        &body,
        StatusCode::FORBIDDEN,
        "DESTINATION_NOT_ALLOWED",
    );
}

#[tokio::test]
async fn a_local_server_on_a_probed_port_is_found_and_only_offered() {
    let llm = ScriptedLlm::start(Vec::new()).await;
    llm.set_models(&["llama3.2:latest", "qwen3:8b"]);
    let port = llm.addr().port();
    let closed = closed_port();
    let api = start_with(Config {
        local_ports: LocalPorts(vec![closed, port]),
        ..Config::default()
    })
    .await;

    let (status, found) = api
        .send(Method::GET, "/api/local-providers", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(
        found,
        json!([{
            "port": port,
            "baseUrl": format!("http://127.0.0.1:{port}/v1"),
            "models": ["llama3.2:latest", "qwen3:8b"],
        }])
    );
    // Found is not added: that takes the person's click (a POST /api/providers).
    let (_, all) = api
        .send(Method::GET, "/api/providers", Some(&api.admin), None)
        .await;
    assert_eq!(all, json!([]));
    assert_eq!(llm.listings()[0].path, "/v1/models");

    // Nothing on the ports: nothing found.
    let api = start_with(Config {
        local_ports: LocalPorts(vec![closed]),
        ..Config::default()
    })
    .await;
    let (status, found) = api
        .send(Method::GET, "/api/local-providers", Some(&api.admin), None)
        .await;
    assert_eq!((status, found), (StatusCode::OK, json!([])));
}

#[tokio::test]
async fn a_changed_url_keeps_the_key_within_its_origin_and_asks_before_another() {
    let api = start().await;
    let first = ScriptedLlm::start(Vec::new()).await;
    first.require_api_key("sk-kept");
    let id = create(&api, provider(&first.openai_base_url(), Some("sk-kept"))).await;
    let path = format!("/api/providers/{id}");

    // Same origin, another path: the masked key is kept silently and still works.
    let mut edited = provider(&format!("http://{}/v1/", first.addr()), Some("********"));
    let (status, body) = api
        .send(Method::PUT, &path, Some(&api.admin), Some(edited.clone()))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["apiKey"], "********");
    let (status, body) = api
        .send(
            Method::GET,
            &format!("{path}/models"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        first.listings()[0].header("authorization"),
        Some("Bearer sk-kept")
    );

    // Another origin: refused with words naming both, nothing stored, nothing sent there.
    let second = ScriptedLlm::start(Vec::new()).await;
    edited["baseUrl"] = json!(second.openai_base_url());
    for (method, target, body) in [
        (Method::PUT, path.clone(), edited.clone()),
        (
            Method::POST,
            "/api/providers/test".to_owned(),
            json!({"config": edited, "id": id}),
        ),
    ] {
        let (status, answer) = api
            .send(method, &target, Some(&api.admin), Some(body))
            .await;
        assert_error(
            status,
            &answer,
            StatusCode::CONFLICT,
            "API_KEY_ORIGIN_CHANGED",
        );
        assert_eq!(
            answer["message"],
            format!(
                "the provider's URL moves from http://{} to http://{}: its stored API key is \
                 sent there only if you confirm it (keepApiKey: true) or enter the key again",
                first.addr(),
                second.addr()
            )
        );
    }
    assert!(second.listings().is_empty());
    let (_, stored) = api.send(Method::GET, &path, Some(&api.admin), None).await;
    assert_eq!(stored["baseUrl"], format!("http://{}/v1/", first.addr()));

    // Confirmed: saved, and the key goes there.
    edited["keepApiKey"] = json!(true);
    let (status, body) = api
        .send(Method::PUT, &path, Some(&api.admin), Some(edited))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.get("keepApiKey").is_none(), "{body}");
    let (status, _) = api
        .send(
            Method::GET,
            &format!("{path}/models"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        second.listings()[0].header("authorization"),
        Some("Bearer sk-kept")
    );
}

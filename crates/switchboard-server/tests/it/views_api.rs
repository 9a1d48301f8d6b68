//! Views of the MCP gateway through the API: create, read, replace, delete; the
//! rules and links of a view; tool names that would collide are refused when saved (in the
//! caller's language) and reported when they appear later; another user's views are not
//! found; a token limited to a view opens nothing else and goes with its view. The servers are
//! real: server-everything over stdio, whose tools' names are what collide.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{Api, assert_error, everything, start, start_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A server-everything of the admin's named `name`; its id.
async fn server(api: &Api, name: &str) -> String {
    let mut body = everything();
    body["name"] = json!(name);
    let (status, created) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(body),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["id"].as_str().unwrap().to_owned()
}

async fn create_view(api: &Api, token: &str, view: Value) -> (StatusCode, Value) {
    api.send(Method::POST, "/api/mcp/views", Some(token), Some(view))
        .await
}

/// A request with `Accept-Language`.
async fn send_in(
    api: &Api,
    language: &str,
    method: Method,
    path: &str,
    body: Value,
) -> (StatusCode, Value) {
    let response = api
        .client
        .request(method, format!("{}{path}", api.base))
        .bearer_auth(&api.admin)
        .header("accept-language", language)
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status(), response.json().await.unwrap())
}

#[tokio::test]
async fn views_are_created_read_replaced_and_deleted() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let files = server(&api, "files").await;

    let (status, created) = create_view(
        &api,
        &api.admin,
        json!({
            "name": "desktop",
            "description": "for Claude Desktop",
            "servers": [{"serverId": files, "tools": ["echo", "get-sum"], "prefix": ""}]
        }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["name"], "desktop");
    assert_eq!(created["servers"][0]["tools"], json!(["echo", "get-sum"]));
    assert_eq!(created["servers"][0]["prefix"], "");
    assert!(created["createdAt"].is_i64());
    assert!(created.get("owner").is_none(), "{created}");

    let (status, listed) = api.send(Method::GET, "/api/mcp/views", admin, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed, json!([created]));

    let path = format!("/api/mcp/views/{id}");
    let (status, read) = api.send(Method::GET, &path, admin, None).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["name"], "desktop");
    assert_eq!(read["collisions"], json!([]));
    // Neither tool is auto-approved: both ask a person; once echo is, only get-sum does.
    assert_eq!(read["asking"], json!(["echo", "get-sum"]), "{read}");
    let (status, _) = api
        .send(
            Method::PUT,
            &format!("/api/mcp-servers/{files}/tools/echo"),
            admin,
            Some(json!({"autoApprove": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, read) = api.send(Method::GET, &path, admin, None).await;
    assert_eq!(read["asking"], json!(["get-sum"]), "{read}");

    // Replaced: renamed, every tool of the server under the gateway's template.
    let (status, updated) = api
        .send(
            Method::PUT,
            &path,
            admin,
            Some(json!({"name": "desktop-2", "servers": [{"serverId": files}]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["id"], id.as_str());
    assert_eq!(updated["name"], "desktop-2");
    assert!(updated.get("description").is_none());
    assert_eq!(updated["createdAt"], created["createdAt"]);

    // The name is taken: 409.
    let (status, body) = create_view(
        &api,
        &api.admin,
        json!({"name": "desktop-2", "servers": [{"serverId": files}]}),
    )
    .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");

    let (status, _) = api.send(Method::DELETE, &path, admin, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = api.send(Method::GET, &path, admin, None).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = api.send(Method::DELETE, &path, admin, None).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn a_view_follows_an_assistant() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let (_, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({"name": "Helper"})),
        )
        .await;
    let (status, created) = create_view(
        &api,
        &api.admin,
        json!({"name": "helper", "assistantId": assistant["id"]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["assistantId"], assistant["id"]);
    assert_eq!(created["servers"], json!([]));
}

#[tokio::test]
async fn invalid_views_are_refused_in_the_callers_language() {
    let api = start().await;
    let files = server(&api, "files").await;
    let cases = [
        json!({"name": "Desktop App", "servers": [{"serverId": files}]}),
        json!({"name": "", "servers": [{"serverId": files}]}),
        json!({"name": "x".repeat(65), "servers": [{"serverId": files}]}),
        json!({"name": "v"}),
        json!({"name": "v", "assistantId": "a", "servers": [{"serverId": files}]}),
        json!({"name": "v", "servers": [{"serverId": files, "prefix": "my prefix"}]}),
        json!({"name": "v", "servers": [{"serverId": files, "prefix": "p".repeat(33)}]}),
        json!({"name": "v", "servers": [{"serverId": files, "tools": [""]}]}),
        json!({"name": "v", "servers": [{"serverId": files, "tools": []}]}),
        json!({"name": "v", "servers": [{"serverId": files}, {"serverId": files}]}),
        json!({"name": "v", "servers": [{"serverId": files}], "colour": "red"}),
    ];
    for case in cases {
        let (status, body) = create_view(&api, &api.admin, case.clone()).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        let _ = case;
    }
    let (status, body) = send_in(
        &api,
        "zh-CN",
        Method::POST,
        "/api/mcp/views",
        json!({"name": "Desktop App", "servers": [{"serverId": files}]}),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("视图名称"), "{message}");
    assert!(message.contains("\"Desktop App\""), "{message}");

    // A server or assistant that does not exist: 404.
    let (status, body) = create_view(
        &api,
        &api.admin,
        json!({"name": "v", "servers": [{"serverId": "nope"}]}),
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    let (status, body) = create_view(
        &api,
        &api.admin,
        json!({"name": "v", "assistantId": "nope"}),
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (_, listed) = api
        .send(Method::GET, "/api/mcp/views", Some(&api.admin), None)
        .await;
    assert_eq!(listed, json!([]));
}

#[tokio::test]
async fn a_views_task_settings_are_kept_and_checked() {
    let api = start().await;
    let files = server(&api, "files").await;
    let tasks = json!({"runAsTask": "slow", "slowAfterSecs": 20});
    let (status, created) = create_view(
        &api,
        &api.admin,
        json!({"name": "long", "servers": [{"serverId": files}], "tasks": tasks}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["tasks"], tasks);
    let (status, plain) = create_view(
        &api,
        &api.admin,
        json!({"name": "short", "servers": [{"serverId": files}]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plain}");
    assert!(plain.get("tasks").is_none(), "{plain}");

    for tasks in [
        json!({"runAsTask": "sometimes"}),
        json!({"runAsTask": "slow", "slowAfterSecs": 0}),
        json!({"runAsTask": "slow", "slowAfterSecs": 86_401}),
        json!({"runAsTask": "always", "after": 3}),
    ] {
        let view = json!({"name": "v", "servers": [{"serverId": files}], "tasks": tasks});
        let (status, body) = create_view(&api, &api.admin, view).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    let (status, body) = send_in(
        &api,
        "zh-Hans",
        Method::POST,
        "/api/mcp/views",
        json!({
            "name": "v",
            "servers": [{"serverId": files}],
            "tasks": {"runAsTask": "slow", "slowAfterSecs": 0}
        }),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("86400 秒"), "{message}");
}

#[tokio::test]
async fn colliding_tool_names_are_refused_when_saved_and_reported_later() {
    let api = start().await;
    let one = server(&api, "one").await;
    let two = server(&api, "two").await;
    // Both servers' own names, unprefixed: every tool of one collides with the other's.
    let colliding = json!({
        "name": "flat",
        "servers": [
            {"serverId": one, "tools": ["echo", "get-sum"], "prefix": ""},
            {"serverId": two, "tools": ["echo"], "prefix": ""}
        ]
    });
    let (status, body) = create_view(&api, &api.admin, colliding.clone()).await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("echo (one/echo, two/echo)"), "{message}");
    assert!(!message.contains("get-sum ("), "{message}");
    let (status, body) = send_in(&api, "zh-Hans", Method::POST, "/api/mcp/views", colliding).await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
    assert!(
        body["message"].as_str().unwrap().contains("导出不止一次"),
        "{body}"
    );

    // Prefixes, or the template, or disjoint tools settle it.
    for servers in [
        json!([{"serverId": one, "prefix": "a_"}, {"serverId": two, "prefix": "b_"}]),
        json!([{"serverId": one}, {"serverId": two}]),
        json!([
            {"serverId": one, "tools": ["echo"], "prefix": ""},
            {"serverId": two, "tools": ["get-sum"], "prefix": ""}
        ]),
    ] {
        let (status, created) = create_view(
            &api,
            &api.admin,
            json!({"name": "flat", "servers": servers}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        let path = format!("/api/mcp/views/{}", created["id"].as_str().unwrap());
        api.send(Method::DELETE, &path, Some(&api.admin), None)
            .await;
    }

    // Updating into a collision is refused too, and leaves the view as it was.
    let (_, saved) = create_view(
        &api,
        &api.admin,
        json!({"name": "flat", "servers": [{"serverId": one, "prefix": ""}]}),
    )
    .await;
    let path = format!("/api/mcp/views/{}", saved["id"].as_str().unwrap());
    let (status, body) = api
        .send(
            Method::PUT,
            &path,
            Some(&api.admin),
            Some(json!({"name": "flat", "servers": [
                {"serverId": one, "prefix": ""}, {"serverId": two, "prefix": ""}
            ]})),
        )
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");

    // A collision that appears after saving (here: written past the API, as an upstream
    // adding a tool would cause) is reported by GET.
    let admin = api.store.user_by_token(&api.admin).await.unwrap().unwrap();
    let late: switchboard_core::ViewSpec = serde_json::from_value(json!({
        "name": "late",
        "servers": [
            {"serverId": one, "tools": ["echo"], "prefix": ""},
            {"serverId": two, "tools": ["echo"], "prefix": ""}
        ]
    }))
    .unwrap();
    let stored = api.store.create_view(&admin.id, &late).await.unwrap();
    let (status, read) = api
        .send(
            Method::GET,
            &format!("/api/mcp/views/{}", stored.id),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(
        read["collisions"],
        json!([{"name": "echo", "tools": [
            {"server": "one", "tool": "echo"}, {"server": "two", "tool": "echo"}
        ]}])
    );
}

#[tokio::test]
async fn another_users_views_are_not_found() {
    let api = start().await;
    let files = server(&api, "files").await;
    let (_, created) = create_view(
        &api,
        &api.admin,
        json!({"name": "mine", "servers": [{"serverId": files}]}),
    )
    .await;
    let path = format!("/api/mcp/views/{}", created["id"].as_str().unwrap());
    let member = Some(api.member.as_str());

    let (status, listed) = api.send(Method::GET, "/api/mcp/views", member, None).await;
    assert_eq!((status, listed), (StatusCode::OK, json!([])));
    let (status, body) = api.send(Method::GET, &path, member, None).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = api
        .send(
            Method::PUT,
            &path,
            member,
            Some(json!({"name": "mine", "servers": [{"serverId": files}]})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = api.send(Method::DELETE, &path, member, None).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = api
        .send(
            Method::POST,
            &format!("{path}/tokens"),
            member,
            Some(json!({"label": "stolen"})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    // Nor may the member's view name the admin's server.
    let (status, body) = create_view(
        &api,
        &api.member,
        json!({"name": "mine", "servers": [{"serverId": files}]}),
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    // The admin's view is untouched.
    let (status, read) = api.send(Method::GET, &path, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read["name"], "mine");
}

#[tokio::test]
async fn a_view_token_opens_nothing_but_its_view_and_goes_with_it() {
    let api = start().await;
    let files = server(&api, "files").await;
    let (_, view) = create_view(
        &api,
        &api.admin,
        json!({"name": "desktop", "servers": [{"serverId": files}]}),
    )
    .await;
    let view_id = view["id"].as_str().unwrap();
    let tokens = format!("/api/mcp/views/{view_id}/tokens");
    let (status, issued) = api
        .send(
            Method::POST,
            &tokens,
            Some(&api.admin),
            Some(json!({"label": "Claude Desktop"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{issued}");
    assert_eq!(issued["viewId"], view_id);
    assert_eq!(issued["label"], "Claude Desktop");
    let secret = issued["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("sb_"));

    // Listed without its secret.
    let (status, listed) = api.send(Method::GET, &tokens, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["id"], issued["id"]);
    assert!(listed[0].get("secret").is_none());

    // Every route of the API refuses it, reading or writing, even the view's own.
    for (method, path, body) in [
        (Method::GET, "/api/me".to_owned(), None),
        (Method::GET, "/api/mcp/views".to_owned(), None),
        (Method::GET, format!("/api/mcp/views/{view_id}"), None),
        (Method::GET, "/api/mcp-servers".to_owned(), None),
        (Method::POST, tokens.clone(), Some(json!({"label": "more"}))),
        (Method::DELETE, format!("/api/mcp/views/{view_id}"), None),
        (
            Method::POST,
            format!("/api/mcp/proxy/{files}/tools/echo/call"),
            Some(json!({"message": "hi"})),
        ),
    ] {
        let (status, body) = api.send(method.clone(), &path, Some(&secret), body).await;
        assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
        assert!(
            body["message"].as_str().unwrap().contains("desktop"),
            "{method} {path}: {body}"
        );
    }
    // Nothing was changed by it.
    let (_, listed) = api.send(Method::GET, &tokens, Some(&api.admin), None).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);

    // Revoked through the view: then it is no token at all.
    let (status, second) = api
        .send(Method::POST, &tokens, Some(&api.admin), Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(second["label"], "desktop");
    let (status, _) = api
        .send(
            Method::DELETE,
            &format!("{tokens}/{}", second["id"].as_str().unwrap()),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = api
        .send(
            Method::GET,
            "/api/me",
            Some(second["secret"].as_str().unwrap()),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    // Deleting the view deletes its token: it is refused as unknown, never widened.
    let (status, _) = api
        .send(
            Method::DELETE,
            &format!("/api/mcp/views/{view_id}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = api.send(Method::GET, "/api/me", Some(&secret), None).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    // The admin's own token is unaffected.
    let (status, _) = api
        .send(Method::GET, "/api/me", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn views_stop_at_the_quota() {
    let mut config = common::Config::default();
    config.limits.max_views = 2;
    let api = start_with(config).await;
    let files = server(&api, "files").await;
    for name in ["a", "b"] {
        let (status, body) = create_view(
            &api,
            &api.admin,
            json!({"name": name, "servers": [{"serverId": files}]}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, body) = create_view(
        &api,
        &api.admin,
        json!({"name": "c", "servers": [{"serverId": files}]}),
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED");
}

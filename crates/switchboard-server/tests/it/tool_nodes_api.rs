//! Tool nodes through the real router on a real socket, with the py1 test peer (FastMCP over
//! stdio) behind them: CRUD and isolation, seed 002 property 7 at save and at execution,
//! `POST /api/tool-nodes/{id}/execute` with literals, templates and dotted paths, retry and
//! timeout in the attempts, assistant variables, and property 3 as a property test.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{Api, assert_error, start};
use proptest::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::{Peers, PyGen};

/// The py1 peer over stdio, as the server `py`.
fn py_server() -> Value {
    let command = Peers::locate().python_stdio(PyGen::V1);
    json!({
        "id": "py",
        "name": "py",
        "transport": "stdio",
        "command": command.program,
        "args": command.args,
        "env": command.env.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
    })
}

async fn with_server() -> Api {
    let api = start().await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(py_server()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    api
}

impl Api {
    async fn admin(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        self.send(method, path, Some(&self.admin), body).await
    }
}

fn node(name: &str, tool: &str, mappings: Value) -> Value {
    json!({
        "name": name,
        "serverId": "py",
        "selectedTools": [{"name": tool, "parameterMappings": mappings}],
    })
}

async fn create(api: &Api, body: Value) -> Value {
    let (status, created) = api.admin(Method::POST, "/api/tool-nodes", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created
}

async fn execute(api: &Api, id: &str, body: Value) -> (StatusCode, Value) {
    api.admin(
        Method::POST,
        &format!("/api/tool-nodes/{id}/execute"),
        Some(body),
    )
    .await
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn nodes_are_created_read_replaced_listed_and_deleted_by_their_owner_only() {
    let api = with_server().await;
    let mut body = node("greet", "echo", json!({"text": "hello {{who}}"}));
    body["variables"] = json!([{"name": "who", "type": "string", "default": "world"}]);
    body["retryOnError"] = json!(true);
    body["maxRetries"] = json!(2);
    body["timeoutMs"] = json!(5000);
    let created = create(&api, body.clone()).await;
    let id = created["id"].as_str().unwrap().to_owned();
    for field in [
        "name",
        "serverId",
        "variables",
        "retryOnError",
        "maxRetries",
        "timeoutMs",
    ] {
        assert_eq!(created[field], body[field], "{field}: {created}");
    }
    assert_eq!(created["selectedTools"][0]["enabled"], true);
    assert_eq!(
        created["selectedTools"][0]["parameterMappings"]["text"],
        "hello {{who}}"
    );
    assert!(created["createdAt"].is_i64(), "{created}");

    let path = format!("/api/tool-nodes/{id}");
    let (status, read) = api.admin(Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, created);

    // seed 002's embedded server is read as its id.
    let mut replaced = node("greet2", "echo", json!({"text": "hi"}));
    replaced.as_object_mut().unwrap().remove("serverId");
    replaced["mcpServer"] = json!({"id": "py", "name": "ignored", "url": "x"});
    let (status, updated) = api.admin(Method::PUT, &path, Some(replaced)).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["name"], "greet2");
    assert_eq!(updated["serverId"], "py");
    assert_eq!(updated["createdAt"], created["createdAt"]);

    let (_, listed) = api.admin(Method::GET, "/api/tool-nodes", None).await;
    assert_eq!(listed, json!([updated]));

    // Another user sees none of it, and cannot use the admin's server either.
    let member = Some(api.member.as_str());
    let (_, theirs) = api.send(Method::GET, "/api/tool-nodes", member, None).await;
    assert_eq!(theirs, json!([]));
    for (method, body) in [
        (Method::GET, None),
        (Method::PUT, Some(node("x", "echo", json!({})))),
        (Method::DELETE, None),
    ] {
        let (status, answer) = api.send(method, &path, member, body).await;
        assert_error(status, &answer, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    let (status, answer) = api
        .send(
            Method::POST,
            &format!("{path}/execute"),
            member,
            Some(json!({})),
        )
        .await;
    assert_error(status, &answer, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, answer) = api
        .send(
            Method::POST,
            "/api/tool-nodes",
            member,
            Some(node("x", "echo", json!({}))),
        )
        .await;
    assert_error(
        status,
        &answer,
        StatusCode::NOT_FOUND,
        "MCP_SERVER_NOT_FOUND",
    );

    let (status, _) = api.admin(Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, answer) = api.admin(Method::GET, &path, None).await;
    assert_error(status, &answer, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn saving_a_node_of_a_disabled_server_is_refused_without_starting_it() {
    let api = start().await;
    let mut server = py_server();
    server["enabled"] = json!(false);
    let (status, body) = api
        .admin(Method::POST, "/api/mcp-servers", Some(server))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Refused as a call through the disabled server is.
    let (status, answer) = api
        .admin(
            Method::POST,
            "/api/tool-nodes",
            Some(node("n", "echo", json!({}))),
        )
        .await;
    assert_error(status, &answer, StatusCode::NOT_FOUND, "MCP_TOOL_NOT_FOUND");

    // Nothing was started to check it.
    let (status, health) = api
        .admin(Method::GET, "/api/mcp/servers/py/health", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{health}");
    assert_eq!(health["status"], "disconnected", "{health}");
    assert_eq!(health["connected"], false, "{health}");
}

#[tokio::test]
async fn saving_checks_every_mapping_against_the_live_tools_and_the_declared_variables() {
    let api = with_server().await;
    let refused = |body: Value| {
        let api = &api;
        async move {
            let (status, answer) = api.admin(Method::POST, "/api/tool-nodes", Some(body)).await;
            assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
            answer["message"].as_str().unwrap().to_owned()
        }
    };

    // A parameter the tool does not have.
    let message = refused(node("n", "echo", json!({"txt": "{{user.name}}"}))).await;
    assert!(
        message.contains("selectedTools[0].parameterMappings.txt"),
        "{message}"
    );
    // A variable that is neither built in nor declared: the mapping and the variable named.
    let message = refused(node("n", "echo", json!({"text": "Bearer {{token}}"}))).await;
    assert!(
        message.contains("selectedTools[0].parameterMappings.text"),
        "{message}"
    );
    assert!(message.contains("{{token}}"), "{message}");
    // The same in Chinese.
    let answer: Value = api
        .client
        .post(format!("{}/api/tool-nodes", api.base))
        .bearer_auth(&api.admin)
        .header("Accept-Language", "zh-Hans")
        .json(&node("n", "echo", json!({"text": "{{token}}"})))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let message = answer["message"].as_str().unwrap();
    assert!(message.contains("{{token}}"), "{message}");
    assert!(message.contains("既不是内置变量"), "{message}");
    // A tool the server does not have.
    let message = refused(node("n", "nope", json!({}))).await;
    assert!(message.contains("nope"), "{message}");
    // A malformed template never gets that far.
    let (status, answer) = api
        .admin(
            Method::POST,
            "/api/tool-nodes",
            Some(node("n", "echo", json!({"text": "{{ unclosed"}))),
        )
        .await;
    assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    // Accepted: built-ins, the node's own variables (dotted paths reach into them).
    create(
        &api,
        node("a", "echo", json!({"text": "{{user.name}} at {{now}}"})),
    )
    .await;
    let mut own = node("b", "echo", json!({"text": "{{repo.owner}}"}));
    own["variables"] = json!([{"name": "repo", "type": "object"}]);
    create(&api, own).await;

    // And the variables of the node's assistant, which must be the caller's.
    let (_, assistant) = api
        .admin(
            Method::POST,
            "/api/assistants",
            Some(json!({"name": "helper", "variables": [{"name": "team"}]})),
        )
        .await;
    assert_eq!(
        assistant["variables"],
        json!([{"name": "team", "type": "any"}])
    );
    let assistant_id = assistant["id"].as_str().unwrap().to_owned();
    let mut of_assistant = node("c", "echo", json!({"text": "{{team}}"}));
    let message = refused(of_assistant.clone()).await;
    assert!(message.contains("{{team}}"), "{message}");
    of_assistant["assistantId"] = json!(assistant_id);
    let created = create(&api, of_assistant.clone()).await;
    let (status, listed) = api
        .admin(
            Method::GET,
            &format!("/api/assistants/{assistant_id}/tool-nodes"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed, json!([created]));
    let (status, answer) = api
        .send(
            Method::GET,
            &format!("/api/assistants/{assistant_id}/tool-nodes"),
            Some(&api.member),
            None,
        )
        .await;
    assert_error(status, &answer, StatusCode::NOT_FOUND, "NOT_FOUND");

    // The assistant cannot drop a variable its node uses: both are named.
    let (status, answer) = api
        .admin(
            Method::PUT,
            &format!("/api/assistants/{assistant_id}"),
            Some(json!({"name": "helper", "variables": []})),
        )
        .await;
    assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let message = answer["message"].as_str().unwrap();
    assert!(message.contains("\"c\""), "{message}");
    assert!(message.contains("{{team}}"), "{message}");
    assert!(
        message.contains("selectedTools[0].parameterMappings.text"),
        "{message}"
    );
    let (status, _) = api
        .admin(
            Method::PUT,
            &format!("/api/assistants/{assistant_id}"),
            Some(json!({"name": "helper", "variables": [{"name": "team"}, {"name": "x"}]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn execute_resolves_literals_templates_and_dotted_paths_before_the_call() {
    let api = with_server().await;
    let mut body = json!({
        "name": "both",
        "serverId": "py",
        "selectedTools": [
            {"name": "echo", "parameterMappings": {
                "text": "repos/{{repo.owner}}/{{ repo.name }} by {{user.name}}"
            }},
            {"name": "add", "parameterMappings": {"a": 40, "b": "{{n}}"}},
        ],
        "variables": [
            {"name": "repo", "type": "object"},
            {"name": "n", "type": "number", "default": 1},
        ],
    });
    let created = create(&api, body.take()).await;
    let id = created["id"].as_str().unwrap();

    let (status, result) = execute(
        &api,
        id,
        json!({
            "tool": "echo",
            "variables": {"repo": {"owner": "octo", "name": "hello"}},
            // A mapped parameter is the mapping's, whatever is sent.
            "arguments": {"text": "ignored"},
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(result["isError"], false);
    assert_eq!(result["tool"], "echo");
    assert_eq!(text(&result), "repos/octo/hello by admin");
    assert_eq!(result["arguments"]["text"], "repos/octo/hello by admin");
    assert_eq!(result["attempts"].as_array().unwrap().len(), 1);
    assert_eq!(result["attempts"][0]["attempt"], 1);
    assert!(result["attempts"][0].get("error").is_none(), "{result}");
    assert!(result["durationMs"].is_u64());

    // A whole-value template keeps the variable's JSON type; the default applies.
    let (status, result) = execute(&api, id, json!({"tool": "add"})).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["arguments"], json!({"a": 40, "b": 1}));
    assert_eq!(result["structuredContent"]["result"], 41.0, "{result}");
    let (_, result) = execute(&api, id, json!({"tool": "add", "variables": {"n": 2.5}})).await;
    assert_eq!(result["arguments"]["b"], 2.5);

    // A variable with no value and no default fails the call, naming it.
    let (status, answer) = execute(&api, id, json!({"tool": "echo"})).await;
    assert_error(
        status,
        &answer,
        StatusCode::BAD_REQUEST,
        "MCP_INVALID_PARAMS",
    );
    assert!(
        answer["message"].as_str().unwrap().contains("repo.owner"),
        "{answer}"
    );
    // Two enabled tools: which one must be said.
    let (status, answer) = execute(&api, id, json!({})).await;
    assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    // A tool the node does not select is not offered.
    let (status, answer) = execute(&api, id, json!({"tool": "pid"})).await;
    assert_error(status, &answer, StatusCode::NOT_FOUND, "MCP_TOOL_NOT_FOUND");
}

#[tokio::test]
async fn timeout_and_retries_show_in_the_attempts() {
    let api = with_server().await;
    let mut slow = node("slow", "slow", json!({"seconds": 30}));
    slow["timeoutMs"] = json!(200);
    let once = create(&api, slow.clone()).await;
    slow["name"] = json!("slow-retried");
    slow["retryOnError"] = json!(true);
    slow["maxRetries"] = json!(1);
    let retried = create(&api, slow).await;

    // The only enabled tool is run when none is named.
    let (status, result) = execute(&api, once["id"].as_str().unwrap(), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["success"], false, "{result}");
    assert_eq!(result["error"]["code"], "MCP_TIMEOUT", "{result}");
    assert_eq!(result["attempts"].as_array().unwrap().len(), 1, "{result}");
    assert_eq!(result["attempts"][0]["error"], "MCP_TIMEOUT");

    // `slow` is read-only, so a timed-out call may be repeated: once, as the node says.
    let (status, result) = execute(&api, retried["id"].as_str().unwrap(), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["error"]["code"], "MCP_TIMEOUT", "{result}");
    let attempts = result["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{result}");
    assert_eq!(attempts[1]["attempt"], 2);
    assert!(
        attempts.iter().all(|a| a["error"] == "MCP_TIMEOUT"),
        "{result}"
    );
    assert!(
        attempts
            .iter()
            .all(|a| a["startedAt"].as_str().unwrap().ends_with('Z'))
    );
}

/// The tools the server lists, as `/api/mcp-servers/py/tools` answers them.
async fn listed_tools(api: &Api) -> Vec<Value> {
    let (status, tools) = api
        .admin(Method::GET, "/api/mcp-servers/py/tools", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    tools.as_array().unwrap().clone()
}

/// Seed 002 property 3: every tool of a connected server is listed (the py1 peer pages its
/// list, three tools a page), and any selection of them is saved with exactly those tools,
/// each of which the listing describes with its name, description and input schema.
#[test]
fn every_listed_tool_can_be_selected_and_is_saved_as_selected() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let api = runtime.block_on(with_server());
    let tools = runtime.block_on(listed_tools(&api));
    let names: Vec<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    for expected in ["echo", "add", "slow", "describe_order", "counter", "pid"] {
        assert!(names.iter().any(|n| n == expected), "{expected}: {names:?}");
    }
    for tool in &tools {
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{tool}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }
    let config = ProptestConfig {
        cases: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let count = names.len();
    proptest!(config, |(picked in prop::sample::subsequence((0..count).collect::<Vec<_>>(), 1..=count), enabled in prop::collection::vec(any::<bool>(), count))| {
        let selected: Vec<Value> = picked
            .iter()
            .map(|&i| json!({"name": names[i], "enabled": enabled[i]}))
            .collect();
        let body = json!({"name": "p3", "serverId": "py", "selectedTools": selected});
        let (saved, read) = runtime.block_on(async {
            let (status, saved) = api.admin(Method::POST, "/api/tool-nodes", Some(body)).await;
            assert_eq!(status, StatusCode::CREATED, "{saved}");
            let path = format!("/api/tool-nodes/{}", saved["id"].as_str().unwrap());
            let (_, read) = api.admin(Method::GET, &path, None).await;
            api.admin(Method::DELETE, &path, None).await;
            (saved, read)
        });
        prop_assert_eq!(&saved, &read);
        let saved_tools = saved["selectedTools"].as_array().unwrap();
        prop_assert_eq!(saved_tools.len(), picked.len());
        for (saved_tool, &i) in saved_tools.iter().zip(&picked) {
            prop_assert_eq!(&saved_tool["name"], &tools[i]["name"]);
            prop_assert_eq!(&saved_tool["enabled"], &json!(enabled[i]));
            let described = tools.iter().find(|t| t["name"] == saved_tool["name"]).unwrap();
            prop_assert!(described["description"].is_string());
            prop_assert!(described["inputSchema"].is_object());
        }
    });
}

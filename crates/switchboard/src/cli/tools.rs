//! `switchboard tools list`: every tool the configured servers offer (switched-off tools left
//! out), under the name a model, the REST API and the gateway know it by
//! (`mcp__{server id}__{tool}`, see `switchboard_core::naming`).
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
use switchboard_mcp::{McpError, ServerPool, ToolBackend};

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
    let results = servers
        .with_pool(async |app| Ok(list_all(app.pool.as_ref(), &specs).await))
        .await?;

    let table = NameTable::of_servers(results.iter().flat_map(|(spec, result)| {
        let tools: &[ToolInfo] = result.as_ref().map(|t| t.as_slice()).unwrap_or(&[]);
        tools.iter().map(move |tool| (spec, tool.name.as_str()))
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
                            .name_of(spec, &tool.name)
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

/// The tools each server offers (its switched-off tools left out, as everywhere a tool is
/// offered), asked in parallel, in the order of `specs`.
async fn list_all(pool: &dyn ServerPool, specs: &[ServerSpec]) -> Vec<Listing> {
    ToolBackend::tools(pool, &OwnerId::local(), specs).await
}

//! `switchboard import FILE`: add the servers of another client's configuration file to the
//! store.
//!
//! Each entry is added, replaced (only with `--replace`) or skipped with its reason: a name or
//! id already taken, or an entry that cannot be used. The file is read in full before anything
//! is stored; env variables that look like credentials are stored as secrets. Skipped entries
//! do not make the command fail, since the point is to bring over everything that can be
//! brought over; they are listed in the report (and under `skipped` with `--json`). A failure
//! of the store itself stops the import, keeping what was stored before it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use switchboard_core::ErrorCode;

use super::local::Put;
use super::{CliError, Context};
use crate::import;
use crate::output;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// claude_desktop_config.json, Cursor's mcp.json, or VS Code's mcp.json / settings.json.
    pub file: PathBuf,
    /// Overwrite servers that already exist under the same name.
    #[arg(long)]
    pub replace: bool,
}

#[derive(Debug, Default, Serialize)]
struct Report {
    format: &'static str,
    added: Vec<String>,
    replaced: Vec<String>,
    skipped: Vec<Skipped>,
}

#[derive(Debug, Serialize)]
struct Skipped {
    name: String,
    code: ErrorCode,
    reason: String,
}

pub async fn run(context: &Context, args: ImportArgs) -> anyhow::Result<ExitCode> {
    let imported = import::read_file(&args.file)?;
    let servers = context.servers().await?;
    let mut report = Report {
        format: imported.format.describe(),
        ..Report::default()
    };
    for entry in imported.entries {
        let outcome = match entry.outcome {
            Ok(spec) => servers.put(spec, args.replace).await,
            Err(error) => {
                report.skipped.push(Skipped {
                    name: entry.name,
                    code: error.code(),
                    reason: error.to_string(),
                });
                continue;
            }
        };
        match outcome {
            Ok(Put::Added(_)) => report.added.push(entry.name),
            Ok(Put::Replaced(_)) => report.replaced.push(entry.name),
            Err(error) if is_entry_problem(&error) => report.skipped.push(Skipped {
                name: entry.name,
                code: error.code(),
                reason: error.to_string(),
            }),
            Err(error) => return Err(error.into()),
        }
    }

    if context.json {
        output::print_json(&report);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether `error` is about the entry (a name that is taken, a spec the store refuses), so
/// the import goes on without it, rather than about the store.
fn is_entry_problem(error: &CliError) -> bool {
    match error {
        CliError::Taken { .. } => true,
        CliError::Store(error) => error.code() == ErrorCode::ValidationError,
        _ => false,
    }
}

fn print_report(report: &Report) {
    outln!("read {}", report.format);
    for name in &report.added {
        outln!("added     {name}");
    }
    for name in &report.replaced {
        outln!("replaced  {name}");
    }
    for skipped in &report.skipped {
        outln!("skipped   {}: {}", skipped.name, skipped.reason);
    }
    outln!(
        "{} added, {} replaced, {} skipped",
        report.added.len(),
        report.replaced.len(),
        report.skipped.len()
    );
}

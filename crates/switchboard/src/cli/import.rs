//! `switchboard import FILE`: add the servers of another client's configuration file.
//!
//! Each entry is added, replaced (only with `--replace`) or skipped with its reason; the file
//! is read in full and the servers file written once. Skipped entries do not make the command
//! fail, since the point is to bring over everything that can be brought over; they are listed
//! in the report (and under `skipped` with `--json`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use switchboard_core::ErrorCode;

use super::{CliError, Context};
use crate::import;
use crate::output;
use crate::server_file::Put;

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

pub fn run(context: &Context, args: ImportArgs) -> anyhow::Result<ExitCode> {
    let imported = import::read_file(&args.file)?;
    let file = context.server_file();
    let mut servers = file.load()?;
    let mut report = Report {
        format: imported.format.describe(),
        ..Report::default()
    };
    for entry in imported.entries {
        let spec = match entry.outcome {
            Ok(spec) => spec,
            Err(error) => {
                report.skipped.push(Skipped {
                    name: entry.name,
                    code: error.code(),
                    reason: error.to_string(),
                });
                continue;
            }
        };
        match servers.put(spec, args.replace) {
            Ok(Put::Added) => report.added.push(entry.name),
            Ok(Put::Replaced) => report.replaced.push(entry.name),
            Err(clash) => {
                let error = CliError::from(clash);
                report.skipped.push(Skipped {
                    name: entry.name,
                    code: ErrorCode::Conflict,
                    reason: error.to_string(),
                });
            }
        }
    }
    if !report.added.is_empty() || !report.replaced.is_empty() {
        file.save(&servers)?;
    }

    if context.json {
        output::print_json(&report);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(report: &Report) {
    println!("read {}", report.format);
    for name in &report.added {
        println!("added     {name}");
    }
    for name in &report.replaced {
        println!("replaced  {name}");
    }
    for skipped in &report.skipped {
        println!("skipped   {}: {}", skipped.name, skipped.reason);
    }
    println!(
        "{} added, {} replaced, {} skipped",
        report.added.len(),
        report.replaced.len(),
        report.skipped.len()
    );
}

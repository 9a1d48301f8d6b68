//! `switchboard schema convert`: what a tool's schema becomes for one provider.
//!
//! Reads a tool (`{name, description, inputSchema}`), a bare schema, or a `tools/list` result
//! from a file or stdin, and prints a JSON array holding, for each tool, exactly the entry that
//! goes into that provider's `tools` array. Tools that fail, and why a tool is not strict, are
//! reported on stderr; any failed tool makes the exit status non-zero, after the others are
//! printed.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use switchboard_schema::{ConvertOptions, Dialect, ResolveOptions, convert_tools, parse_tools};

#[derive(Debug, Subcommand)]
pub enum SchemaCommand {
    /// Print each tool's entry for the provider's `tools` array.
    Convert(ConvertArgs),
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// openai, openai-strict, anthropic, gemini or gemini-json.
    #[arg(long)]
    pub dialect: Dialect,
    /// How many references may be inlined inside one another before pruning.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// The JSON to convert; stdin when absent.
    pub file: Option<PathBuf>,
}

pub fn run(command: SchemaCommand) -> anyhow::Result<ExitCode> {
    match command {
        SchemaCommand::Convert(args) => convert(args),
    }
}

fn convert(args: ConvertArgs) -> anyhow::Result<ExitCode> {
    let text = match &args.file {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read stdin")?;
            text
        }
    };
    let document: serde_json::Value =
        serde_json::from_str(&text).context("the input is not JSON")?;
    let parsed = parse_tools(&document)?;
    let mut resolve = ResolveOptions::default();
    if let Some(depth) = args.depth {
        resolve.max_depth = depth;
    }
    let (converted, mut errors) =
        convert_tools(&parsed.tools, args.dialect, &ConvertOptions { resolve });
    errors.extend(parsed.errors);
    for tool in &converted {
        if let Some(reason) = &tool.not_strict_reason {
            errln!("{}: not strict: {reason}", tool.name);
        }
    }
    for error in &errors {
        errln!("error {error}");
    }
    let entries: Vec<&serde_json::Value> = converted.iter().map(|tool| &tool.entry).collect();
    outln!("{}", serde_json::to_string_pretty(&entries)?);
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

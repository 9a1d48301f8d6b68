//! `switchboard config show`: every effective setting, in TOML, with where it came from
//! (default, the file, an environment variable, a flag). It takes the same flags as `serve`,
//! so it shows what `serve` with those flags would run with. Credentials are shown as set,
//! never as their value.

use std::process::ExitCode;

use serde::Serialize;

use super::Context;
use crate::settings::{Settings, SettingsFlags, Shown};

#[derive(Debug, clap::Subcommand)]
pub enum ConfigCommand {
    /// Print every effective setting and where it came from.
    Show(ShowArgs),
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub settings: SettingsFlags,
}

pub fn run(context: &Context, command: ConfigCommand) -> anyhow::Result<ExitCode> {
    let ConfigCommand::Show(args) = command;
    let file = context.global.settings_file();
    let env = |name: &str| std::env::var(name).ok();
    let loaded = Settings::load(&file, &env, &args.settings, &context.global.store_shown())?;
    if context.json {
        let rows: Vec<Row<'_>> = loaded.shown.iter().map(Row::from).collect();
        crate::output::print_json(&rows);
        return Ok(ExitCode::SUCCESS);
    }
    match &loaded.file {
        Some(path) => outln!("# settings file: {}", path.display()),
        None => outln!("# settings file: none"),
    }
    let mut section = "";
    for shown in &loaded.shown {
        let (this, name) = shown.key.rsplit_once('.').unwrap_or(("", &shown.key));
        if this != section {
            outln!("\n[{this}]");
            section = this;
        }
        outln!("{name} = {}  # {}", shown.value, shown.origin);
    }
    Ok(ExitCode::SUCCESS)
}

/// One setting in `--json` output.
#[derive(Serialize)]
struct Row<'a> {
    key: &'a str,
    /// TOML syntax.
    value: &'a str,
    origin: String,
    env: Option<&'static str>,
    flag: Option<&'static str>,
}

impl<'a> From<&'a Shown> for Row<'a> {
    fn from(shown: &'a Shown) -> Self {
        Self {
            key: &shown.key,
            value: &shown.value,
            origin: shown.origin.to_string(),
            env: shown.env,
            flag: shown.flag,
        }
    }
}

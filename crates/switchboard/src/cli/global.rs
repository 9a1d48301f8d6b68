//! The global options: where the data, the store and the settings file are, and how to print.
//!
//! They may come before or after the subcommand. The store's secret key is read from
//! `SWITCHBOARD_SECRET_KEY` only: a key typed on the command line would sit in the shell's
//! history and in every process listing, so the hidden option behind the variable refuses a
//! value given as `--secret-key` ([`refuse_secret_on_command_line`]).

use std::convert::Infallible;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args};
use switchboard_store::StoreConfig;

use crate::settings::{FileChoice, Origin, StoreShown};

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Where Switchboard keeps its data (the SQLite database and the key file).
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "SWITCHBOARD_DATA_DIR",
        default_value = "./switchboard-data"
    )]
    pub data_dir: PathBuf,
    /// The database: postgres://USER:PASSWORD@HOST/DB for Postgres, or sqlite:PATH; by
    /// default switchboard.db in the data directory.
    #[arg(
        long,
        global = true,
        value_name = "URL",
        env = "DATABASE_URL",
        hide_env_values = true,
        value_parser = hidden
    )]
    pub database_url: Option<Hidden>,
    /// The key that encrypts stored secrets (base64 of 32 bytes); environment only.
    #[arg(
        id = SECRET_KEY,
        long = "secret-key",
        global = true,
        hide = true,
        env = "SWITCHBOARD_SECRET_KEY",
        hide_env_values = true,
        value_parser = hidden
    )]
    pub secret_key: Option<Hidden>,
    /// The settings file (TOML); by default switchboard.toml in the data directory, read
    /// when it exists. A file named here must exist.
    #[arg(long, global = true, value_name = "FILE", env = "SWITCHBOARD_CONFIG")]
    pub config: Option<PathBuf>,
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Act as this user of the store [default: `local` if it exists, else the first admin
    /// (the one `serve` made on first start), so the command line and the web UI see the
    /// same servers].
    #[arg(long, global = true, value_name = "NAME", env = "SWITCHBOARD_USER")]
    pub user: Option<String>,
    /// Where clap found the store's options, for `config show`.
    #[arg(skip)]
    pub origins: StoreOrigins,
}

/// Where clap found each of the store's options (`None`: not given, the default).
#[derive(Debug, Clone, Default)]
pub struct StoreOrigins {
    pub data_dir: Option<Origin>,
    pub database_url: Option<Origin>,
    pub secret_key: Option<Origin>,
}

impl StoreOrigins {
    pub fn from_matches(matches: &ArgMatches) -> Self {
        let origin =
            |id: &str, env: &'static str, flag: &'static str| match matches.value_source(id) {
                Some(ValueSource::CommandLine) => Some(Origin::Flag(flag)),
                Some(ValueSource::EnvVariable) => Some(Origin::Env(env)),
                _ => None,
            };
        Self {
            data_dir: origin("data_dir", "SWITCHBOARD_DATA_DIR", "--data-dir"),
            database_url: origin("database_url", "DATABASE_URL", "--database-url"),
            secret_key: origin(SECRET_KEY, "SWITCHBOARD_SECRET_KEY", "--secret-key"),
        }
    }
}

const SECRET_KEY: &str = "secret_key";

/// A value that may hold a credential (a key, a database password): `Debug` never shows it.
#[derive(Clone)]
pub struct Hidden(pub String);

impl std::fmt::Debug for Hidden {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

fn hidden(text: &str) -> Result<Hidden, Infallible> {
    Ok(Hidden(text.to_owned()))
}

impl GlobalArgs {
    /// Where the store is, as the storage crate takes it.
    pub fn store_config(&self) -> StoreConfig {
        StoreConfig {
            data_dir: self.data_dir.clone(),
            database_url: self.database_url.as_ref().map(|url| url.0.clone()),
            secret_key: self.secret_key.as_ref().map(|key| key.0.clone()),
        }
    }
}

impl GlobalArgs {
    /// Where the settings file is.
    pub fn settings_file(&self) -> FileChoice {
        crate::settings::file_choice(self.config.as_deref(), &self.data_dir)
    }

    /// The store's options as `config show` prints them.
    pub fn store_shown(&self) -> StoreShown {
        StoreShown {
            data_dir: self.data_dir.clone(),
            data_dir_origin: self.origins.data_dir.clone(),
            database_url_origin: self.origins.database_url.clone(),
            secret_key_origin: self.origins.secret_key.clone(),
        }
    }
}

/// Refuses a secret key given on the command line rather than in `SWITCHBOARD_SECRET_KEY`.
pub fn refuse_secret_on_command_line(matches: &ArgMatches) -> Result<(), &'static str> {
    if matches.value_source(SECRET_KEY) == Some(ValueSource::CommandLine) {
        return Err(
            "the secret key is read from SWITCHBOARD_SECRET_KEY only; a key on the \
                    command line would show in process listings and shell history",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches};

    use super::*;
    use crate::cli::Cli;

    fn parse(argv: &[&str]) -> ArgMatches {
        Cli::command()
            .try_get_matches_from(argv)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_store_config_comes_from_the_options() {
        let matches = parse(&[
            "switchboard",
            "servers",
            "list",
            "--data-dir",
            "/d",
            "--database-url",
            "postgres://u:pw@h/db",
        ]);
        let cli = Cli::from_arg_matches(&matches).unwrap();
        let config = cli.global.store_config();
        assert_eq!(config.data_dir, PathBuf::from("/d"));
        assert_eq!(config.database_url.as_deref(), Some("postgres://u:pw@h/db"));
        assert!(!format!("{cli:?}").contains("pw"), "{cli:?}");
    }

    #[test]
    fn a_secret_key_on_the_command_line_is_refused_and_never_printed() {
        for argv in [
            ["switchboard", "--secret-key", "k3y", "servers", "list"],
            ["switchboard", "servers", "list", "--secret-key", "k3y"],
        ] {
            let matches = parse(&argv);
            assert!(refuse_secret_on_command_line(&matches).is_err(), "{argv:?}");
            let cli = Cli::from_arg_matches(&matches).unwrap();
            assert!(!format!("{cli:?}").contains("k3y"));
        }
        let plain = parse(&["switchboard", "servers", "list"]);
        assert!(refuse_secret_on_command_line(&plain).is_ok());
    }
}

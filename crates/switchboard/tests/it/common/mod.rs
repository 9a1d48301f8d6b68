//! Running the built `switchboard` binary against a throw-away data directory.

#![allow(dead_code)] // each test file uses a different part

pub mod certs;
pub mod gateway;
pub mod node;
pub mod postgres;
pub mod rest;
pub mod serve;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

/// Variables of the environment that choose a provider; the child gets only those a test sets.
pub const PROVIDER_VARS: [&str; 6] = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
];

/// A fixture file under `tests/fixtures`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// One data directory, removed when dropped.
pub struct Switchboard {
    dir: tempfile::TempDir,
}

/// What one run printed and how it ended.
#[derive(Debug)]
pub struct Run {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts the run succeeded and returns it.
    #[track_caller]
    pub fn ok(self) -> Self {
        assert!(self.success, "command failed: {self:#?}");
        self
    }

    /// Asserts the run failed and returns it.
    #[track_caller]
    pub fn failed(self) -> Self {
        assert!(!self.success, "command succeeded: {self:#?}");
        self
    }

    /// stdout parsed as JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:#?}"))
    }
}

impl Switchboard {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The servers file of earlier versions.
    pub fn servers_file(&self) -> PathBuf {
        self.data_dir().join("servers.json")
    }

    /// The SQLite database.
    pub fn database(&self) -> PathBuf {
        self.data_dir().join("switchboard.db")
    }

    /// The bytes of the database and of its write-ahead log (where recent commits may still
    /// be), one after the other.
    pub fn database_bytes(&self) -> Vec<u8> {
        let mut bytes = std::fs::read(self.database()).expect("read switchboard.db");
        if let Ok(wal) = std::fs::read(self.data_dir().join("switchboard.db-wal")) {
            bytes.extend(wal);
        }
        bytes
    }

    /// Runs `switchboard --data-dir <dir> ARGS...`.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_env(args, &[])
    }

    /// Runs `switchboard --data-dir <dir> ARGS...` with extra environment variables.
    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let data_dir = self.data_dir();
        let mut full = vec!["--data-dir", data_dir.to_str().expect("utf-8 temp path")];
        full.extend_from_slice(args);
        run_raw(&full, env)
    }
}

/// Runs the binary with exactly these arguments and extra environment variables (for the
/// child only), with the variables that configure Switchboard (`SWITCHBOARD_DATA_DIR`,
/// `DATABASE_URL`, `SWITCHBOARD_SECRET_KEY`) and `RUST_LOG` removed.
pub fn run_raw(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_KEY")
        .env_remove("RUST_LOG");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run switchboard");
    Run {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

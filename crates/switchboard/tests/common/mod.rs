//! Running the built `switchboard` binary against a throw-away data directory.

#![allow(dead_code)] // each test file uses a different part

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

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

    pub fn servers_file(&self) -> PathBuf {
        self.data_dir().join("servers.json")
    }

    /// Runs `switchboard --data-dir <dir> ARGS...`.
    pub fn run(&self, args: &[&str]) -> Run {
        let data_dir = self.data_dir();
        let mut full = vec!["--data-dir", data_dir.to_str().expect("utf-8 temp path")];
        full.extend_from_slice(args);
        run_raw(&full, &[])
    }
}

/// Runs the binary with exactly these arguments and extra environment variables (for the
/// child only), with `SWITCHBOARD_DATA_DIR` and `RUST_LOG` removed.
pub fn run_raw(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
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

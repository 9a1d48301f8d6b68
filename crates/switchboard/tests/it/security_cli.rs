//! The command line against a reader that went away: `switchboard --json users tokens NAME |
//! head -c1` used to panic on the broken pipe. Every command now ends quietly.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::{Command, Stdio};

use common::{BIN, Switchboard};

/// Runs `args` with a stdout whose reading end is already closed, as `| head -c1` leaves it
/// once `head` has its byte.
fn with_closed_stdout(sb: &Switchboard, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(BIN)
        .arg("--data-dir")
        .arg(sb.data_dir())
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_KEY")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let sb = Switchboard::new();
    sb.run(&["users", "add", "ann"]).ok();
    sb.run(&["servers", "add", "files", "--", "npx", "-y", "x"]);
    let commands: [&[&str]; 6] = [
        &["--json", "users", "tokens", "ann"],
        &["users", "tokens", "ann"],
        &["--json", "users", "list"],
        &["users", "list"],
        &["servers", "list"],
        &["--json", "users", "token", "ann"],
    ];
    for args in commands {
        let output = with_closed_stdout(&sb, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            output.status.success(),
            "{args:?}: {:?} {stderr}",
            output.status
        );
    }
}

//! `switchboard serve` as a child process on a free port, with its token read from its
//! first output, and ended with SIGTERM.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::{BIN, PROVIDER_VARS, Switchboard};

pub struct Served {
    pub child: Child,
    pub base: String,
    pub token: Option<String>,
}

pub fn serve(sb: &Switchboard, extra: &[&str]) -> Served {
    serve_with_env(sb, extra, &[])
}

/// `serve` with `env` set and no provider variables but those.
pub fn serve_with_env(sb: &Switchboard, extra: &[&str], env: &[(&str, &str)]) -> Served {
    serve_program(BIN, sb, extra, env)
}

/// `serve` of the binary at `program` (a release build, for a long load run).
pub fn serve_program(
    program: &str,
    sb: &Switchboard,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Served {
    let mut command = Command::new(program);
    for var in PROVIDER_VARS {
        command.env_remove(var);
    }
    let mut child = command
        .envs(env.iter().copied())
        .arg("--data-dir")
        .arg(sb.data_dir())
        .args(["serve", "--listen", "127.0.0.1:0"])
        // Seed 002's retries stay on, without their 1 s, 2 s, 4 s waits: a test of an
        // unreachable server answers at once instead of 7 s later. A test's own flags win.
        .args(["--retry-initial-delay", "1ms", "--retry-max-delay", "1ms"])
        .args(extra)
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let base = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "serve ended early"
        );
        if let Some(url) = line.trim().strip_prefix("switchboard is listening on ") {
            break url.to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in stderr.lines() {});
    let token = if extra.contains(&"--single-user") {
        None
    } else {
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        line.trim()
            .strip_prefix("admin API token (shown once, keep it): ")
            .map(str::to_owned)
    };
    Served { child, base, token }
}

pub async fn get(served: &Served, path: &str) -> (reqwest::StatusCode, Value) {
    let mut request = reqwest::Client::new().get(format!("{}{path}", served.base));
    if let Some(token) = &served.token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

pub fn terminate(served: &mut Served) -> std::process::ExitStatus {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(served.child.id()).unwrap()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    served.child.wait().unwrap()
}

//! Local servers: a child process speaking JSON-RPC lines over stdin and stdout.
//!
//! The child is started in a process group of its own, so ending the group ends everything the
//! server started too (a server that runs `npx` or a shell script is several processes deep).
//! Its stderr is read into our logs line by line rather than inherited, and the last lines are
//! kept to explain a server that dies while connecting. It does not inherit Switchboard's whole
//! environment ([`child_env`](super::child_env)).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::transport::TokioChildProcess;
use switchboard_core::ServerSpec;
use tokio::process::ChildStderr;
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};
use tokio_util::sync::CancellationToken;

use crate::error::McpError;

const STDERR_TAIL_LINES: usize = 20;
const MAX_STDERR_LINE: usize = 8 * 1024;

/// A started stdio server: the rmcp transport over its pipes, plus what we need to end it.
pub(crate) struct StdioProcess {
    pub(crate) transport: TokioChildProcess,
    pub(crate) group: ProcessGroupGuard,
    pub(crate) stderr: StderrTail,
}

/// Starts the server's command. `command` must be present (checked by `ServerSpec::validate`).
pub(crate) fn spawn(spec: &ServerSpec) -> Result<StdioProcess, McpError> {
    let program = spec.command.clone().unwrap_or_default();
    let mut command = tokio::process::Command::new(&program);
    command
        .args(&spec.args)
        .env_clear()
        .envs(super::child_env::child_env(std::env::vars_os(), &spec.env));
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    let mut wrapped = CommandWrap::from(command);
    wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);

    let (transport, stderr) = TokioChildProcess::builder(wrapped)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|source| McpError::Spawn {
            command: program.clone(),
            source,
        })?;
    let pid = transport.id().ok_or_else(|| McpError::Spawn {
        command: program.clone(),
        source: std::io::Error::other("the process exited before its id could be read"),
    })?;
    let tail = StderrTail::default();
    if let Some(stderr) = stderr {
        tokio::spawn(forward_stderr(spec.name.clone(), stderr, tail.clone()));
    }
    tracing::debug!(server = %spec.name, pid, "started stdio server");
    Ok(StdioProcess {
        transport,
        group: ProcessGroupGuard { pgid: pid },
        stderr: tail,
    })
}

/// The last lines a server wrote to stderr.
#[derive(Debug, Clone, Default)]
pub(crate) struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    /// Cancelled once stderr reached its end.
    closed: CancellationToken,
}

impl StderrTail {
    fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The tail once the server has closed stderr (it exited), waiting at most `within` for
    /// that: the reader may not have caught up with a process that just died.
    pub(crate) async fn text_after_exit(&self, within: Duration) -> Option<String> {
        let _ = tokio::time::timeout(within, self.closed.cancelled()).await;
        self.text()
    }

    pub(crate) fn text(&self) -> Option<String> {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.is_empty() {
            return None;
        }
        Some(lines.iter().cloned().collect::<Vec<_>>().join("\n"))
    }
}

async fn forward_stderr(server: String, stderr: ChildStderr, tail: StderrTail) {
    // Lines are capped so a server writing without newlines cannot grow our memory; the rest
    // of an overlong line is skipped by the codec.
    let mut lines = FramedRead::new(stderr, LinesCodec::new_with_max_length(MAX_STDERR_LINE));
    while let Some(line) = lines.next().await {
        match line {
            Ok(line) => {
                tracing::info!(target: "switchboard_mcp::server_stderr", server = %server, "{line}");
                tail.push(line);
            }
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                tail.push(format!(
                    "[a line longer than {MAX_STDERR_LINE} bytes was cut]"
                ));
            }
            Err(LinesCodecError::Io(_)) => break,
        }
    }
    tail.closed.cancel();
}

/// Ends the server's whole process group when dropped or killed, whatever the server left
/// running. Killing is idempotent.
#[derive(Debug)]
pub(crate) struct ProcessGroupGuard {
    pgid: u32,
}

impl ProcessGroupGuard {
    pub(crate) fn pgid(&self) -> u32 {
        self.pgid
    }

    pub(crate) fn kill(&self) {
        let Ok(pgid) = i32::try_from(self.pgid) else {
            return;
        };
        // ESRCH (the group is already gone) is the expected outcome after a clean exit.
        match killpg(Pid::from_raw(pgid), Signal::SIGKILL) {
            Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
            Err(error) => tracing::warn!(pgid, %error, "could not kill server process group"),
        }
    }
}

impl Drop for ProcessGroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

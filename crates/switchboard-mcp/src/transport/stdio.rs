//! Local servers: a child process speaking JSON-RPC lines over stdin and stdout.
//!
//! The child is started in a process group of its own, so ending the group ends everything the
//! server started too (a server that runs `npx` or a shell script is several processes deep).
//! Its stderr is read into our logs line by line rather than inherited, and the last lines are
//! kept to explain a server that dies while connecting. It does not inherit Switchboard's whole
//! environment ([`child_env`](super::child_env)).
//!
//! With a [guard](crate::guard) configured, the child is the guard, which runs the server:
//! then the server ends with this process even when it is killed, and so does whatever the
//! server started outside its group. Either way the processes below the child are killed
//! before the group ([`ProcessGroupGuard`]), so a grandchild that left the group with `setsid`
//! is not handed to init first.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use switchboard_core::ServerSpec;
use tokio::process::ChildStderr;
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};
use tokio_util::sync::CancellationToken;

use super::stdio_pipes::StdioPipes;
use crate::error::McpError;

const MAX_STDERR_LINE: usize = 8 * 1024;
/// What an error may quote of a server's stderr: its last lines, each cut short, and no more
/// than this in all. Errors travel to the API, events and logs, and a server writes what it
/// likes (a member's server could write a file it read); the whole stream is in the logs.
const QUOTED_LINES: usize = 8;
const QUOTED_LINE_CHARS: usize = 200;
const QUOTED_BYTES: usize = 1024;

/// A started stdio server: the transport over its pipes, plus what we need to end it.
pub(crate) struct StdioProcess {
    pub(crate) transport: StdioPipes,
    pub(crate) group: ProcessGroupGuard,
    pub(crate) stderr: StderrTail,
}

/// Starts the server's command, under `guard` when one is given. `command` must be present
/// (checked by `ServerSpec::validate`).
pub(crate) fn spawn(spec: &ServerSpec, guard: Option<&Path>) -> Result<StdioProcess, McpError> {
    let program = spec.command.clone().unwrap_or_default();
    let spawn_error = |cause| McpError::Spawn {
        command: program.clone(),
        cause,
    };
    let env = super::child_env::child_env(std::env::vars_os(), &spec.env);
    let mut command = match guard {
        Some(guard) => {
            let path = env.iter().find(|(key, _)| key == "PATH");
            super::program::find(
                &program,
                path.map(|(_, value)| value.as_os_str()),
                spec.cwd.as_deref(),
            )
            .map_err(spawn_error)?;
            let mut command = tokio::process::Command::new(guard);
            command
                .arg("guard")
                .arg("--parent")
                .arg(std::process::id().to_string())
                .arg("--")
                .arg(&program);
            command
        }
        None => tokio::process::Command::new(&program),
    };
    command.args(&spec.args).env_clear().envs(env);
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    let mut wrapped = CommandWrap::from(command);
    wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);

    let (transport, stderr) = StdioPipes::spawn(wrapped).map_err(spawn_error)?;
    let pid = transport.id().ok_or_else(|| {
        spawn_error(std::io::Error::other(
            "the process exited before its id could be read",
        ))
    })?;
    let tail = StderrTail::default();
    if let Some(stderr) = stderr {
        tokio::spawn(forward_stderr(
            spec.name.clone(),
            spec.redactor(),
            stderr,
            tail.clone(),
        ));
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
        let line = quotable(&line);
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == QUOTED_LINES {
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

    /// The last lines, newest kept, within [`QUOTED_BYTES`].
    pub(crate) fn text(&self) -> Option<String> {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        let mut kept = Vec::new();
        let mut bytes = 0;
        for line in lines.iter().rev() {
            bytes += line.len() + 1;
            if bytes > QUOTED_BYTES {
                break;
            }
            kept.push(line.as_str());
        }
        if kept.is_empty() {
            return None;
        }
        kept.reverse();
        Some(kept.join("\n"))
    }
}

/// A stderr line as an error may quote it: control characters (terminal escapes) replaced,
/// cut after [`QUOTED_LINE_CHARS`].
fn quotable(line: &str) -> String {
    let mut quoted: String = line
        .chars()
        .take(QUOTED_LINE_CHARS)
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    if line.chars().nth(QUOTED_LINE_CHARS).is_some() {
        quoted.push('…');
    }
    quoted
}

/// Logs the server's stderr lines and keeps the last ones for errors to quote, with the
/// server's own secrets (`redactor`: its secret env values, credentials and URL secrets) cut
/// out of both, since a server may well print its configuration.
async fn forward_stderr(
    server: String,
    redactor: switchboard_core::spec::Redactor,
    stderr: ChildStderr,
    tail: StderrTail,
) {
    // Lines are capped so a server writing without newlines cannot grow our memory; the rest
    // of an overlong line is skipped by the codec.
    let mut lines = FramedRead::new(stderr, LinesCodec::new_with_max_length(MAX_STDERR_LINE));
    while let Some(line) = lines.next().await {
        match line {
            Ok(mut line) => {
                redactor.redact_in_place(&mut line);
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
/// running, and first every process below the group's leader, in the group or not. Killing
/// is idempotent.
#[derive(Debug)]
pub(crate) struct ProcessGroupGuard {
    /// The group's id, the pid of its leader: the server, or the guard running it.
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
        kill_below(self.pgid);
        // ESRCH (the group is already gone) is the expected outcome after a clean exit.
        match killpg(Pid::from_raw(pgid), Signal::SIGKILL) {
            Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
            Err(error) => tracing::warn!(pgid, %error, "could not kill server process group"),
        }
    }
}

/// Kills every process below `leader`, our child, while it still runs: once it is gone, its
/// orphans are handed to init, where no walk from it finds them.
pub(crate) fn kill_below(leader: u32) {
    if !crate::guard::tree::is_running_child(leader) {
        return;
    }
    let left = crate::guard::tree::kill_descendants(leader, crate::guard::tree::KILL_WAIT, || {});
    if !left.is_empty() {
        tracing::warn!(
            leader,
            ?left,
            "could not kill every process a server started"
        );
    }
}

impl Drop for ProcessGroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quoted_tail_is_the_last_lines_cut_short_and_capped() {
        let tail = StderrTail::default();
        assert_eq!(tail.text(), None);
        for i in 0..100 {
            tail.push(format!("line {i}"));
        }
        let text = tail.text().unwrap();
        assert_eq!(text.lines().count(), QUOTED_LINES);
        assert!(text.ends_with("line 99"), "{text}");
        assert!(!text.contains("line 91"), "{text}");

        let tail = StderrTail::default();
        tail.push("first".into());
        for _ in 0..QUOTED_LINES {
            tail.push("k".repeat(5000));
        }
        let text = tail.text().unwrap();
        assert!(text.len() <= QUOTED_BYTES, "{}", text.len());
        assert!(!text.contains("first"));
        assert!(text.ends_with('…'));

        let tail = StderrTail::default();
        tail.push("\u{1b}[31mred\u{7}".into());
        assert_eq!(tail.text().unwrap(), "\u{fffd}[31mred\u{fffd}");
    }
}

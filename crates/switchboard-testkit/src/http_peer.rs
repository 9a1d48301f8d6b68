//! A reference MCP server running as an HTTP process on 127.0.0.1, owned by one test.
//!
//! The process is the leader of its own process group and the whole group is killed when the
//! [`HttpPeer`] is killed, restarted or dropped. Readiness is read from the server's own
//! output, never guessed with a sleep: the Python peers print `LISTENING <port>` once they
//! accept connections; server-everything prints its "listening"/"running" line from inside
//! its `listen` callback, after which the port it bound is read from `/proc`.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessGroup};
use tokio::time::Instant;

use crate::output::OutputTail;
use crate::process;

/// How long a peer may take from spawn to ready. Generous: the machine may be busy compiling.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the processes of a killed peer may take to disappear.
const KILL_TIMEOUT: Duration = Duration::from_secs(10);
/// The line prefix the Python peers print once they accept connections.
const ANNOUNCED_PORT_PREFIX: &str = "LISTENING ";

/// How the port is passed to the server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PortOption {
    /// `--port N` on the command line (Python peers).
    Flag,
    /// The `PORT` environment variable (server-everything).
    EnvVar,
}

/// How the launcher knows the server is ready, and on which port.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Readiness {
    /// A `LISTENING <port>` line.
    AnnouncedPort,
    /// A line containing this text; the port is then read from `/proc`.
    LogLine(&'static str),
}

/// Everything needed to start (and restart) one HTTP peer.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub(crate) name: String,
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) port_option: PortOption,
    pub(crate) readiness: Readiness,
    /// The MCP endpoint's path, `/mcp` or `/sse`.
    pub(crate) path: &'static str,
}

/// A running HTTP MCP server owned by the caller. See the [module docs](self).
///
/// Belongs to the tokio runtime it was started on (its output is drained by tasks of that
/// runtime), so create it inside the test that uses it.
#[derive(Debug)]
pub struct HttpPeer {
    launch: Launch,
    port: u16,
    running: Option<Running>,
}

#[derive(Debug)]
struct Running {
    child: GroupLeader,
    pid: u32,
    output: OutputTail,
}

impl HttpPeer {
    /// Starts the server on a port of its choosing and waits until it accepts connections.
    pub(crate) async fn start(launch: Launch) -> Result<Self> {
        let (running, port) = start_process(&launch, 0).await?;
        Ok(Self {
            launch,
            port,
            running: Some(running),
        })
    }

    /// The MCP endpoint: `http://127.0.0.1:PORT/mcp` (Streamable HTTP) or `.../sse` (legacy SSE).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}{}", self.port, self.launch.path)
    }

    /// The TCP port on 127.0.0.1. It stays the same across [`restart`](Self::restart).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's pid, which is also its process group id; `None` once killed.
    pub fn pid(&self) -> Option<u32> {
        self.running.as_ref().map(|r| r.pid)
    }

    /// The server's recent output (both streams, labelled), for assertion messages.
    pub fn output(&self) -> String {
        self.running
            .as_ref()
            .map(|r| r.output.text())
            .unwrap_or_default()
    }

    /// Kills the server's whole process group with `SIGKILL` and waits until every process of
    /// the group is gone. Killing a peer that is not running does nothing.
    pub async fn kill(&mut self) -> Result<()> {
        let Some(mut running) = self.running.take() else {
            return Ok(());
        };
        running.child.kill_group();
        tokio::time::timeout(KILL_TIMEOUT, running.child.0.wait())
            .await
            .map_err(|_| {
                anyhow!(
                    "{} (pid {}) did not exit after SIGKILL",
                    self.launch.name,
                    running.pid
                )
            })?
            .with_context(|| format!("waiting for {} to exit", self.launch.name))?;
        let left = process::wait_until_group_gone(running.pid, KILL_TIMEOUT).await;
        if !left.is_empty() {
            bail!(
                "processes of {} still alive after SIGKILL: {left:?}",
                self.launch.name
            );
        }
        Ok(())
    }

    /// Kills the server (as [`kill`](Self::kill)) and starts it again on the same port, for
    /// tests of session loss and re-establishment. All server state (sessions, counters) is
    /// lost; the URL stays the same.
    pub async fn restart(&mut self) -> Result<()> {
        self.kill().await?;
        let (running, port) = start_process(&self.launch, self.port).await?;
        debug_assert_eq!(port, self.port);
        self.running = Some(running);
        Ok(())
    }
}

/// The leader of a process group we started; dropping it kills the whole group.
#[derive(Debug)]
struct GroupLeader(Box<dyn ChildWrapper>);

impl GroupLeader {
    fn kill_group(&mut self) {
        // ESRCH (nothing left in the group) is the only expected error, and harmless.
        let _ = self.0.start_kill();
    }
}

impl Drop for GroupLeader {
    fn drop(&mut self) {
        self.kill_group();
    }
}

/// Spawns `launch` asking for `port` (0: any) and waits for readiness; returns the running
/// process and the port it listens on.
async fn start_process(launch: &Launch, port: u16) -> Result<(Running, u16)> {
    let mut wrap = CommandWrap::with_new(&launch.program, |command| {
        command
            .args(&launch.args)
            .envs(launch.env.iter().cloned())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        match launch.port_option {
            PortOption::Flag => {
                command.arg("--port").arg(port.to_string());
            }
            PortOption::EnvVar => {
                command.env("PORT", port.to_string());
            }
        }
    });
    wrap.wrap(ProcessGroup::leader());
    let mut child = GroupLeader(
        wrap.spawn()
            .with_context(|| format!("spawning {} ({})", launch.name, launch.program.display()))?,
    );
    let pid = child
        .0
        .id()
        .ok_or_else(|| anyhow!("{} exited before its pid was read", launch.name))?;
    let stdout = child.0.stdout().take();
    let stderr = child.0.stderr().take();
    let (output, mut lines) = OutputTail::capture(&launch.name, stdout, stderr);

    let deadline = Instant::now() + STARTUP_TIMEOUT;
    let mut streams_open = true;
    let bound = loop {
        tokio::select! {
            line = lines.recv(), if streams_open => match line {
                Some(line) => {
                    if let Some(bound) = ready_port(launch.readiness, &line, pid, port)? {
                        break bound;
                    }
                }
                None => streams_open = false,
            },
            status = child.0.wait() => {
                let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
                bail!(
                    "{} exited before it was ready ({status}); its output:\n{}",
                    launch.name,
                    output.text()
                );
            }
            () = tokio::time::sleep_until(deadline) => {
                bail!(
                    "{} was not ready within {STARTUP_TIMEOUT:?}; its output:\n{}",
                    launch.name,
                    output.text()
                );
            }
        }
    };
    Ok((Running { child, pid, output }, bound))
}

/// The bound port if `line` says the server is ready, else `None`.
fn ready_port(readiness: Readiness, line: &str, pid: u32, requested: u16) -> Result<Option<u16>> {
    match readiness {
        Readiness::AnnouncedPort => Ok(line
            .trim()
            .strip_prefix(ANNOUNCED_PORT_PREFIX)
            .and_then(|port| port.trim().parse().ok())),
        Readiness::LogLine(marker) if line.contains(marker) => {
            if requested != 0 {
                return Ok(Some(requested));
            }
            // The server prints the port it was asked for (0); ask the kernel what it bound.
            match process::listening_ports(pid).as_slice() {
                [port] => Ok(Some(*port)),
                ports => bail!("expected pid {pid} to listen on exactly one port, found {ports:?}"),
            }
        }
        Readiness::LogLine(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announced_port_lines_are_recognised() {
        let ready = |line| ready_port(Readiness::AnnouncedPort, line, 0, 0).expect("no error");
        assert_eq!(ready("LISTENING 4321"), Some(4321));
        assert_eq!(ready("LISTENING 4321\r"), Some(4321));
        assert_eq!(ready("INFO: LISTENING soon"), None);
        assert_eq!(ready("LISTENING nope"), None);
    }

    #[test]
    fn log_lines_with_a_requested_port_need_no_proc_lookup() {
        let readiness = Readiness::LogLine("listening on port");
        let ready = |line| ready_port(readiness, line, 0, 5555).expect("no error");
        assert_eq!(
            ready("MCP Streamable HTTP Server listening on port 5555"),
            Some(5555)
        );
        assert_eq!(ready("Starting Streamable HTTP server..."), None);
    }
}

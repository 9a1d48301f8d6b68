//! `@copilotkit/aimock`'s `llmock` server: a model mock written by others, for checking our
//! provider clients against an implementation of the wire formats that is not our own.
//!
//! [`ScriptedLlm`](crate::ScriptedLlm) and the clients in `switchboard-llm` were written by the
//! same hands from the same reading of the API docs, so a shared misreading would pass every
//! test between them. aimock (pinned in `scripts/peers/package.json`) serves OpenAI chat
//! completions on `/v1/chat/completions` and Anthropic Messages on `/v1/messages`, streaming
//! included, from JSON fixtures matched on the last user message and on whether the current
//! turn carries a tool result (`{"match": {"userMessage": "...", "hasToolResult": true},
//! "response": {"content": "..."}}`, or `"response": {"toolCalls": [{"name", "arguments"}]}`).
//!
//! The launcher picks a free port, starts `llmock -p PORT -h 127.0.0.1 -f FIXTURES` on Node 24
//! as the leader of its own process group, and polls the port until it accepts connections
//! (aimock loads and validates its fixtures before it listens). The whole group is killed on
//! [`Aimock::kill`] and on drop.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessGroup};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::output::OutputTail;
use crate::peers::Peers;
use crate::process;

/// The `llmock` entry script under the peers directory.
pub const AIMOCK_CLI_JS: &str = "node/node_modules/@copilotkit/aimock/dist/cli.js";

/// How long aimock may take from spawn to accepting connections.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long its processes may take to disappear once killed.
const KILL_TIMEOUT: Duration = Duration::from_secs(10);
/// The pause between two connection attempts while it starts.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// A running aimock (`llmock`) server owned by one test, in its own process group, killed on
/// [`Aimock::kill`] and on drop.
///
/// Belongs to the tokio runtime it was started on; create it inside the test that uses it.
#[derive(Debug)]
pub struct Aimock {
    port: u16,
    pid: u32,
    child: Option<Box<dyn ChildWrapper>>,
    output: OutputTail,
}

impl Aimock {
    /// Starts aimock on a free port of 127.0.0.1, serving the fixtures in `fixtures` (a
    /// directory of `*.json` files, or one file), and waits until it accepts connections.
    pub async fn start(peers: &Peers, fixtures: &Path) -> Result<Aimock> {
        let cli = Self::cli_js(peers);
        if !cli.exists() {
            bail!(
                "test peers not installed: run scripts/test.sh --install-only ({} is missing)",
                cli.display()
            );
        }
        let port = free_port()?;
        let mut wrap = CommandWrap::with_new(peers.node22(), |command| {
            command
                .arg(&cli)
                .args(["-p", &port.to_string(), "-h", "127.0.0.1", "-f"])
                .arg(fixtures)
                .arg("--validate-on-load")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true);
        });
        wrap.wrap(ProcessGroup::leader());
        let mut child = wrap
            .spawn()
            .with_context(|| format!("spawning aimock ({})", peers.node22().display()))?;
        let pid = child
            .id()
            .ok_or_else(|| anyhow!("aimock exited before its pid was read"))?;
        let (output, _lines) =
            OutputTail::capture("aimock", child.stdout().take(), child.stderr().take());
        let mut aimock = Aimock {
            port,
            pid,
            child: Some(child),
            output,
        };
        aimock.wait_until_ready().await?;
        Ok(aimock)
    }

    /// The `llmock` entry script (run it with [`Peers::node22`]).
    pub fn cli_js(peers: &Peers) -> PathBuf {
        peers.root().join(AIMOCK_CLI_JS)
    }

    async fn wait_until_ready(&mut self) -> Result<()> {
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            if let Some(child) = self.child.as_mut()
                && let Some(status) = child.try_wait().context("polling aimock")?
            {
                bail!(
                    "aimock exited before it was ready ({status}); its output:\n{}",
                    self.output.text()
                );
            }
            if TcpStream::connect(("127.0.0.1", self.port)).await.is_ok() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!(
                    "aimock did not accept connections on port {} within {STARTUP_TIMEOUT:?}; its output:\n{}",
                    self.port,
                    self.output.text()
                );
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// The OpenAI base URL: `http://127.0.0.1:PORT/v1`.
    pub fn openai_base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The Anthropic base URL: `http://127.0.0.1:PORT`.
    pub fn anthropic_base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's pid, which is also its process group id; `None` once killed.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|_| self.pid)
    }

    /// Its recent output (both streams, labelled), for assertion messages.
    pub fn output(&self) -> String {
        self.output.text()
    }

    /// Kills the whole process group and waits until every process of it is gone.
    pub async fn kill(&mut self) -> Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        // ESRCH (the group is already gone) is the only expected error, and harmless.
        let _ = child.start_kill();
        tokio::time::timeout(KILL_TIMEOUT, child.wait())
            .await
            .map_err(|_| anyhow!("aimock (pid {}) did not exit after SIGKILL", self.pid))?
            .context("waiting for aimock to exit")?;
        let left = process::wait_until_group_gone(self.pid, KILL_TIMEOUT).await;
        if !left.is_empty() {
            bail!("processes of aimock still alive after SIGKILL: {left:?}");
        }
        Ok(())
    }
}

impl Drop for Aimock {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.start_kill();
        }
    }
}

/// A port of 127.0.0.1 that was free a moment ago (bound, read, released).
fn free_port() -> Result<u16> {
    let listener =
        std::net::TcpListener::bind(("127.0.0.1", 0)).context("binding 127.0.0.1:0 for aimock")?;
    Ok(listener.local_addr()?.port())
}

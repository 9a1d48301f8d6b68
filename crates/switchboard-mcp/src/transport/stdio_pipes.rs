//! [`StdioPipes`]: a stdio server's pipes as an rmcp transport, in place of rmcp's
//! `TokioChildProcess`, so that what the server writes is decoded by [`lines::decode`] (a
//! tool's answer read directly). Messages to the server are framed and written by
//! rmcp's own writer; the child is ended as `TokioChildProcess` ends it.
//!
//! Reading keeps a partly read line in the transport between calls: rmcp polls `receive`
//! inside a `select!` and drops it whenever something else is ready first, so a read must
//! resume where the dropped one left off.

use std::process::Stdio;
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::task::JoinHandle;

use super::lines::{self, Decoded};

/// The longest line read from a server (as rmcp's reader); a longer one is skipped whole.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// How long a server is given to exit once its stdin is closed, and again after `SIGTERM`.
const EXIT_WAIT: Duration = Duration::from_secs(3);

pub(crate) struct StdioPipes {
    /// `None` once the child has exited or been killed.
    child: Option<Box<dyn ChildWrapper>>,
    read: BufReader<ChildStdout>,
    /// The line being read, kept across cancelled reads.
    line: Vec<u8>,
    /// Skipping the rest of an overlong line.
    discarding: bool,
    /// rmcp's writer over stdin (its read side is never used).
    write: AsyncRwTransport<RoleClient, tokio::io::Empty, ChildStdin>,
    /// The `Invalid Request` reply being written, at most one: a server that sends bad lines
    /// and does not read its stdin must not pile up replies (or tasks) without end.
    replying: Option<JoinHandle<()>>,
}

enum Read {
    Line,
    Overlong,
    End,
}

impl StdioPipes {
    /// Starts `command` with its stdin, stdout and stderr piped; the stderr pipe is handed
    /// back for the caller to read.
    pub(crate) fn spawn(mut command: CommandWrap) -> std::io::Result<(Self, Option<ChildStderr>)> {
        command
            .command_mut()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn()?;
        let stdout = child.inner_mut().stdout().take();
        let stdin = child.inner_mut().stdin().take();
        let stderr = child.inner_mut().stderr().take();
        let (Some(stdout), Some(stdin)) = (stdout, stdin) else {
            return Err(std::io::Error::other(
                "the process's stdin or stdout is not a pipe",
            ));
        };
        Ok((Self::new(child, stdout, stdin), stderr))
    }

    fn new(child: Box<dyn ChildWrapper>, stdout: ChildStdout, stdin: ChildStdin) -> Self {
        Self {
            child: Some(child),
            read: BufReader::new(stdout),
            line: Vec::new(),
            discarding: false,
            write: AsyncRwTransport::new(tokio::io::empty(), stdin),
            replying: None,
        }
    }

    /// The child's process id, while it runs.
    pub(crate) fn id(&self) -> Option<u32> {
        self.child.as_ref()?.id()
    }

    /// Reads up to the end of the next line into `self.line` (cancel-safe: bytes are taken
    /// from the buffer only once they are kept).
    async fn read_line(&mut self) -> Read {
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) => return Read::End,
                Ok(available) => available,
                Err(error) => {
                    tracing::warn!(%error, "cannot read from the server's stdout");
                    return Read::End;
                }
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let outcome = if self.discarding {
                self.discarding = newline.is_none();
                None
            } else if self.line.len() + take > MAX_LINE {
                // The line's head stays for `receive` to find whose answer it was.
                let room = MAX_LINE - self.line.len();
                self.line
                    .extend_from_slice(&available[..room.min(available.len())]);
                self.discarding = newline.is_none();
                Some(Read::Overlong)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| Read::Line)
            };
            self.read.consume(take);
            if let Some(outcome) = outcome {
                return outcome;
            }
        }
    }

    /// Closes stdin and waits for the server to exit; then `SIGTERM`, then `SIGKILL` (the
    /// MCP stdio shutdown sequence, as `TokioChildProcess` does it).
    async fn shut_down(&mut self) -> std::io::Result<()> {
        // A reply stuck on a full pipe would hold the writer that closing stdin waits for.
        if let Some(reply) = self.replying.take() {
            reply.abort();
        }
        let Some(child) = self.child.as_mut() else {
            return Ok(());
        };
        self.write.close().await?;
        if exited_within(child).await {
            self.child = None;
            return Ok(());
        }
        if let Err(error) = child.signal(nix::sys::signal::Signal::SIGTERM as i32) {
            tracing::warn!(%error, "cannot send SIGTERM to the server");
        } else if exited_within(child).await {
            self.child = None;
            return Ok(());
        }
        if let Some(pid) = child.id() {
            super::stdio::kill_below(pid);
        }
        let killed = Box::into_pin(child.kill()).await;
        self.child = None;
        killed
    }
}

async fn exited_within(child: &mut Box<dyn ChildWrapper>) -> bool {
    matches!(
        tokio::time::timeout(EXIT_WAIT, child.wait()).await,
        Ok(Ok(_))
    )
}

impl Drop for StdioPipes {
    fn drop(&mut self) {
        if let Some(reply) = self.replying.take() {
            reply.abort();
        }
        // What it started outside its group first, while the child can still be followed to
        // it; the child itself is killed and reaped off the caller's path (the process group
        // guard ends the rest).
        if let Some(pid) = self.child.as_ref().and_then(|child| child.id()) {
            super::stdio::kill_below(pid);
        }
        if let Some(mut child) = self.child.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                if let Err(error) = Box::into_pin(child.kill()).await {
                    tracing::debug!(%error, "cannot kill the server");
                }
            });
        }
    }
}

impl Transport<RoleClient> for StdioPipes {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            match self.read_line().await {
                Read::Line => {}
                Read::Overlong => {
                    tracing::error!(
                        max = MAX_LINE,
                        "a message from the server is longer than allowed; it is skipped"
                    );
                    let id = super::answer_id::answer_id(&self.line);
                    self.line.clear();
                    if let Some(id) = id {
                        // The request it answered fails now, not at its timeout.
                        return Some(lines::unreadable(
                            id,
                            &format!("the server's answer is longer than {MAX_LINE} bytes"),
                        ));
                    }
                    continue;
                }
                Read::End => return None,
            }
            let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let decoded = lines::decode(line);
            self.line.clear();
            match decoded {
                Decoded::Message(message) | Decoded::Unreadable(message) => return Some(message),
                Decoded::Skip => {}
                Decoded::Invalid(error) => {
                    tracing::debug!(%error, "the server sent a message that cannot be read");
                    if self
                        .replying
                        .as_ref()
                        .is_some_and(|reply| !reply.is_finished())
                    {
                        // The last reply is not written yet: this one is dropped.
                        continue;
                    }
                    // Sent on its own: a reply must not hold up (nor be lost with) a cancelled
                    // read.
                    let reply = self.write.send(JsonRpcMessage::error(
                        ErrorData::invalid_request("Invalid request", None),
                        None,
                    ));
                    self.replying = Some(tokio::spawn(async move {
                        let _ = reply.await;
                    }));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.shut_down().await
    }
}

#[cfg(test)]
mod tests {
    use process_wrap::tokio::{KillOnDrop, ProcessGroup};

    use super::*;

    /// A server that writes nothing but JSON that is no message, and never reads its stdin.
    fn flooding_server() -> StdioPipes {
        let mut command = tokio::process::Command::new("sh");
        command.args(["-c", r#"yes '{"id":1,"x":2}'"#]);
        let mut wrapped = CommandWrap::from(command);
        wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
        StdioPipes::spawn(wrapped).unwrap().0
    }

    #[tokio::test]
    async fn bad_lines_from_a_server_that_does_not_read_leave_one_reply_pending_at_most() {
        let mut pipes = flooding_server();
        // Every line is refused; once stdin's pipe is full the replies cannot be written.
        // `receive` never returns a message, so it is cut off after a while.
        let read = tokio::time::timeout(Duration::from_millis(100), pipes.receive()).await;
        assert!(read.is_err(), "no message came");
        let alive = tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks();
        assert!(alive <= 1, "{alive} tasks alive: replies piled up");
        // Closing is not held up by the reply stuck on the full pipe.
        tokio::time::timeout(Duration::from_secs(10), pipes.close())
            .await
            .expect("closed in time")
            .unwrap();
        assert!(pipes.id().is_none(), "the server was ended");
    }
}

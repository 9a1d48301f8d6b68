//! Draining a child's stdout and stderr.
//!
//! A server whose output pipe fills up blocks on its next write, so a launched peer's output
//! must be read for as long as it runs, not only until it is ready. Two tasks do that: every
//! line goes to `tracing` (target `switchboard_testkit::peer`, level debug), into a bounded
//! tail kept for error messages, and to a channel the launcher reads to spot its readiness
//! line. Nobody has to keep receiving from that channel.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

/// How many recent lines are kept for error messages.
const TAIL_LINES: usize = 200;

/// The recent output of one launched process.
#[derive(Debug, Clone, Default)]
pub(crate) struct OutputTail {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl OutputTail {
    /// Starts draining `stdout` and `stderr` of the process called `name`. Returns the tail
    /// and a receiver of every line; the receiver ends once both streams have closed.
    pub(crate) fn capture(
        name: &str,
        stdout: Option<impl AsyncRead + Unpin + Send + 'static>,
        stderr: Option<impl AsyncRead + Unpin + Send + 'static>,
    ) -> (Self, mpsc::UnboundedReceiver<String>) {
        let tail = Self::default();
        let (sender, receiver) = mpsc::unbounded_channel();
        if let Some(stdout) = stdout {
            tail.drain(format!("{name} stdout"), stdout, sender.clone());
        }
        if let Some(stderr) = stderr {
            tail.drain(format!("{name} stderr"), stderr, sender);
        }
        (tail, receiver)
    }

    fn drain(
        &self,
        label: String,
        stream: impl AsyncRead + Unpin + Send + 'static,
        sender: mpsc::UnboundedSender<String>,
    ) {
        let tail = self.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stream);
            let mut raw = Vec::new();
            loop {
                raw.clear();
                match reader.read_until(b'\n', &mut raw).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let line = String::from_utf8_lossy(&raw).trim_end().to_owned();
                tracing::debug!(target: "switchboard_testkit::peer", "[{label}] {line}");
                tail.push(format!("[{label}] {line}"));
                // The launcher stops listening once the peer is ready; keep draining anyway.
                let _ = sender.send(line);
            }
        });
    }

    fn push(&self, line: String) {
        if let Ok(mut lines) = self.lines.lock() {
            if lines.len() == TAIL_LINES {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    }

    /// The recent lines, oldest first, one per line, each labelled with its stream.
    pub(crate) fn text(&self) -> String {
        self.lines
            .lock()
            .map(|lines| {
                lines
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }
}

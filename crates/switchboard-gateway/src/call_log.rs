//! A session client's log lines of one call, on that call's own response stream.
//!
//! rmcp's session manager sends a session's server notifications (but progress and
//! cancellation) on the session's standalone `GET` stream, which a client need not open: an
//! upstream's log line during a call would reach only a client that keeps one open, and then
//! apart from the call it is about. So the HTTP front end gives each request a [`CallLog`]
//! (in the request's extensions), the stream that answers the request takes its receiving end
//! ([`CallLog::take`]) and sends what comes through it before the answer, and the gateway
//! sends a call's log lines to it (falling back to the session's stream for a request whose
//! answer is not a stream of its own, or whose stream has ended).

// Logging is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::LoggingMessageNotificationParam;
use tokio::sync::mpsc;

/// Log lines one call's stream holds unsent; past them a line is left out (it stays in the
/// server's log), so a server that logs faster than the client reads cannot make the gateway
/// hold more.
const QUEUED: usize = 256;

/// The log lines of one request, for the stream that answers it.
#[derive(Debug, Clone)]
pub struct CallLog(Arc<Ends>);

#[derive(Debug)]
struct Ends {
    lines: mpsc::Sender<LoggingMessageNotificationParam>,
    /// The receiving end until the request's stream takes it.
    untaken: Mutex<Option<mpsc::Receiver<LoggingMessageNotificationParam>>>,
}

impl Default for CallLog {
    fn default() -> Self {
        let (lines, receiver) = mpsc::channel(QUEUED);
        Self(Arc::new(Ends {
            lines,
            untaken: Mutex::new(Some(receiver)),
        }))
    }
}

impl CallLog {
    /// The receiving end, for the stream that answers the request; `None` once taken.
    pub fn take(&self) -> Option<mpsc::Receiver<LoggingMessageNotificationParam>> {
        self.0
            .untaken
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Sends `line` down the request's stream. Handed back when no stream took the receiving
    /// end or the stream has ended; left out when the stream's queue is full.
    pub(crate) fn send(
        &self,
        line: LoggingMessageNotificationParam,
    ) -> Result<(), LoggingMessageNotificationParam> {
        let untaken = self
            .0
            .untaken
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some();
        if untaken {
            return Err(line);
        }
        match self.0.lines.try_send(line) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::debug!("gateway: a call's stream is behind; a log line was left out");
                Ok(())
            }
            Err(mpsc::error::TrySendError::Closed(line)) => Err(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::LoggingLevel;

    use super::*;

    fn line(text: &str) -> LoggingMessageNotificationParam {
        LoggingMessageNotificationParam::new(LoggingLevel::Info, serde_json::json!(text))
    }

    #[tokio::test]
    async fn lines_go_to_the_stream_that_took_the_log_and_come_back_otherwise() {
        let log = CallLog::default();
        // No stream yet: the line comes back, for the session's stream.
        assert!(log.send(line("early")).is_err());
        let mut stream = log.take().expect("the receiving end");
        assert!(log.take().is_none(), "taken once");
        log.send(line("mine")).expect("sent down the stream");
        assert_eq!(stream.recv().await.unwrap().data, "mine");
        drop(stream);
        assert!(log.send(line("late")).is_err(), "the stream ended");
    }
}

//! What servers log (`notifications/message`), kept per (owner, server) for the person to read
//! (the settings page shows a server's log), bounded: the last [`KEPT`] lines of each
//! server, each at most [`MAX_TEXT`] characters, the server's own secrets cut out before they
//! are kept. New lines are also broadcast, for whoever follows them live.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use switchboard_core::{OwnerId, ServerId};
use tokio::sync::broadcast;

/// Lines kept per server.
pub const KEPT: usize = 200;
/// Characters kept of one line (and of its logger's name, 128).
pub const MAX_TEXT: usize = 2000;
/// Servers whose lines are kept at once; past it, the one that logged least recently goes
/// (a deleted server's lines go that way too).
pub const MAX_SERVERS: usize = 4096;

/// One line a server logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerLogLine {
    /// When it arrived, milliseconds since the Unix epoch.
    pub at: u64,
    /// The MCP level: `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`,
    /// `emergency`.
    pub level: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message (`data` as text: a string as it is, anything else as JSON).
    pub text: String,
}

/// A line with the (owner, server) it came from, as broadcast.
#[derive(Debug, Clone)]
pub struct LoggedLine {
    pub owner: OwnerId,
    pub server: ServerId,
    pub line: ServerLogLine,
}

type Key = (OwnerId, ServerId);

/// The kept lines of every server, and the live broadcast of new ones.
#[derive(Debug)]
pub struct LogBook {
    kept: Mutex<HashMap<Key, VecDeque<ServerLogLine>>>,
    live: broadcast::Sender<LoggedLine>,
}

impl Default for LogBook {
    fn default() -> Self {
        Self {
            kept: Mutex::default(),
            live: broadcast::channel(256).0,
        }
    }
}

impl LogBook {
    pub(crate) fn record(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        level: String,
        logger: Option<String>,
        text: &str,
    ) {
        let line = ServerLogLine {
            at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .unwrap_or(0),
            level,
            logger,
            text: text.to_owned(),
        };
        self.keep(owner, server, line);
    }

    /// Keeps `line` of `owner`'s `server` as it was logged elsewhere (on a node), within the
    /// same bounds.
    pub fn keep(&self, owner: &OwnerId, server: &ServerId, mut line: ServerLogLine) {
        line.logger = line
            .logger
            .map(|l| switchboard_core::upstream_text::short_text(&l, 128));
        line.level = switchboard_core::upstream_text::short_text(&line.level, 16);
        line.text = switchboard_core::upstream_text::short_text(&line.text, MAX_TEXT);
        {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            let key = (owner.clone(), server.clone());
            if kept.len() >= MAX_SERVERS && !kept.contains_key(&key) {
                let stalest = kept
                    .iter()
                    .min_by_key(|(_, lines)| lines.back().map_or(0, |line| line.at))
                    .map(|(key, _)| key.clone());
                if let Some(stalest) = stalest {
                    kept.remove(&stalest);
                }
            }
            let lines = kept.entry(key).or_default();
            if lines.len() == KEPT {
                lines.pop_front();
            }
            lines.push_back(line.clone());
        }
        // Nobody following is not an error.
        let _ = self.live.send(LoggedLine {
            owner: owner.clone(),
            server: server.clone(),
            line,
        });
    }

    /// The kept lines of `owner`'s `server`, oldest first.
    pub fn lines(&self, owner: &OwnerId, server: &ServerId) -> Vec<ServerLogLine> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(&(owner.clone(), server.clone()))
            .map(|lines| lines.iter().cloned().collect())
            .unwrap_or_default()
    }

    pub(crate) fn follow(&self) -> broadcast::Receiver<LoggedLine> {
        self.live.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_lines_of_each_server_are_kept_cut_to_size() {
        let book = LogBook::default();
        let (alice, bob) = (OwnerId("alice".into()), OwnerId("bob".into()));
        let server = ServerId("s".into());
        for n in 0..(KEPT + 5) {
            book.record(&alice, &server, "info".into(), None, &format!("line {n}"));
        }
        book.record(
            &bob,
            &server,
            "error".into(),
            Some("x".repeat(500)),
            &"y".repeat(5000),
        );
        let lines = book.lines(&alice, &server);
        assert_eq!(lines.len(), KEPT);
        assert_eq!(lines[0].text, "line 5");
        assert_eq!(lines[KEPT - 1].text, format!("line {}", KEPT + 4));
        let bobs = book.lines(&bob, &server);
        assert_eq!(bobs.len(), 1);
        assert!(
            bobs[0].text.chars().count() <= MAX_TEXT + 3,
            "{}",
            bobs[0].text.len()
        );
        assert!(bobs[0].logger.as_ref().unwrap().chars().count() <= 131);
    }

    #[test]
    fn past_the_bound_the_server_that_logged_least_recently_goes() {
        let book = LogBook::default();
        let owner = OwnerId("alice".into());
        for n in 0..=MAX_SERVERS {
            book.record(&owner, &ServerId(format!("s{n}")), "info".into(), None, "x");
        }
        let kept = book.kept.lock().unwrap_or_else(PoisonError::into_inner);
        assert_eq!(kept.len(), MAX_SERVERS);
        assert!(kept.contains_key(&(owner.clone(), ServerId(format!("s{MAX_SERVERS}")))));
    }
}

//! The circuit breaker of one pooled connection: a server that could not be reached is left
//! out at once, while it is tried again in the background.
//!
//! Without it, every request that needs a dead server pays a connect attempt and seed 002's
//! retries (1 s, 2 s, 4 s): a chat turn whose assistant has one unreachable server waited
//! seven seconds before the model was asked, every turn. After a connect fails to reach or
//! start the server, the breaker opens: every use of the server fails at once with that
//! failure ([`McpError::Unavailable`]), and the manager tries again in the background once
//! the wait is up, the wait doubling with each failure in a row ([`BreakerPolicy`]).
//!
//! It never hides a server that is fine. It closes when a connect works (the background one
//! or any other), and it holds back only the way of connecting that failed: an edited server
//! (another URL, command, credentials) is tried at once. Closing the connection on purpose
//! (an edit, a removal, a new sign-in) and a person's test of the server that works close it
//! too. A failure that needs a person rather than another try (a refused launch, credentials
//! the server rejects, a sign-in) does not open it, and closes it when a background try meets
//! one: the server is reachable again, and says what it wants.
//!
//! The time is passed in, so the backoff and the resets are tested without a clock.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use switchboard_core::ServerSpec;
use tokio::time::Instant;

use super::entry::same_connection;
use crate::config::BreakerPolicy;
use crate::error::McpError;

/// One connection slot's breaker.
pub(crate) struct Breaker {
    policy: BreakerPolicy,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    open: Option<Open>,
    /// Counts openings, so that a background try of an earlier one stops.
    openings: u64,
}

/// An open breaker: the failure and when the server is tried again.
struct Open {
    /// The spec whose way of connecting failed.
    spec: Arc<ServerSpec>,
    failure: Arc<McpError>,
    /// Failures in a row.
    failures: u32,
    retry_at: Instant,
    /// Which opening this is ([`State::openings`]).
    opening: u64,
    /// Whether a background try follows this opening.
    probing: bool,
}

/// The background try of an opening: when it is due, and with which spec.
pub(crate) struct Due {
    pub(crate) at: Instant,
    pub(crate) spec: Arc<ServerSpec>,
}

impl Breaker {
    pub(crate) fn new(policy: BreakerPolicy) -> Self {
        Self {
            policy,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The error a use of `spec` fails with at `now` while the breaker is open for its way
    /// of connecting; `None` when the server may be tried.
    pub(crate) fn held_back(&self, spec: &ServerSpec, now: Instant) -> Option<McpError> {
        let state = self.state();
        let open = state
            .open
            .as_ref()
            .filter(|open| same_connection(&open.spec, spec))?;
        Some(McpError::Unavailable {
            server: spec.name.clone(),
            cause: Arc::clone(&open.failure),
            retry_in: open.retry_at.saturating_duration_since(now),
        })
    }

    /// A connect to `spec` failed with `error` at `now`. A failure to reach or start the
    /// server opens the breaker (or keeps it open, for longer) and is answered as the
    /// server left out; any other failure closes it and is answered as it is.
    pub(crate) fn failed(&self, spec: &ServerSpec, error: McpError, now: Instant) -> McpError {
        if !opens(&error) {
            self.close();
            return error;
        }
        let failure = Arc::new(error);
        let mut state = self.state();
        let again = state
            .open
            .as_ref()
            .filter(|open| same_connection(&open.spec, spec));
        let (failures, opening, probing) = match again {
            Some(open) => (open.failures.saturating_add(1), open.opening, open.probing),
            None => {
                state.openings += 1;
                (1, state.openings, false)
            }
        };
        let wait = self.policy.delay(failures);
        state.open = Some(Open {
            spec: Arc::new(spec.clone()),
            failure: Arc::clone(&failure),
            failures,
            retry_at: now + wait,
            opening,
            probing,
        });
        McpError::Unavailable {
            server: spec.name.clone(),
            cause: failure,
            retry_in: wait,
        }
    }

    /// The server was reached, or is to be tried afresh: nothing is held back.
    pub(crate) fn close(&self) {
        self.state().open = None;
    }

    /// Claims the background try of the current opening, when there is one and nobody
    /// follows it yet: the opening to pass to [`Breaker::due`].
    pub(crate) fn start_probe(&self) -> Option<u64> {
        let mut state = self.state();
        let open = state.open.as_mut().filter(|open| !open.probing)?;
        open.probing = true;
        Some(open.opening)
    }

    /// When the background try of `opening` is due and with which spec; `None` when it
    /// should stop: the breaker closed, or opened again since for another way of connecting.
    pub(crate) fn due(&self, opening: u64) -> Option<Due> {
        let state = self.state();
        let open = state.open.as_ref().filter(|open| open.opening == opening)?;
        Some(Due {
            at: open.retry_at,
            spec: Arc::clone(&open.spec),
        })
    }

    /// The background try of `opening` stops with the breaker still open (nobody used the
    /// server for a long time): the next use starts another.
    pub(crate) fn stop_probe(&self, opening: u64) {
        if let Some(open) = self
            .state()
            .open
            .as_mut()
            .filter(|open| open.opening == opening)
        {
            open.probing = false;
        }
    }
}

/// Whether a connect that failed with `error` opens the breaker: the server could not be
/// reached or started, or did not complete the handshake. The others need a person (or are
/// not about the server at all) and fail as fast the next time.
fn opens(error: &McpError) -> bool {
    match error {
        McpError::Unreachable { .. }
        | McpError::Spawn { .. }
        | McpError::ConnectTimeout { .. }
        | McpError::ClosedDuringHandshake { .. }
        | McpError::Handshake { .. }
        | McpError::Protocol { .. }
        | McpError::ConnectionLost { .. }
        | McpError::Timeout { .. } => true,
        McpError::Unavailable { cause, .. } => opens(cause),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use switchboard_core::{ErrorCode, Refusal, RetrySafety};

    use super::*;

    fn breaker() -> Breaker {
        Breaker::new(BreakerPolicy {
            first_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(10),
        })
    }

    fn dead() -> ServerSpec {
        ServerSpec::http("GitHub", "http://127.0.0.1:9/mcp", None)
    }

    fn refused() -> McpError {
        McpError::Unreachable {
            url: "http://127.0.0.1:9/mcp".into(),
            reason: switchboard_core::ReachFailure::Refused,
            detail: "connection refused".into(),
        }
    }

    fn retry_in(error: &McpError) -> Duration {
        match error {
            McpError::Unavailable { retry_in, .. } => *retry_in,
            other => panic!("not held back: {other:?}"),
        }
    }

    #[test]
    fn each_failure_in_a_row_doubles_the_wait_up_to_the_most() {
        let b = breaker();
        let spec = dead();
        let start = Instant::now();
        let mut waits = Vec::new();
        for n in 0..6 {
            let now = start + Duration::from_secs(n * 100);
            let answered = b.failed(&spec, refused(), now);
            waits.push(retry_in(&answered).as_secs());
            assert_eq!(answered.code(), ErrorCode::McpUnreachable);
            assert_eq!(answered.retry_safety(), RetrySafety::Never);
        }
        assert_eq!(waits, vec![1, 2, 4, 8, 10, 10]);
    }

    #[test]
    fn uses_fail_at_once_until_the_wait_is_up_and_say_why() {
        let b = breaker();
        let spec = dead();
        let start = Instant::now();
        assert!(b.held_back(&spec, start).is_none(), "a new server is tried");
        b.failed(&spec, refused(), start);
        let held = b
            .held_back(&spec, start + Duration::from_millis(400))
            .expect("held back");
        assert_eq!(retry_in(&held), Duration::from_millis(600));
        assert_eq!(held.code(), ErrorCode::McpUnreachable);
        let text = held.to_string();
        assert!(
            text.contains("`GitHub` is left out") && text.contains("the connection was refused"),
            "{text}"
        );
        assert!(text.ends_with("in 1s"), "{text}");
        // Past the wait it stays held back: the background try decides.
        let late = b.held_back(&spec, start + Duration::from_secs(5));
        assert_eq!(late.map(|e| retry_in(&e)), Some(Duration::ZERO));
    }

    #[test]
    fn a_connect_that_works_or_a_closed_connection_resets_the_wait() {
        let b = breaker();
        let spec = dead();
        let start = Instant::now();
        b.failed(&spec, refused(), start);
        b.failed(&spec, refused(), start);
        b.close();
        assert!(b.held_back(&spec, start).is_none());
        let again = b.failed(&spec, refused(), start);
        assert_eq!(retry_in(&again), Duration::from_secs(1), "counted afresh");
    }

    #[test]
    fn an_edited_way_of_connecting_is_tried_at_once_and_counted_afresh() {
        let b = breaker();
        let spec = dead();
        let start = Instant::now();
        b.failed(&spec, refused(), start);
        b.failed(&spec, refused(), start);
        let mut renamed = spec.clone();
        renamed.name = "GitHub (work)".into();
        renamed.disabled_tools.insert("delete_repo".into());
        assert!(
            b.held_back(&renamed, start).is_some(),
            "a name or a tool switch reaches the server the same way"
        );
        let moved = ServerSpec::http("GitHub", "http://127.0.0.1:10/mcp", None);
        assert!(b.held_back(&moved, start).is_none(), "another URL");
        let failed = b.failed(&moved, refused(), start);
        assert_eq!(retry_in(&failed), Duration::from_secs(1));
        assert!(
            b.held_back(&spec, start).is_none(),
            "only the latest way is held back"
        );
    }

    #[test]
    fn a_failure_that_needs_a_person_does_not_open_it_and_closes_it() {
        let b = breaker();
        let spec = dead();
        let start = Instant::now();
        let needs = || McpError::SignInRequired {
            server: "GitHub".into(),
            scope: None,
            challenge: None,
        };
        let answered = b.failed(&spec, needs(), start);
        assert!(matches!(answered, McpError::SignInRequired { .. }));
        assert!(b.held_back(&spec, start).is_none());
        b.failed(&spec, refused(), start);
        let refusal = McpError::Refused {
            server: "GitHub".into(),
            refusal: Refusal::Destination {
                host: "127.0.0.1".into(),
            },
        };
        assert!(matches!(
            b.failed(&spec, refusal, start),
            McpError::Refused { .. }
        ));
        assert!(b.held_back(&spec, start).is_none(), "reachable again");
    }

    #[test]
    fn one_background_try_follows_each_opening() {
        let b = breaker();
        let spec = dead();
        let start = Instant::now();
        assert_eq!(b.start_probe(), None, "closed: nothing to try");
        b.failed(&spec, refused(), start);
        let opening = b.start_probe().expect("the first use starts it");
        assert_eq!(b.start_probe(), None, "one at a time");
        let due = b.due(opening).expect("due");
        assert_eq!(due.at, start + Duration::from_secs(1));
        // It fails again: the same try goes on, later.
        b.failed(&spec, refused(), due.at);
        assert_eq!(
            b.due(opening).map(|d| d.at),
            Some(start + Duration::from_secs(3))
        );
        // Stopped (nobody used the server): the next use starts another.
        b.stop_probe(opening);
        assert_eq!(b.start_probe(), Some(opening));
        // Closed, or opened afresh for another way of connecting: the old try ends.
        b.close();
        assert!(b.due(opening).is_none());
        let moved = ServerSpec::http("GitHub", "http://127.0.0.1:10/mcp", None);
        b.failed(&moved, refused(), start);
        assert!(b.due(opening).is_none());
        assert!(b.start_probe().is_some_and(|newer| newer != opening));
    }
}

//! Event streams live only as long as the token that opened them.
//!
//! A request is authenticated once, when it arrives; an event stream then stays open for
//! hours. So the stream's token is checked again every [`StreamAuthConfig::recheck`]: when it
//! was revoked (by the API, or by `switchboard users revoke` in another process on the same
//! database), expired, or its user removed, the stream ends. One indexed lookup per open
//! stream per interval is the whole cost; a database that fails to answer keeps the stream
//! (an outage is not a revocation).

use std::sync::Arc;
use std::time::Duration;

use switchboard_core::OwnerId;
use switchboard_store::Store;
use tokio_util::sync::{CancellationToken, DropGuard};

/// How event streams re-check their token (`ServerConfig::stream_auth`).
#[derive(Debug, Clone)]
pub struct StreamAuthConfig {
    /// How often an open stream's token is checked again. Default 5 s.
    pub recheck: Duration,
}

impl Default for StreamAuthConfig {
    fn default() -> Self {
        Self {
            recheck: Duration::from_secs(5),
        }
    }
}

/// The bearer token a request presented, kept to check it again later. `Debug` hides it.
#[derive(Clone)]
pub struct PresentedToken(Arc<str>);

impl PresentedToken {
    pub(crate) fn new(secret: &str) -> Self {
        Self(secret.into())
    }
}

impl std::fmt::Debug for PresentedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PresentedToken(***)")
    }
}

/// A watch over one stream's token: `ended` is cancelled once the token no longer opens
/// `owner`'s account. Dropping the watch (the stream ended) stops the checking.
pub struct TokenWatch {
    pub ended: CancellationToken,
    _stop: DropGuard,
}

impl TokenWatch {
    /// A watch that never ends the stream (single-user mode has no tokens).
    pub fn never() -> Self {
        Self {
            ended: CancellationToken::new(),
            _stop: CancellationToken::new().drop_guard(),
        }
    }

    /// Starts checking `token` for `owner` every `every`.
    pub fn start(
        store: Arc<dyn Store>,
        token: PresentedToken,
        owner: OwnerId,
        every: Duration,
    ) -> Self {
        let ended = CancellationToken::new();
        let stop = CancellationToken::new();
        tokio::spawn(watch(
            store,
            token,
            owner,
            every,
            ended.clone(),
            stop.clone(),
        ));
        Self {
            ended,
            _stop: stop.drop_guard(),
        }
    }
}

async fn watch(
    store: Arc<dyn Store>,
    token: PresentedToken,
    owner: OwnerId,
    every: Duration,
    ended: CancellationToken,
    stop: CancellationToken,
) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is immediate, and the request was just authenticated.
    tick.tick().await;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        match store.user_by_token(&token.0).await {
            Ok(Some(user)) if user.id == owner => {}
            Ok(_) => {
                tracing::debug!(user = ?owner.0, "an event stream's token is no longer valid");
                ended.cancel();
                return;
            }
            Err(error) => tracing::warn!(%error, "could not re-check an event stream's token"),
        }
    }
}

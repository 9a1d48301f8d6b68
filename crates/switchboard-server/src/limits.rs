//! The HTTP side of the limits ([`Limits`], kept by the application layer): the rate limiters
//! of failed authentication and writes, the event-stream slots, and how a refusal is answered
//! (429 `RATE_LIMITED` with `Retry-After`).

use std::net::IpAddr;
use std::time::Duration;

use switchboard_core::{ErrorCode, OwnerId};

use crate::error::ApiError;
pub use switchboard_app::limits::{Limits, Rate, RateLimiter, SlotGuard, Slots};

/// How many keys each rate limiter tracks at most; past it, the keys idle longest go first.
/// An attacker cycling keys only makes the limiter forget its own.
const TRACKED_KEYS: usize = 10_000;

/// The runtime side of [`Limits`]: the rate limiters and the stream slots, shared by the
/// request handlers. Runs keep their own [`Slots`] (see [`crate::runs::Runs`]).
#[derive(Debug)]
pub struct Gate {
    failures_by_address: RateLimiter<IpAddr>,
    failures_by_token: RateLimiter<u64>,
    writes: RateLimiter<OwnerId>,
    /// Open `GET /api/events` streams per user.
    streams: Slots,
    token_hasher: std::collections::hash_map::RandomState,
}

impl Gate {
    pub fn new(limits: &Limits) -> Self {
        Self {
            failures_by_address: RateLimiter::new(limits.auth_failures, TRACKED_KEYS),
            failures_by_token: RateLimiter::new(limits.auth_failures, TRACKED_KEYS),
            writes: RateLimiter::new(limits.writes, TRACKED_KEYS),
            streams: Slots::new(limits.max_event_streams),
            token_hasher: std::collections::hash_map::RandomState::new(),
        }
    }

    /// Refuses a token that itself failed too often lately, before it is looked up. Only a
    /// token that is not valid fails, so a valid one is never refused here.
    pub fn check_token(&self, token: &str) -> Result<(), ApiError> {
        match self.failures_by_token.wait_time(&self.token_key(token)) {
            Some(wait) => Err(too_many_failures(wait)),
            None => Ok(()),
        }
    }

    /// Refuses a failed attempt from `address` when that address failed too often lately. It
    /// is asked only once the attempt failed: a valid token is never refused for what others
    /// sent from the same address (behind a reverse proxy, everyone's).
    pub fn check_address(&self, address: Option<IpAddr>) -> Result<(), ApiError> {
        match address.and_then(|a| self.failures_by_address.wait_time(&a)) {
            Some(wait) => Err(too_many_failures(wait)),
            None => Ok(()),
        }
    }

    /// Counts a failed authentication against `address` and `token`.
    pub fn auth_failed(&self, address: Option<IpAddr>, token: Option<&str>) {
        if let Some(address) = address {
            let _ = self.failures_by_address.take(address);
        }
        if let Some(token) = token {
            let _ = self.failures_by_token.take(self.token_key(token));
        }
    }

    /// Takes one write from `owner`'s allowance, or says how long to wait.
    pub fn write(&self, owner: &OwnerId) -> Result<(), ApiError> {
        self.writes.take(owner.clone()).map_err(|wait| {
            rate_limited(
                "error.msg.too_many_writes",
                "too many changes in a short time",
                wait,
            )
        })
    }

    /// A slot for one more event stream of `owner`.
    pub fn open_stream(&self, owner: &OwnerId) -> Result<SlotGuard, ApiError> {
        self.streams.try_take(owner).ok_or_else(|| {
            rate_limited(
                "error.msg.too_many_streams",
                &format!(
                    "at most {} event streams may be open at once; close one first",
                    self.streams.limit()
                ),
                Duration::from_secs(1),
            )
            .param("limit", self.streams.limit())
        })
    }

    /// Presented tokens are tracked by a keyed hash, never kept.
    fn token_key(&self, token: &str) -> u64 {
        use std::hash::BuildHasher as _;
        self.token_hasher.hash_one(token)
    }
}

/// `response` with `guard` held until its body ends or is dropped (the client went away, the
/// server closed the stream): for streams counted by [`Slots`].
pub fn held_by(response: axum::response::Response, guard: SlotGuard) -> axum::response::Response {
    use futures::StreamExt as _;
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().map(move |chunk| {
        let _held = &guard;
        chunk
    });
    axum::response::Response::from_parts(parts, axum::body::Body::from_stream(body))
}

fn too_many_failures(wait: Duration) -> ApiError {
    rate_limited(
        "error.msg.too_many_auth_failures",
        "too many failed authentications",
        wait,
    )
}

/// 429 `RATE_LIMITED` with `Retry-After`; `key` is the locale key of `why` and its
/// `{seconds}` (any other parameter is added by the caller).
pub fn rate_limited(key: &'static str, why: &str, wait: Duration) -> ApiError {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    ApiError::new(
        ErrorCode::RateLimited,
        format!("{why}; try again in {seconds} s"),
    )
    .retry_after(wait)
    .key(key)
    .param("seconds", seconds)
}

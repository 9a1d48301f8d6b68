//! A keyed rate limiter: GCRA (the generic cell rate algorithm), one instant per key.
//!
//! Written here rather than taken from `governor`: what we need is about sixty lines (one
//! `Mutex<HashMap>`, a burst and a period, keys that expire), while `governor` brings
//! `dashmap`, `quanta`, `nonzero_ext` and its own clock abstractions, and still leaves the
//! bound on the number of keys to us.
//!
//! Each key keeps its "theoretical arrival time" (TAT): the instant its allowance is full
//! again. A request is allowed when, after adding one period, the TAT is at most `burst`
//! periods ahead of now. A key whose TAT has passed is the same as no key, so it is dropped;
//! when the map is full anyway, the key closest to full is forgotten first.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// `burst` requests at once, then one per `period`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub burst: u32,
    pub period: Duration,
}

impl Rate {
    pub const fn new(burst: u32, period: Duration) -> Self {
        Self { burst, period }
    }

    /// How far ahead of now a key's TAT may be.
    fn tolerance(&self) -> Duration {
        self.period.saturating_mul(self.burst)
    }
}

#[derive(Debug)]
pub struct RateLimiter<K> {
    rate: Rate,
    capacity: usize,
    keys: Mutex<HashMap<K, Instant>>,
}

impl<K: Hash + Eq + Clone> RateLimiter<K> {
    /// A limiter of `rate` per key, tracking at most `capacity` keys.
    pub fn new(rate: Rate, capacity: usize) -> Self {
        Self {
            rate,
            capacity: capacity.max(1),
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `key`'s allowance, or says how long until one is free.
    pub fn take(&self, key: K) -> Result<(), Duration> {
        self.take_at(key, Instant::now())
    }

    /// How long until `key` may make a request, if it may not now.
    pub fn wait_time(&self, key: &K) -> Option<Duration> {
        let now = Instant::now();
        let keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        let tat = keys.get(key).copied().unwrap_or(now).max(now);
        self.refusal(tat, now)
    }

    fn take_at(&self, key: K, now: Instant) -> Result<(), Duration> {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        let tat = keys.get(&key).copied().unwrap_or(now).max(now);
        if let Some(wait) = self.refusal(tat, now) {
            return Err(wait);
        }
        if !keys.contains_key(&key) && keys.len() >= self.capacity {
            keys.retain(|_, tat| *tat > now);
            if keys.len() >= self.capacity
                && let Some(oldest) = keys
                    .iter()
                    .min_by_key(|(_, tat)| **tat)
                    .map(|(k, _)| k.clone())
            {
                keys.remove(&oldest);
            }
        }
        keys.insert(key, tat + self.rate.period);
        Ok(())
    }

    /// The wait before a request may be made when the key's TAT is `tat`, if any.
    fn refusal(&self, tat: Instant, now: Instant) -> Option<Duration> {
        let after = (tat + self.rate.period).duration_since(now);
        let tolerance = self.rate.tolerance();
        (after > tolerance).then(|| after - tolerance)
    }

    /// Keys tracked now (for tests of the bound).
    pub fn tracked(&self) -> usize {
        self.keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_one_per_period() {
        let limiter = RateLimiter::new(Rate::new(3, Duration::from_secs(10)), 100);
        let start = Instant::now();
        for _ in 0..3 {
            assert!(limiter.take_at("a", start).is_ok());
        }
        let wait = limiter.take_at("a", start).unwrap_err();
        assert_eq!(wait, Duration::from_secs(10));
        // Other keys have their own allowance.
        assert!(limiter.take_at("b", start).is_ok());
        // One period later, one more.
        let later = start + Duration::from_secs(10);
        assert!(limiter.take_at("a", later).is_ok());
        assert!(limiter.take_at("a", later).is_err());
    }

    #[test]
    fn keys_are_bounded() {
        let limiter = RateLimiter::new(Rate::new(1, Duration::from_secs(60)), 10);
        let now = Instant::now();
        for key in 0..1_000 {
            assert!(limiter.take_at(key, now).is_ok());
        }
        assert!(limiter.tracked() <= 10);
    }

    #[test]
    fn expired_keys_are_dropped_first() {
        let limiter = RateLimiter::new(Rate::new(1, Duration::from_secs(1)), 2);
        let now = Instant::now();
        limiter.take_at(1, now).unwrap();
        limiter.take_at(2, now + Duration::from_secs(5)).unwrap();
        // Key 1 expired long ago: adding key 3 drops it, and key 2 stays limited.
        limiter.take_at(3, now + Duration::from_secs(5)).unwrap();
        assert!(limiter.take_at(2, now + Duration::from_secs(5)).is_err());
    }
}

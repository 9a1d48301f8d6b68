//! The reads every tool call repeats, kept in memory: what a bearer token opens, a
//! user, a server's connection spec (its secrets decrypted) and a person's whole list of them.
//! Without it, each call through the REST proxy or the gateway read two or three rows from the
//! store and decrypted the server's secrets.
//!
//! Correctness rests on two rules:
//! - every write of this process to the tables behind these reads (users, tokens, views,
//!   servers) calls [`ReadCache::changed`], which empties the cache and moves its generation
//!   on; a read started before a change never fills the cache after it (the generation it
//!   began under no longer matches);
//! - a write by another process is not seen here at once: on Postgres, each replica tells the
//!   others through `NOTIFY` (`crate::postgres`: they empty theirs); on SQLite, a second
//!   process (`switchboard users revoke` on the file) cannot tell. So nothing is kept longer
//!   than the TTL (one second), nor a token past its expiry: a token revoked anywhere opens
//!   nothing a second later, on every replica, even with notifications lost.
//!
//! Hand-written rather than a caching crate: what it needs is the generation rule above and
//! a clear on write, a few lines over a map; the bound keeps it small (at most
//! [`MAX_ENTRIES`] entries per kind; a full map is emptied, not evicted entry by entry).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use switchboard_core::{OwnerId, ServerId, ServerSpec};

use crate::model::{Timestamp, TokenAccess, User};

/// Entries of one kind kept at most.
pub const MAX_ENTRIES: usize = 4096;

/// How long a read is kept when nothing here changed it.
pub const DEFAULT_TTL: Duration = Duration::from_secs(1);

#[derive(Debug)]
pub(crate) struct ReadCache {
    generation: AtomicU64,
    ttl: Duration,
    /// Told of every change made here, to pass on to other replicas.
    announce: Option<tokio::sync::mpsc::UnboundedSender<()>>,
    tokens: Shelf<String, TokenAccess>,
    users: Shelf<OwnerId, User>,
    specs: Shelf<(OwnerId, ServerId), ServerSpec>,
    spec_lists: Shelf<OwnerId, Vec<ServerSpec>>,
}

/// The generation a read began under; its result is kept only if nothing changed since.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Began(u64);

impl Default for ReadCache {
    fn default() -> Self {
        Self::with_ttl(DEFAULT_TTL)
    }
}

impl ReadCache {
    pub(crate) fn with_ttl(ttl: Duration) -> Self {
        Self {
            generation: AtomicU64::new(0),
            ttl,
            announce: None,
            tokens: Shelf::default(),
            users: Shelf::default(),
            specs: Shelf::default(),
            spec_lists: Shelf::default(),
        }
    }

    /// The cache, telling `announce` of every change made here.
    pub(crate) fn announcing(mut self, announce: tokio::sync::mpsc::UnboundedSender<()>) -> Self {
        self.announce = Some(announce);
        self
    }

    /// A write to users, tokens, views or servers: nothing read before it is used again, here
    /// and (when announcing) on the other replicas.
    pub(crate) fn changed(&self) {
        self.forget();
        if let Some(announce) = &self.announce {
            // Nobody listening (the store is closing): nothing to tell.
            let _ = announce.send(());
        }
    }

    /// Another replica changed something: nothing read before is used again.
    pub(crate) fn forget(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.tokens.clear();
        self.users.clear();
        self.specs.clear();
        self.spec_lists.clear();
    }

    /// Marks the start of a read whose result may be kept.
    pub(crate) fn begin(&self) -> Began {
        Began(self.generation.load(Ordering::Acquire))
    }

    fn fresh(&self, began: Began) -> Option<Instant> {
        (self.generation.load(Ordering::Acquire) == began.0).then(|| Instant::now() + self.ttl)
    }

    pub(crate) fn token(&self, hash: &str) -> Option<TokenAccess> {
        self.tokens.get(hash)
    }

    /// Keeps what the token `hash` opens, until the token expires at the latest.
    pub(crate) fn keep_token(
        &self,
        began: Began,
        hash: String,
        access: &TokenAccess,
        expires_at: Option<Timestamp>,
    ) {
        let Some(mut until) = self.fresh(began) else {
            return;
        };
        if let Some(expires_at) = expires_at {
            let left = u64::try_from(expires_at.0 - Timestamp::now().0).unwrap_or(0);
            until = until.min(Instant::now() + Duration::from_millis(left));
        }
        self.tokens.put(hash, access.clone(), until);
    }

    pub(crate) fn user(&self, id: &OwnerId) -> Option<User> {
        self.users.get(id)
    }

    pub(crate) fn keep_user(&self, began: Began, user: &User) {
        if let Some(until) = self.fresh(began) {
            self.users.put(user.id.clone(), user.clone(), until);
        }
    }

    pub(crate) fn spec(&self, owner: &OwnerId, id: &ServerId) -> Option<ServerSpec> {
        self.specs.get(&(owner.clone(), id.clone()))
    }

    pub(crate) fn keep_spec(&self, began: Began, owner: &OwnerId, spec: &ServerSpec) {
        if let Some(until) = self.fresh(began) {
            self.specs
                .put((owner.clone(), spec.id.clone()), spec.clone(), until);
        }
    }

    pub(crate) fn spec_list(&self, owner: &OwnerId) -> Option<Vec<ServerSpec>> {
        self.spec_lists.get(owner)
    }

    pub(crate) fn keep_spec_list(&self, began: Began, owner: &OwnerId, specs: &[ServerSpec]) {
        if let Some(until) = self.fresh(began) {
            self.spec_lists.put(owner.clone(), specs.to_vec(), until);
        }
    }
}

/// One kind of read, by key, each with the instant it stops being used.
#[derive(Debug)]
struct Shelf<K, V> {
    entries: Mutex<HashMap<K, (V, Instant)>>,
}

impl<K, V> Default for Shelf<K, V> {
    fn default() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash, V: Clone> Shelf<K, V> {
    fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries
            .get(key)
            .filter(|(_, until)| Instant::now() < *until)
            .map(|(value, _)| value.clone())
    }

    fn put(&self, key: K, value: V, until: Instant) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        entries.insert(key, (value, until));
    }

    fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    fn user(id: &str) -> User {
        User {
            id: OwnerId(id.into()),
            name: id.into(),
            role: Role::Member,
            created_at: Timestamp::now(),
            locale: None,
        }
    }

    #[test]
    fn a_read_is_kept_until_a_change() {
        let cache = ReadCache::default();
        let began = cache.begin();
        // One value: `user` stamps the time it is made.
        let ada = user("ada");
        cache.keep_user(began, &ada);
        assert_eq!(cache.user(&OwnerId("ada".into())), Some(ada));
        cache.changed();
        assert_eq!(cache.user(&OwnerId("ada".into())), None);
    }

    #[test]
    fn a_read_that_began_before_a_change_is_not_kept() {
        let cache = ReadCache::default();
        let began = cache.begin();
        cache.changed();
        cache.keep_user(began, &user("ada"));
        assert_eq!(cache.user(&OwnerId("ada".into())), None);
    }

    #[test]
    fn nothing_is_kept_past_the_ttl_or_a_tokens_expiry() {
        let cache = ReadCache::with_ttl(Duration::ZERO);
        cache.keep_user(cache.begin(), &user("ada"));
        assert_eq!(cache.user(&OwnerId("ada".into())), None);

        let cache = ReadCache::default();
        let access = TokenAccess {
            user: user("ada"),
            view: None,
        };
        let expired = Some(Timestamp(Timestamp::now().0 - 1));
        cache.keep_token(cache.begin(), "h".into(), &access, expired);
        assert_eq!(cache.token("h"), None);
        let later = Some(Timestamp(Timestamp::now().0 + 60_000));
        cache.keep_token(cache.begin(), "h".into(), &access, later);
        assert_eq!(cache.token("h"), Some(access));
    }

    #[test]
    fn a_full_shelf_is_emptied_rather_than_grown() {
        let cache = ReadCache::default();
        for i in 0..=MAX_ENTRIES {
            cache.keep_user(cache.begin(), &user(&i.to_string()));
        }
        let kept = cache.users.entries.lock().unwrap().len();
        assert!(kept <= MAX_ENTRIES, "{kept}");
    }
}

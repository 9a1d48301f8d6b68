//! What cuts a connection's secrets out of its answers: the spec's own, built once per
//! connection, and the OAuth tokens the connection sends, which change as they are refreshed
//! (rebuilt only when a new one was seen).

use std::sync::{Arc, Mutex, PoisonError};

use switchboard_core::ServerSpec;
use switchboard_core::spec::Redactor;

use crate::connection::Connection;

pub(crate) struct LiveRedactor {
    spec: Arc<ServerSpec>,
    /// The spec's secrets alone: what a connection without a sign-in uses, without a lock.
    base: Arc<Redactor>,
    /// With the OAuth tokens too, and the token generation it was built for.
    with_tokens: Mutex<Option<(u64, Arc<Redactor>)>>,
}

impl LiveRedactor {
    pub(crate) fn new(spec: Arc<ServerSpec>) -> Self {
        Self {
            base: Arc::new(spec.redactor()),
            spec,
            with_tokens: Mutex::new(None),
        }
    }

    /// The redactor for `conn`'s answers now.
    pub(crate) fn current(&self, conn: &Connection) -> Arc<Redactor> {
        let Some(seen) = conn.tokens() else {
            return Arc::clone(&self.base);
        };
        let mut cached = self
            .with_tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match &*cached {
            Some((generation, redactor)) if *generation == seen.generation() => {
                Arc::clone(redactor)
            }
            _ => {
                let (generation, tokens) = seen.snapshot();
                let redactor = Arc::new(self.spec.redactor_with(tokens));
                *cached = Some((generation, Arc::clone(&redactor)));
                redactor
            }
        }
    }
}

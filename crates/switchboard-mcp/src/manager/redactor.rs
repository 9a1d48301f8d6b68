//! What cuts a connection's secrets out of its answers: the spec's own, built once per
//! connection, and the OAuth tokens the connection sends, which change as they are refreshed
//! (rebuilt only when a new one was seen).

use std::sync::{Arc, Mutex, PoisonError};

use switchboard_core::ServerSpec;
use switchboard_core::spec::Redactor;

use crate::connection::Connection;

pub(crate) struct LiveRedactor {
    spec: Arc<ServerSpec>,
    /// The spec's redactor, and the token generation the last rebuild included.
    current: Mutex<(Option<u64>, Arc<Redactor>)>,
}

impl LiveRedactor {
    pub(crate) fn new(spec: Arc<ServerSpec>) -> Self {
        let redactor = Arc::new(spec.redactor());
        Self {
            spec,
            current: Mutex::new((None, redactor)),
        }
    }

    /// The redactor for `conn`'s answers now.
    pub(crate) fn current(&self, conn: &Connection) -> Arc<Redactor> {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        let Some((generation, tokens)) = conn.tokens() else {
            return Arc::clone(&current.1);
        };
        if current.0 != Some(generation) {
            *current = (Some(generation), Arc::new(self.spec.redactor_with(tokens)));
        }
        Arc::clone(&current.1)
    }
}

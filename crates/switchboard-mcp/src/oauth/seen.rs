//! The tokens a connection's sign-in has sent, for its redactor: an upstream that echoes its
//! `Authorization` header (a debugging tool, a "whoami") must not put the person's token into
//! a tool result, a stored conversation, a model request or a log.
//!
//! rmcp's client reads the credentials from the vault before every request and writes them
//! back after each refresh ([`super::credentials::VaultCredentials`]); both note the tokens
//! here, so the redactor always knows the token in use, and the one before it while a refresh
//! is under way.

use std::sync::{Mutex, PoisonError};

use rmcp::transport::StoredCredentials;

/// Tokens kept: the access and refresh tokens in use and the pair before them.
const KEPT: usize = 4;

/// The tokens seen, newest last, with a generation that changes whenever one is added.
#[derive(Debug, Default)]
pub(crate) struct SeenTokens(Mutex<(u64, Vec<String>)>);

impl SeenTokens {
    /// Notes the access and refresh tokens of `credentials`.
    pub(crate) fn note(&self, credentials: &StoredCredentials) {
        let Some(response) = &credentials.token_response else {
            return;
        };
        // The response type's getters need `oauth2`'s trait; its JSON form names the fields
        // as RFC 6749 does.
        let Ok(json) = serde_json::to_value(response) else {
            return;
        };
        let tokens = ["access_token", "refresh_token"]
            .into_iter()
            .filter_map(|field| json.get(field).and_then(serde_json::Value::as_str));
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for token in tokens {
            if !seen.1.iter().any(|known| known == token) {
                seen.1.push(token.to_owned());
                seen.0 += 1;
            }
        }
        let excess = seen.1.len().saturating_sub(KEPT);
        seen.1.drain(..excess);
    }

    /// Which tokens have been seen: changes whenever one is added.
    pub(crate) fn generation(&self) -> u64 {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).0
    }

    /// The generation and the tokens.
    pub(crate) fn snapshot(&self) -> (u64, Vec<String>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(access: &str, refresh: &str) -> StoredCredentials {
        serde_json::from_value(serde_json::json!({
            "client_id": "c",
            "token_response": {
                "access_token": access,
                "token_type": "bearer",
                "refresh_token": refresh,
            },
        }))
        .unwrap()
    }

    #[test]
    fn the_tokens_in_use_and_the_ones_before_are_kept() {
        let seen = SeenTokens::default();
        seen.note(&credentials("access-1", "refresh-1"));
        let (first, tokens) = seen.snapshot();
        assert_eq!(tokens, ["access-1", "refresh-1"]);
        seen.note(&credentials("access-1", "refresh-1"));
        assert_eq!(seen.snapshot().0, first, "nothing new, same generation");
        seen.note(&credentials("access-2", "refresh-2"));
        seen.note(&credentials("access-3", "refresh-3"));
        let (later, tokens) = seen.snapshot();
        assert!(later > first);
        assert_eq!(tokens, ["access-2", "refresh-2", "access-3", "refresh-3"]);
    }
}

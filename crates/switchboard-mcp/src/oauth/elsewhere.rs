//! Tokens for a server that runs elsewhere (on a node): the host keeps the person's sign-in
//! and sends the access token with each request; the node puts it on the server's connection
//! and keeps no refresh token, so refreshing stays here, under the same locks as for a local
//! connection (one refresh at a time per sign-in, across replicas).
//!
//! A token is read from the vault for each request, as rmcp's client does for a local one,
//! and refreshed first when less than [`REFRESH_BEFORE`] remain; after the server refused a
//! token, [`SignIns::token_after_refusal`] gives the one to try once more. The authorization
//! server is reached through the `http` the caller gives (the node's network); its metadata
//! is discovered only when a refresh needs it.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::transport::{AuthError, OAuthHttpClient, StoredCredentials};
use switchboard_core::{OwnerId, ServerSpec};

use super::credentials::Record;
use super::{SignIns, configure, failed, sign_in};
use crate::error::McpError;

/// rmcp's margin: a token with less time than this left is refreshed before it is sent.
const REFRESH_BEFORE: u64 = 30;

impl SignIns {
    /// The access token to send with a request to `spec` on `owner`'s behalf, refreshed first
    /// when it is about to expire; `None` when there is no sign-in, or when it expired and
    /// cannot be refreshed (the server's refusal then asks for a sign-in, as for a local
    /// connection).
    pub async fn token_to_send(
        &self,
        http: Arc<dyn OAuthHttpClient>,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Option<String>, McpError> {
        let record = self.stored(owner, spec).await?;
        let Some(record) = record else {
            return Ok(None);
        };
        let Some(token) = access_token(&record.credentials) else {
            return Ok(None);
        };
        if !expiring(&record.credentials) {
            return Ok(Some(token));
        }
        let refreshed = async {
            let manager = self.configured(http, owner, spec, &record).await?;
            manager.get_access_token().await
        };
        match refreshed.await {
            Ok(token) => Ok(Some(token)),
            Err(AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_)) => Ok(None),
            Err(error) => Err(failed(spec, error)),
        }
    }

    /// After the server refused `sent`: the token to try once more (one refreshed since by
    /// another request or replica, or refreshed now); `None` when only a new sign-in will do.
    pub async fn token_after_refusal(
        &self,
        http: Arc<dyn OAuthHttpClient>,
        owner: &OwnerId,
        spec: &ServerSpec,
        sent: &str,
    ) -> Result<Option<String>, McpError> {
        let record = self.stored(owner, spec).await?;
        let Some(record) = record else {
            return Ok(None);
        };
        match access_token(&record.credentials) {
            None => return Ok(None),
            Some(stored) if stored != sent => return Ok(Some(stored)),
            Some(_) => {}
        }
        let refreshed = async {
            let manager = self.configured(http, owner, spec, &record).await?;
            manager.refresh_token().await.map(|_| ())
        };
        match refreshed.await {
            Ok(()) => {}
            Err(AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_)) => {
                return Ok(None);
            }
            Err(error) => return Err(failed(spec, error)),
        }
        // rmcp saved the new tokens; the response's getters would need `oauth2`'s trait.
        let fresh = self.stored(owner, spec).await?;
        Ok(fresh
            .and_then(|record| access_token(&record.credentials))
            .filter(|fresh| fresh != sent))
    }

    async fn stored(&self, owner: &OwnerId, spec: &ServerSpec) -> Result<Option<Record>, McpError> {
        self.credentials(owner, &spec.id)
            .record()
            .await
            .map_err(|error| failed(spec, error))
    }

    /// A manager for `owner`'s sign-in to `spec`, configured to refresh it.
    async fn configured(
        &self,
        http: Arc<dyn OAuthHttpClient>,
        owner: &OwnerId,
        spec: &ServerSpec,
        record: &Record,
    ) -> Result<rmcp::transport::AuthorizationManager, AuthError> {
        let mut manager = sign_in::manager(spec, http, self.credentials(owner, &spec.id)).await?;
        let challenge = self.challenges.last(owner, &spec.id);
        configure(&mut manager, record, challenge.as_deref()).await?;
        Ok(manager)
    }
}

/// The JSON of the token response, whose fields are named as in RFC 6749 (its getters need
/// `oauth2`'s trait).
fn token_field(credentials: &StoredCredentials, field: &str) -> Option<serde_json::Value> {
    let response = credentials.token_response.as_ref()?;
    let json = serde_json::to_value(response).ok()?;
    json.get(field).cloned()
}

fn access_token(credentials: &StoredCredentials) -> Option<String> {
    token_field(credentials, "access_token").and_then(|v| v.as_str().map(str::to_owned))
}

/// Whether the access token has less than [`REFRESH_BEFORE`] left; one whose lifetime is not
/// known is sent as it is, as rmcp does.
fn expiring(credentials: &StoredCredentials) -> bool {
    let Some(expires_in) = token_field(credentials, "expires_in").and_then(|v| v.as_u64()) else {
        return false;
    };
    let Some(received_at) = credentials.token_received_at else {
        return false;
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let remaining = expires_in.saturating_sub(now.saturating_sub(received_at));
    remaining < REFRESH_BEFORE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(expires_in: Option<u64>, received_at: Option<u64>) -> StoredCredentials {
        let mut response = serde_json::json!({"access_token": "at-1", "token_type": "bearer"});
        if let Some(expires_in) = expires_in {
            response["expires_in"] = expires_in.into();
        }
        serde_json::from_value(serde_json::json!({
            "client_id": "c",
            "token_response": response,
            "token_received_at": received_at,
        }))
        .unwrap()
    }

    fn now() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs()
    }

    #[test]
    fn a_token_is_refreshed_when_less_than_thirty_seconds_remain() {
        let fresh = credentials(Some(3600), Some(now()));
        assert_eq!(access_token(&fresh).as_deref(), Some("at-1"));
        assert!(!expiring(&fresh));
        assert!(expiring(&credentials(Some(3600), Some(now() - 3590))));
        assert!(expiring(&credentials(Some(10), Some(now()))));
        assert!(
            !expiring(&credentials(None, Some(now()))),
            "lifetime unknown"
        );
        assert!(!expiring(&credentials(Some(10), None)), "age unknown");
    }
}

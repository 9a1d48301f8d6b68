//! One person's sign-in to one server as rmcp sees it: a [`CredentialStore`] over the
//! [`OAuthVault`], and the record it keeps there.
//!
//! rmcp's `StoredCredentials` holds the client id and tokens but not a dynamically
//! registered client's secret (it expects the client to be configured again from elsewhere),
//! so the record adds the secret and the redirect URI the client was registered with: enough
//! to refresh tokens after a restart, on any replica.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::transport::{AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use switchboard_core::{OwnerId, ServerId};

use super::seen::SeenTokens;
use super::vault::OAuthVault;

/// What the vault keeps for one (person, server).
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Record {
    pub credentials: StoredCredentials,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}

impl Record {
    pub(crate) fn parse(text: &str) -> Result<Record, AuthError> {
        serde_json::from_str(text)
            .map_err(|e| AuthError::InternalError(format!("a stored sign-in does not read: {e}")))
    }

    pub(crate) fn text(&self) -> Result<String, AuthError> {
        serde_json::to_string(self)
            .map_err(|e| AuthError::InternalError(format!("a sign-in does not write: {e}")))
    }
}

/// Refreshes of one (person, server) in this process wait for each other; the vault's lock
/// does the same across processes.
#[derive(Default)]
pub(crate) struct RefreshLocks(Mutex<HashMap<Key, Arc<tokio::sync::Mutex<()>>>>);

type Key = (OwnerId, ServerId);

impl RefreshLocks {
    fn of(&self, key: Key) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // Locks nobody holds or waits for go, so the map stays as small as the refreshes.
        locks.retain(|_, lock| Arc::strong_count(lock) > 1);
        Arc::clone(locks.entry(key).or_default())
    }
}

/// rmcp's view of one (person, server) sign-in.
#[derive(Clone)]
pub(crate) struct VaultCredentials {
    pub vault: Arc<dyn OAuthVault>,
    pub locks: Arc<RefreshLocks>,
    pub owner: OwnerId,
    pub server: ServerId,
    /// Where the tokens read and written are noted for the connection's redactor.
    pub seen: Arc<SeenTokens>,
}

fn failed(error: impl std::fmt::Display) -> AuthError {
    AuthError::InternalError(error.to_string())
}

impl VaultCredentials {
    pub(crate) async fn record(&self) -> Result<Option<Record>, AuthError> {
        match self
            .vault
            .load(&self.owner, &self.server)
            .await
            .map_err(failed)?
        {
            Some(text) => Record::parse(&text).map(Some),
            None => Ok(None),
        }
    }

    pub(crate) async fn keep(&self, record: &Record) -> Result<(), AuthError> {
        self.vault
            .save(&self.owner, &self.server, &record.text()?)
            .await
            .map_err(failed)
    }
}

#[async_trait::async_trait]
impl CredentialStore for VaultCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let credentials = self.record().await?.map(|record| record.credentials);
        if let Some(credentials) = &credentials {
            self.seen.note(credentials);
        }
        Ok(credentials)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.seen.note(&credentials);
        // The secret and redirect URI belong to the client: kept while the client is.
        let previous = self.record().await?;
        let (client_secret, redirect_uri) = match previous {
            Some(record) if record.credentials.client_id == credentials.client_id => {
                (record.client_secret, record.redirect_uri)
            }
            _ => (None, None),
        };
        self.keep(&Record {
            credentials,
            client_secret,
            redirect_uri,
        })
        .await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.vault
            .clear(&self.owner, &self.server)
            .await
            .map_err(failed)
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let local = self
            .locks
            .of((self.owner.clone(), self.server.clone()))
            .lock_owned()
            .await;
        let shared = self
            .vault
            .lock_refresh(&self.owner, &self.server)
            .await
            .map_err(failed)?;
        Ok(Some(CredentialRefreshGuard::new((local, shared))))
    }
}

//! The connection manager's OAuth vault on the store: each person's tokens per
//! server sealed in `mcp_oauth_tokens`, sign-ins under way in `mcp_oauth_pending`, and the
//! row lock replicas take to refresh (`mcp_oauth_refresh_locks`, Postgres).

use std::sync::Arc;

use switchboard_core::{OwnerId, ServerId};
use switchboard_mcp::oauth::{OAuthVault, VaultError, VaultLock};
use switchboard_store::Store;

/// [`OAuthVault`] over a [`Store`].
#[derive(Debug, Clone)]
pub struct StoreVault(pub Arc<dyn Store>);

fn failed(error: switchboard_store::StoreError) -> VaultError {
    VaultError(error.to_string())
}

#[async_trait::async_trait]
impl OAuthVault for StoreVault {
    async fn load(&self, owner: &OwnerId, server: &ServerId) -> Result<Option<String>, VaultError> {
        self.0
            .oauth_credentials(owner, server)
            .await
            .map_err(failed)
    }

    async fn save(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        record: &str,
    ) -> Result<(), VaultError> {
        self.0
            .save_oauth_credentials(owner, server, record)
            .await
            .map_err(failed)
    }

    async fn clear(&self, owner: &OwnerId, server: &ServerId) -> Result<(), VaultError> {
        self.0
            .delete_oauth_credentials(owner, server)
            .await
            .map(|_| ())
            .map_err(failed)
    }

    async fn lock_refresh(
        &self,
        owner: &OwnerId,
        server: &ServerId,
    ) -> Result<VaultLock, VaultError> {
        let lock = self
            .0
            .lock_oauth_refresh(owner, server)
            .await
            .map_err(failed)?;
        Ok(Box::new(lock))
    }

    async fn save_pending(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        state: &str,
        payload: &str,
    ) -> Result<(), VaultError> {
        self.0
            .save_oauth_pending(owner, server, state, payload)
            .await
            .map_err(failed)
    }

    async fn take_pending(
        &self,
        state: &str,
    ) -> Result<Option<(OwnerId, ServerId, String)>, VaultError> {
        let Some(pending) = self.0.oauth_pending(state).await.map_err(failed)? else {
            return Ok(None);
        };
        // Taken once: a second callback with the same state finds nothing.
        if !self.0.delete_oauth_pending(state).await.map_err(failed)? {
            return Ok(None);
        }
        Ok(Some((pending.owner, pending.server, pending.payload)))
    }
}

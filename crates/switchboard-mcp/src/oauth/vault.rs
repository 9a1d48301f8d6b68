//! Where sign-ins are kept: the [`OAuthVault`] the layer that owns storage gives the manager
//! (the HTTP server keeps them in its store, sealed), or [`MemoryVault`] for the command line
//! and tests. The manager knows the records only as text it wrote itself.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use switchboard_core::{OwnerId, ServerId};

/// A failure of the vault's storage, worded for a log.
#[derive(Debug, thiserror::Error)]
#[error("the OAuth vault failed: {0}")]
pub struct VaultError(pub String);

/// Something that holds a lock until dropped.
pub type VaultLock = Box<dyn std::any::Any + Send>;

/// Each person's sign-in to each server, and the sign-ins under way (by their OAuth `state`).
#[async_trait::async_trait]
pub trait OAuthVault: Send + Sync + 'static {
    async fn load(&self, owner: &OwnerId, server: &ServerId) -> Result<Option<String>, VaultError>;
    async fn save(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        record: &str,
    ) -> Result<(), VaultError>;
    async fn clear(&self, owner: &OwnerId, server: &ServerId) -> Result<(), VaultError>;
    /// Keeps every other process from refreshing these tokens until the lock is dropped
    /// (the manager serializes the refreshes within its own process itself).
    async fn lock_refresh(
        &self,
        owner: &OwnerId,
        server: &ServerId,
    ) -> Result<VaultLock, VaultError>;
    async fn save_pending(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        state: &str,
        payload: &str,
    ) -> Result<(), VaultError>;
    /// The sign-in under way with `state`, taken: a `state` is good for one callback.
    async fn take_pending(&self, state: &str) -> Result<Option<Pending>, VaultError>;
}

/// A sign-in under way: whose, to which server, and the manager's own record of it.
pub type Pending = (OwnerId, ServerId, String);

/// Sign-ins kept in this process's memory only: the command line, the conformance driver and
/// tests.
#[derive(Debug, Default, Clone)]
pub struct MemoryVault {
    records: Arc<Mutex<HashMap<(OwnerId, ServerId), String>>>,
    pending: Arc<Mutex<HashMap<String, Pending>>>,
}

#[async_trait::async_trait]
impl OAuthVault for MemoryVault {
    async fn load(&self, owner: &OwnerId, server: &ServerId) -> Result<Option<String>, VaultError> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(records.get(&(owner.clone(), server.clone())).cloned())
    }

    async fn save(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        record: &str,
    ) -> Result<(), VaultError> {
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        records.insert((owner.clone(), server.clone()), record.to_owned());
        Ok(())
    }

    async fn clear(&self, owner: &OwnerId, server: &ServerId) -> Result<(), VaultError> {
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        records.remove(&(owner.clone(), server.clone()));
        Ok(())
    }

    async fn lock_refresh(
        &self,
        _owner: &OwnerId,
        _server: &ServerId,
    ) -> Result<VaultLock, VaultError> {
        Ok(Box::new(()))
    }

    async fn save_pending(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        state: &str,
        payload: &str,
    ) -> Result<(), VaultError> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        // A bound like the store's: the command line starts a handful at most.
        if pending.len() >= 64 {
            pending.clear();
        }
        pending.insert(
            state.to_owned(),
            (owner.clone(), server.clone(), payload.to_owned()),
        );
        Ok(())
    }

    async fn take_pending(&self, state: &str) -> Result<Option<Pending>, VaultError> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(pending.remove(state))
    }
}

//! A person's assistants and providers, saved within their quotas and rules: an assistant's
//! variables must still cover what its tool nodes use, a change is announced to the
//! gateway's sessions (a view may follow an assistant's servers), and a member's provider URL
//! is held to the destination guard.

use std::sync::Arc;

use switchboard_core::{OwnerId, ServerId};
use switchboard_gateway::Gateway;
use switchboard_store::{Assistant, AssistantConfig, Provider, ProviderConfig, Store, User};

use crate::destinations::check_saved_url;
use crate::error::AppError;
use crate::policy::Rules;
use crate::tool_nodes::check_assistant_variables;

/// The assistant use cases.
pub struct Assistants {
    store: Arc<dyn Store>,
    gateway: Arc<Gateway>,
    max_assistants: u32,
}

impl Assistants {
    pub(crate) fn new(store: Arc<dyn Store>, gateway: Arc<Gateway>, max_assistants: u32) -> Self {
        Self {
            store,
            gateway,
            max_assistants,
        }
    }

    /// Creates an assistant for `owner`, within their quota.
    pub async fn create(
        &self,
        owner: &OwnerId,
        config: &AssistantConfig,
    ) -> Result<Assistant, AppError> {
        Ok(self
            .store
            .create_assistant_within(owner, config, self.max_assistants)
            .await?)
    }

    /// Replaces `owner`'s assistant `id`: its variables must still declare every variable its
    /// tool nodes use.
    pub async fn replace(
        &self,
        owner: &OwnerId,
        id: &str,
        config: &AssistantConfig,
    ) -> Result<Assistant, AppError> {
        check_assistant_variables(self.store.as_ref(), owner, id, &config.variables).await?;
        let updated = self.store.update_assistant(owner, id, config).await?;
        self.gateway.announce(owner);
        Ok(updated)
    }

    /// Deletes `owner`'s assistant `id`.
    pub async fn delete(&self, owner: &OwnerId, id: &str) -> Result<(), AppError> {
        self.store.delete_assistant(owner, id).await?;
        self.gateway.announce(owner);
        Ok(())
    }

    /// Sets the servers `owner`'s assistant `id` may use.
    pub async fn set_servers(
        &self,
        owner: &OwnerId,
        id: &str,
        servers: &[ServerId],
    ) -> Result<Assistant, AppError> {
        let assistant = self.store.set_assistant_servers(owner, id, servers).await?;
        self.gateway.announce(owner);
        Ok(assistant)
    }
}

/// The provider use cases.
pub struct Providers {
    store: Arc<dyn Store>,
    rules: Arc<Rules>,
    max_providers: u32,
}

impl Providers {
    pub(crate) fn new(store: Arc<dyn Store>, rules: Arc<Rules>, max_providers: u32) -> Self {
        Self {
            store,
            rules,
            max_providers,
        }
    }

    /// Creates a provider for `user`, within their quota and the destination guard.
    pub async fn create(&self, user: &User, config: &ProviderConfig) -> Result<Provider, AppError> {
        check_saved_url(&self.rules, user.role, config.base_url.as_deref())?;
        Ok(self
            .store
            .create_provider_within(&user.id, config, self.max_providers)
            .await?)
    }

    /// Replaces `user`'s provider `id` (a masked key keeps the stored one), within the
    /// destination guard.
    pub async fn replace(
        &self,
        user: &User,
        id: &str,
        config: &ProviderConfig,
    ) -> Result<Provider, AppError> {
        check_saved_url(&self.rules, user.role, config.base_url.as_deref())?;
        Ok(self.store.update_provider(&user.id, id, config).await?)
    }
}

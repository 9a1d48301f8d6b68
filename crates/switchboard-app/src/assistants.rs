//! A person's assistants, saved within their quotas and rules: an assistant's variables must
//! still cover what its tool nodes use, and a change is announced to the gateway's sessions
//! (a view may follow an assistant's servers).

use std::sync::Arc;

use switchboard_core::{OwnerId, ServerId};
use switchboard_gateway::Gateway;
use switchboard_store::{Assistant, AssistantConfig, Store};

use crate::error::AppError;
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

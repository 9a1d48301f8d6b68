//! The command line's servers: those of the `local` owner in the store.
//!
//! Opening the store makes sure the `local` user exists and brings in the servers file of
//! earlier versions once ([`super::legacy`]). Commands name a server by its name or, failing
//! that, its id. Listings are masked by the store; only [`LocalServers::connection_spec`] and
//! [`LocalServers::enabled_connection_specs`], which feed the connection manager, and
//! [`LocalServers::auto_approve`], which writes a server back whole, carry the secrets in
//! clear.

use std::sync::Arc;

use anyhow::Context as _;
use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_store::prelude::*;
use switchboard_store::{DB_FILE, Role, StoreConfig, StoreError, StoredServer};

use super::{CliError, legacy};

/// The store, seen as the `local` owner.
#[derive(Debug)]
pub struct LocalServers {
    store: Arc<dyn Store>,
    owner: OwnerId,
}

/// What [`LocalServers::put`] did, with the server as stored (masked).
#[derive(Debug)]
pub enum Put {
    Added(StoredServer),
    Replaced(StoredServer),
}

impl LocalServers {
    /// Opens the configured store for the `local` owner.
    pub async fn open(config: &StoreConfig) -> anyhow::Result<Self> {
        let store = switchboard_store::open(config)
            .await
            .with_context(|| format!("cannot open the store {}", describe(config)))?;
        let owner = OwnerId::local();
        store.ensure_user(&owner, "local", Role::Admin).await?;
        legacy::import_once(store.as_ref(), &owner, &config.data_dir).await?;
        Ok(Self { store, owner })
    }

    /// The store itself, for commands that keep more than servers (`chat`).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The owner everything of the command line belongs to.
    pub fn owner(&self) -> &OwnerId {
        &self.owner
    }

    /// Every server, in the order they were added, secrets masked.
    pub async fn list(&self) -> Result<Vec<StoredServer>, StoreError> {
        self.store.servers(&self.owner).await
    }

    /// The server called (or with the id) `name`, secrets masked.
    pub async fn find(&self, name: &str) -> Result<StoredServer, CliError> {
        let mut servers = self.list().await?;
        let index = (servers.iter().position(|s| s.spec.name == name))
            .or_else(|| servers.iter().position(|s| s.spec.id.0 == name))
            .ok_or_else(|| CliError::ServerNotFound(name.to_owned()))?;
        Ok(servers.swap_remove(index))
    }

    /// The server called (or with the id) `name`, secrets in clear, for connecting.
    pub async fn connection_spec(&self, name: &str) -> Result<ServerSpec, CliError> {
        let id = self.find(name).await?.spec.id;
        Ok(self.store.connection_spec(&self.owner, &id).await?)
    }

    /// Every enabled server, secrets in clear, for connecting.
    pub async fn enabled_connection_specs(&self) -> Result<Vec<ServerSpec>, StoreError> {
        let mut specs = self.store.connection_specs(&self.owner).await?;
        specs.retain(|spec| spec.enabled);
        Ok(specs)
    }

    /// Adds `tool` to the auto-approve list of server `id`. The server is read with its secrets
    /// in clear and written back whole, so nothing but the list changes.
    pub async fn auto_approve(&self, id: &ServerId, tool: &str) -> Result<StoredServer, CliError> {
        let edited = self
            .store
            .edit_server(&self.owner, id, &|old: &ServerSpec| {
                let mut spec = old.clone();
                spec.auto_approved_tools.insert(tool.to_owned());
                Ok(spec)
            })
            .await?;
        Ok(edited)
    }

    /// Removes the server called (or with the id) `name` and returns it as it was.
    pub async fn remove(&self, name: &str) -> Result<StoredServer, CliError> {
        let server = self.find(name).await?;
        self.store
            .delete_server(&self.owner, &server.spec.id)
            .await?;
        Ok(server)
    }

    /// Adds `spec`, or with `replace` overwrites the server of the same name (which keeps its
    /// id). A name or id taken otherwise is the store's conflict, with a hint on what to do.
    pub async fn put(&self, mut spec: ServerSpec, replace: bool) -> Result<Put, CliError> {
        let same_name = self
            .list()
            .await?
            .into_iter()
            .find(|s| s.spec.name == spec.name);
        let outcome = match &same_name {
            Some(old) if replace => {
                spec.id = old.spec.id.clone();
                self.store
                    .update_server(&self.owner, &old.spec.id, &spec)
                    .await
                    .map(Put::Replaced)
            }
            _ => self
                .store
                .create_server(&self.owner, &spec)
                .await
                .map(Put::Added),
        };
        outcome.map_err(|error| match error {
            StoreError::Conflict { .. } => CliError::Taken {
                hint: if same_name.is_some() && !replace {
                    "pass --replace to overwrite it"
                } else {
                    "choose another name"
                },
                source: error,
            },
            other => CliError::Store(other),
        })
    }
}

/// Where the store is, for messages: the database URL without its password, or the file.
fn describe(config: &StoreConfig) -> String {
    match &config.database_url {
        Some(url) => switchboard_core::spec::redact_url(url),
        None => config.data_dir.join(DB_FILE).display().to_string(),
    }
}

//! The command line's servers: those of the person it acts as, with the application built on
//! it ([`super::app`]).
//!
//! It acts as the user `--user` (or `SWITCHBOARD_USER`) names; else as `local` when there is
//! one (the command line's own, and `serve --single-user`'s); else as the first admin (the
//! one `serve` made on first start with tokens), so the command line and the web UI see the
//! same servers; on a store with neither, `local` is made. Opening brings in the servers file
//! of earlier versions once ([`super::legacy`]). Commands name a server by its name or, failing
//! that, its id. Listings are masked by the store; only [`LocalServers::connection_spec`] and
//! [`LocalServers::enabled_connection_specs`], which feed the connection manager, and
//! [`LocalServers::auto_approve`], which writes a server back whole, carry the secrets in
//! clear.

use std::sync::Arc;

use anyhow::Context as _;
use switchboard_app::{App, AppConfig, AppError, ToolSwitches};
use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_store::prelude::*;
use switchboard_store::{DB_FILE, Role, StoreConfig, StoreError, StoredServer};

use super::{CliError, legacy};

/// The application, seen as the `local` owner.
#[derive(Debug)]
pub struct LocalServers {
    app: Arc<App>,
    owner: OwnerId,
}

/// What [`LocalServers::put`] did, with the server as stored (masked).
#[derive(Debug)]
pub enum Put {
    Added(StoredServer),
    Replaced(StoredServer),
}

impl LocalServers {
    /// Builds the application from `config` on `store` for the person the command line acts
    /// as: the user named `user`, else as the module says.
    pub async fn open(
        store: &StoreConfig,
        config: AppConfig,
        user: Option<&str>,
    ) -> anyhow::Result<Self> {
        let app = App::build(store, config)
            .await
            .with_context(|| format!("cannot open the store {}", describe(store)))?;
        let owner = acting_as(app.store.as_ref(), user).await?;
        legacy::import_once(app.store.as_ref(), &owner, &store.data_dir).await?;
        Ok(Self {
            app: Arc::new(app),
            owner,
        })
    }

    /// The application every command calls.
    pub fn app(&self) -> &Arc<App> {
        &self.app
    }

    /// The store itself, for commands that keep more than servers (`chat`).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.app.store
    }

    /// Runs `work` and shuts the pool down afterwards (every stdio server it started ends
    /// with its process group), after the calls' audit records are written out. Ctrl-C
    /// abandons `work` and returns [`CliError::Interrupted`].
    pub async fn with_pool<T>(
        &self,
        work: impl AsyncFnOnce(&App) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let outcome = tokio::select! {
            result = work(&self.app) => result,
            () = super::app::interrupted() => Err(CliError::Interrupted.into()),
        };
        self.app.tool_calls.flush().await;
        self.app.pool.shutdown().await;
        outcome
    }

    /// The owner everything of the command line belongs to.
    pub fn owner(&self) -> &OwnerId {
        &self.owner
    }

    /// Every server, in the order they were added, secrets masked.
    pub async fn list(&self) -> Result<Vec<StoredServer>, StoreError> {
        self.app.store.servers(&self.owner).await
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
        Ok(self.app.store.connection_spec(&self.owner, &id).await?)
    }

    /// Every enabled server, secrets in clear, for connecting.
    pub async fn enabled_connection_specs(&self) -> Result<Vec<ServerSpec>, StoreError> {
        let mut specs = self.app.store.connection_specs(&self.owner).await?;
        specs.retain(|spec| spec.enabled);
        Ok(specs)
    }

    /// Adds `tool` to the auto-approve list of server `id`, as the tool's switch in the web
    /// UI does (nothing else of the server changes).
    pub async fn auto_approve(&self, id: &ServerId, tool: &str) -> Result<StoredServer, CliError> {
        self.set_auto_approve(id, tool, true).await
    }

    /// Whether `tool` of server `id` runs without asking.
    pub async fn set_auto_approve(
        &self,
        id: &ServerId,
        tool: &str,
        on: bool,
    ) -> Result<StoredServer, CliError> {
        let switches = ToolSwitches {
            auto_approve: Some(on),
            ..ToolSwitches::default()
        };
        Ok(self
            .app
            .servers
            .set_tool_switches(&self.owner, id, tool, switches)
            .await?)
    }

    /// Removes the server called (or with the id) `name` (its connection and process group
    /// end with it) and returns it as it was.
    pub async fn remove(&self, name: &str) -> Result<StoredServer, CliError> {
        let server = self.find(name).await?;
        self.app
            .servers
            .delete(&self.owner, &server.spec.id)
            .await?;
        Ok(server)
    }

    /// Adds `spec`, or with `replace` overwrites the server of the same name (which keeps its
    /// id), through the application's server rules and quota. A name or id taken otherwise is
    /// the store's conflict, with a hint on what to do.
    pub async fn put(&self, mut spec: ServerSpec, replace: bool) -> Result<Put, CliError> {
        let user = self.app.store.user(&self.owner).await?;
        let same_name = self
            .list()
            .await?
            .into_iter()
            .find(|s| s.spec.name == spec.name);
        let outcome = match &same_name {
            Some(old) if replace => {
                spec.id = old.spec.id.clone();
                self.app
                    .servers
                    .replace(&user, &spec)
                    .await
                    .map(Put::Replaced)
            }
            _ => self.app.servers.create(&user, &spec).await.map(Put::Added),
        };
        outcome.map_err(|error| match error {
            AppError::Store(error @ StoreError::Conflict { .. }) => CliError::Taken {
                hint: if same_name.is_some() && !replace {
                    "pass --replace to overwrite it"
                } else {
                    "choose another name"
                },
                source: error,
            },
            other => CliError::from(other),
        })
    }
}

/// Who the command line acts as (see the module docs).
async fn acting_as(store: &dyn Store, user: Option<&str>) -> anyhow::Result<OwnerId> {
    let users = store.users().await?;
    if let Some(name) = user {
        return users
            .into_iter()
            .find(|u| u.name == name)
            .map(|u| u.id)
            .ok_or_else(|| CliError::UserNotFound(name.to_owned()).into());
    }
    let local = OwnerId::local();
    if users.iter().any(|u| u.id == local) {
        return Ok(local);
    }
    // `users()` lists them oldest first.
    if let Some(admin) = users.into_iter().find(|u| u.role == Role::Admin) {
        return Ok(admin.id);
    }
    store.ensure_user(&local, "local", Role::Admin).await?;
    Ok(local)
}

/// Where the store is, for messages: the database URL without its password, or the file.
fn describe(config: &StoreConfig) -> String {
    match &config.database_url {
        Some(url) => switchboard_core::spec::redact_url(url),
        None => config.data_dir.join(DB_FILE).display().to_string(),
    }
}

//! A person's MCP servers: saving, replacing and deleting them, the one place their rules
//! live. Every front end (the REST routes, the seeds' own routes, the command line, an
//! import) saves through here, so a server saved from any of them passes the same checks:
//!
//! - its `node` must be one this host is configured to reach (anyone may choose one);
//! - a member's stdio server must fit one of the admin's launch templates (checked again by
//!   the connection policy at every spawn);
//! - a member's URL may not name a host the destination guard refuses (a courtesy: the
//!   connect-time check is the one that holds);
//! - creating one stays within the person's server quota, counted in the same transaction
//!   that inserts it.
//!
//! After a write, the pool lets go of what no longer fits (a replaced server's connection,
//! unless only what is read per use changed; a deleted server's, with its process group) and
//! the gateway tells the person's MCP sessions that their lists changed.

use std::sync::Arc;

use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_gateway::Gateway;
use switchboard_mcp::ServerPool;
use switchboard_store::{Store, StoredServer, User};

use crate::destinations::check_saved_url;
use switchboard_core::Refusal;

use crate::error::AppError;
use crate::policy::Rules;

/// The server use cases.
pub struct Servers {
    store: Arc<dyn Store>,
    pool: Arc<dyn ServerPool>,
    gateway: Arc<Gateway>,
    rules: Arc<Rules>,
    max_servers: u32,
}

impl Servers {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        pool: Arc<dyn ServerPool>,
        gateway: Arc<Gateway>,
        rules: Arc<Rules>,
        max_servers: u32,
    ) -> Self {
        Self {
            store,
            pool,
            gateway,
            rules,
            max_servers,
        }
    }

    /// The store the servers are kept in.
    pub(crate) fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// What `user` may save: a node this host knows, a stdio server that fits the launch
    /// rules, a URL the destination guard lets them reach. Checked on every save (create,
    /// import, update), and again by the connection policy before every start.
    pub fn check(&self, user: &User, spec: &ServerSpec) -> Result<(), Refusal> {
        if let Some(node) = spec.node.as_deref() {
            let nodes = self.pool.nodes();
            if !nodes.iter().any(|known| known.name == node) {
                let known: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
                return Err(Refusal::UnknownNode {
                    node: node.to_owned(),
                    known: if known.is_empty() {
                        "-".to_owned()
                    } else {
                        known.join(", ")
                    },
                });
            }
        }
        self.rules
            .may_launch(user.role, spec)
            .map_err(Refusal::Launch)?;
        check_saved_url(&self.rules, user.role, spec.url.as_deref())
    }

    /// Creates `spec` for `user`, within their rules and their server quota.
    pub async fn create(&self, user: &User, spec: &ServerSpec) -> Result<StoredServer, AppError> {
        self.check(user, spec)?;
        let created = self
            .store
            .create_server_within(&user.id, spec, self.max_servers)
            .await?;
        self.gateway.announce(&user.id);
        Ok(created)
    }

    /// Replaces `user`'s server `spec.id` with `spec`, within their rules; masked secrets
    /// keep the stored ones. The old connection is closed, so the next use connects with the
    /// new configuration, unless only what is read per use changed (switches, timeout,
    /// roots): then the connection stays, and a server whose roots changed is told so.
    pub async fn replace(&self, user: &User, spec: &ServerSpec) -> Result<StoredServer, AppError> {
        // Every field is checked, env and cwd included, not only a changed command.
        self.check(user, spec)?;
        let owner = &user.id;
        // The connection to close is the old spec's: it may run on another node than the new.
        let old = self.store.connection_spec(owner, &spec.id).await?;
        let updated = self.store.update_server(owner, &spec.id, spec).await?;
        let stored = self.store.connection_spec(owner, &spec.id).await?;
        self.settle(owner, &old, &stored).await;
        Ok(updated)
    }

    /// Sets `tool`'s switches on `owner`'s server `id` (`None` keeps one as it is): whether
    /// it is offered, and whether its calls run without asking. Written under the server's
    /// row lock, so two switches flipped at once both stay flipped; the connection stays.
    pub async fn set_tool_switches(
        &self,
        owner: &OwnerId,
        id: &ServerId,
        tool: &str,
        switches: ToolSwitches,
    ) -> Result<StoredServer, AppError> {
        let edited = self
            .store
            .edit_server(owner, id, &|old: &ServerSpec| {
                let mut spec = old.clone();
                switches.apply(&mut spec, tool);
                Ok(spec)
            })
            .await?;
        // A tool switched off leaves the gateway's lists of this person.
        self.gateway.announce(owner);
        Ok(edited)
    }

    /// Deletes `owner`'s server `id` and closes its connection (a stdio server's process
    /// group ends with it).
    pub async fn delete(&self, owner: &OwnerId, id: &ServerId) -> Result<(), AppError> {
        // Read first: the pool needs the spec to know where the connection runs.
        let spec = self.store.connection_spec(owner, id).await?;
        self.store.delete_server(owner, id).await?;
        self.pool.disconnect(owner, &spec).await;
        self.gateway.announce(owner);
        Ok(())
    }

    /// After `old` became `stored`: the connection is closed when it no longer fits, the
    /// roots announced when only they changed, and the gateway's sessions told.
    async fn settle(&self, owner: &OwnerId, old: &ServerSpec, stored: &ServerSpec) {
        // A renamed server connects again: its connection speaks of it by name.
        let same = switchboard_mcp::same_connection(old, stored)
            && old.node == stored.node
            && old.name == stored.name;
        if same {
            if old.roots != stored.roots {
                self.pool.update_roots(owner, stored);
            }
        } else {
            self.pool.disconnect(owner, old).await;
        }
        self.gateway.announce(owner);
    }
}

/// A tool's two switches; `None` leaves one as it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolSwitches {
    pub enabled: Option<bool>,
    pub auto_approve: Option<bool>,
}

impl ToolSwitches {
    fn apply(self, spec: &mut ServerSpec, tool: &str) {
        if let Some(enabled) = self.enabled {
            if enabled {
                spec.disabled_tools.remove(tool);
            } else {
                spec.disabled_tools.insert(tool.to_owned());
            }
        }
        if let Some(auto) = self.auto_approve {
            if auto {
                spec.auto_approved_tools.insert(tool.to_owned());
            } else {
                spec.auto_approved_tools.remove(tool);
            }
        }
    }
}

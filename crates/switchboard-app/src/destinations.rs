//! The destination guard for what members configure: their providers' `baseUrl` and their
//! MCP servers' URLs may reach public addresses only, plus the admin's allow list
//! ([`DestinationRules`], `--allow-destination`).
//!
//! The guard is on with tokens (more than one user) and off in single-user mode; admins are
//! never guarded. MCP connections are guarded by the connection manager, told by the
//! [`ServerPolicy`](crate::policy::ServerPolicy); providers here, where a run turns a stored provider
//! into a client: a member's gets the guarded HTTP client, whose resolver checks every
//! address at connect time. Saving a URL whose host is a refused IP literal is refused at
//! once too, as a courtesy: the connect-time check is the one that holds (a name can resolve
//! elsewhere later).

use std::sync::Arc;

use switchboard_core::{DestinationRules, OwnerId};
use switchboard_llm::Provider;
use switchboard_mcp::destination::{check_destination, check_url, guarded_client};
use switchboard_store::{ProviderConfig, Role, Store};

use switchboard_core::Refusal;

use crate::error::AppError;

/// How long resolving a provider's host for the early check may take.
const CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Builds the client of a stored provider: guarded for members when the guard is on. Cheap
/// to clone (the HTTP clients are shared).
#[derive(Clone)]
pub struct ProviderClients {
    store: Arc<dyn Store>,
    /// The guarded client and its rules; `None` when nobody is guarded.
    guard: Option<(reqwest::Client, Arc<DestinationRules>)>,
    plain: reqwest::Client,
}

impl ProviderClients {
    /// Clients with the admin's `rules`, members guarded when `guarded` (more than one
    /// person uses this process).
    pub fn new(store: Arc<dyn Store>, guarded: bool, rules: &DestinationRules) -> Self {
        let guard = guarded.then(|| {
            let rules = Arc::new(rules.clone());
            (guarded_client(Arc::clone(&rules)), rules)
        });
        Self {
            store,
            guard,
            plain: reqwest::Client::new(),
        }
    }

    /// The client of a provider of `owner`'s configured as `config` (its key in clear): a
    /// member's sends through the guarded client, after its `baseUrl` was checked (so a
    /// refusal is reported as one).
    pub async fn client_for(
        &self,
        owner: &OwnerId,
        config: &ProviderConfig,
    ) -> Result<Arc<dyn Provider>, AppError> {
        let guarded = match &self.guard {
            Some(guard) if self.store.user(owner).await?.role != Role::Admin => Some(guard),
            _ => None,
        };
        let http = match guarded {
            Some((client, rules)) => {
                // A resolver that hangs is left to the model call, which fails on its own.
                if let Some(url) = &config.base_url
                    && let Ok(checked) =
                        tokio::time::timeout(CHECK_TIMEOUT, check_destination(url, rules)).await
                {
                    checked.map_err(|refused| Refusal::Destination { host: refused.host })?;
                }
                client.clone()
            }
            None => self.plain.clone(),
        };
        Ok(switchboard_agent::client_with(config, http)?)
    }
}

/// Refuses saving `url` for a person of `role` when the guard is on and its host is an IP
/// literal the guard refuses.
pub fn check_saved_url(rules: &crate::Rules, role: Role, url: Option<&str>) -> Result<(), Refusal> {
    if role == Role::Admin || !rules.guarded() {
        return Ok(());
    }
    match url {
        Some(url) => check_url(url, &rules.destinations)
            .map_err(|refused| Refusal::Destination { host: refused.host }),
        None => Ok(()),
    }
}

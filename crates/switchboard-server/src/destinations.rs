//! The destination guard for what members configure: their providers' `baseUrl` and their
//! MCP servers' URLs may reach public addresses only, plus the admin's allow list
//! ([`DestinationRules`], `--allow-destination`).
//!
//! The guard is on with tokens (more than one user) and off in single-user mode; admins are
//! never guarded. MCP connections are guarded by the connection manager, told by the
//! [`ServerPolicy`](crate::ServerPolicy); providers here, where a run turns a stored provider
//! into a client: a member's gets the guarded HTTP client, whose resolver checks every
//! address at connect time. Saving a URL whose host is a refused IP literal is refused at
//! once too, as a courtesy: the connect-time check is the one that holds (a name can resolve
//! elsewhere later).

use std::sync::Arc;

use switchboard_core::{DestinationRules, ErrorCode, OwnerId};
use switchboard_llm::Provider;
use switchboard_mcp::destination::{check_destination, check_url, guarded_client};
use switchboard_store::{Role, Store};

use crate::auth::Caller;
use crate::error::ApiError;
use crate::state::{AppState, AuthMode};

/// How long resolving a provider's host for the early check may take.
const CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether members are guarded under `auth`: with tokens, yes; a single user, no.
pub(crate) fn guarded_mode(auth: &AuthMode) -> bool {
    matches!(auth, AuthMode::Tokens)
}

/// Builds the client of a stored provider: guarded for members when the guard is on.
pub struct ProviderClients {
    store: Arc<dyn Store>,
    /// The guarded client and its rules; `None` when nobody is guarded.
    guard: Option<(reqwest::Client, Arc<DestinationRules>)>,
    plain: reqwest::Client,
}

impl ProviderClients {
    /// Clients for `auth`'s mode with the admin's `rules`.
    pub fn new(store: Arc<dyn Store>, auth: &AuthMode, rules: &DestinationRules) -> Self {
        let guard = guarded_mode(auth).then(|| {
            let rules = Arc::new(rules.clone());
            (guarded_client(Arc::clone(&rules)), rules)
        });
        Self {
            store,
            guard,
            plain: reqwest::Client::new(),
        }
    }

    /// The client of `stored`, a provider of `owner`'s: a member's sends through the guarded
    /// client, after its `baseUrl` was checked (so a refusal is reported as one).
    pub async fn client_for(
        &self,
        owner: &OwnerId,
        stored: &switchboard_store::Provider,
    ) -> Result<Arc<dyn Provider>, ApiError> {
        let guarded = match &self.guard {
            Some(guard) if self.store.user(owner).await?.role != Role::Admin => Some(guard),
            _ => None,
        };
        let http = match guarded {
            Some((client, rules)) => {
                // A resolver that hangs is left to the model call, which fails on its own.
                if let Some(url) = &stored.config.base_url
                    && let Ok(checked) =
                        tokio::time::timeout(CHECK_TIMEOUT, check_destination(url, rules)).await
                {
                    checked.map_err(|refused| refusal(&refused.host))?;
                }
                client.clone()
            }
            None => self.plain.clone(),
        };
        Ok(switchboard_agent::client_with(stored, http)?)
    }
}

/// Refuses saving `url` for a member when its host is an IP literal the guard refuses.
pub(crate) fn check_saved_url(
    state: &AppState,
    caller: &Caller,
    url: Option<&str>,
) -> Result<(), ApiError> {
    if caller.user.role == Role::Admin || !guarded_mode(&state.auth) {
        return Ok(());
    }
    match url {
        Some(url) => {
            check_url(url, &state.config.destinations).map_err(|refused| refusal(&refused.host))
        }
        None => Ok(()),
    }
}

fn refusal(host: &str) -> ApiError {
    ApiError::new(
        ErrorCode::DestinationNotAllowed,
        switchboard_mcp::destination::refusal_reason(host),
    )
    .words(crate::error_words::spec::destination(host))
}

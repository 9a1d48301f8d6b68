//! A person's model providers: saved within their quota and the destination guard, tested
//! (saved or not) by listing their models, a chat's choice of models, and the model servers
//! found on this machine for a person who has none yet.
//!
//! Every listing goes through the same client a run would use (a member's behind the
//! destination guard, [`ProviderClients`]), so a test says what a chat would meet. A key left
//! masked in a test stands for the saved one under the rule of a save: within the saved
//! origin, or elsewhere only when the request says to take it along
//! ([`ProviderConfig::with_saved_secrets`]).
//!
//! Local servers are looked for only when asked, on the configured ports of 127.0.0.1
//! ([`LocalPorts`]); nothing found is stored until the person adds it. Where members are held
//! to the destination guard and loopback is not on the admin's allow list, a member is told
//! so instead: they could not use what would be found.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

use switchboard_agent::{EnvProvider, ProviderPlan, resolve_provider};
use switchboard_core::Refusal;
use switchboard_llm::{ListLimits, LocalServer, find_local_servers};
use switchboard_store::{Provider, ProviderConfig, Role, Store, User};

use crate::config::LocalPorts;
use crate::destinations::{ProviderClients, check_saved_url};
use crate::error::AppError;
use crate::policy::Rules;
use crate::runs::{conversation_request, resolve_error};

/// How long and how large a look for local servers may be: a closed port is refused at once,
/// so the wait only bounds a port that accepts and stays silent.
const LOCAL_LIMITS: ListLimits = ListLimits {
    timeout: Duration::from_millis(1500),
    max_bytes: 1 << 20,
    max_models: 1_000,
};

/// The models a chat may pick from: those of the provider its runs use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatModels {
    /// The stored provider's id and name; `None` for the one the environment describes.
    pub provider: Option<(String, String)>,
    /// The model the chat's runs use without a model of their own: the assistant's, else
    /// the provider's default.
    pub default_model: Option<String>,
    /// The provider's models, sorted.
    pub models: Vec<String>,
}

/// The provider use cases.
pub struct Providers {
    store: Arc<dyn Store>,
    rules: Arc<Rules>,
    max_providers: u32,
    clients: ProviderClients,
    env_provider: Option<EnvProvider>,
    local_ports: LocalPorts,
    /// Asks 127.0.0.1 directly: a proxy from the environment would be asked instead.
    local_http: reqwest::Client,
}

/// What the provider use cases are built from.
pub(crate) struct ProviderDeps {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) rules: Arc<Rules>,
    pub(crate) max_providers: u32,
    pub(crate) clients: ProviderClients,
    pub(crate) env_provider: Option<EnvProvider>,
    pub(crate) local_ports: LocalPorts,
}

impl Providers {
    pub(crate) fn new(deps: ProviderDeps) -> Self {
        let local_http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap_or_default();
        Self {
            store: deps.store,
            rules: deps.rules,
            max_providers: deps.max_providers,
            clients: deps.clients,
            env_provider: deps.env_provider,
            local_ports: deps.local_ports,
            local_http,
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

    /// Replaces `user`'s provider `id` (a masked key keeps the stored one, for another
    /// origin only with `keepApiKey`), within the destination guard.
    pub async fn replace(
        &self,
        user: &User,
        id: &str,
        config: &ProviderConfig,
    ) -> Result<Provider, AppError> {
        check_saved_url(&self.rules, user.role, config.base_url.as_deref())?;
        Ok(self.store.update_provider(&user.id, id, config).await?)
    }

    /// The models of `user`'s provider `id`.
    pub async fn models(&self, user: &User, id: &str) -> Result<Vec<String>, AppError> {
        let stored = self.store.provider_with_key(&user.id, id).await?;
        self.list(user, &stored.config).await
    }

    /// The models of a provider configured as `config`, saved or not (nothing is stored).
    /// With `saved`, the id of `user`'s provider it edits, its masks stand for that
    /// provider's secrets as in a save.
    pub async fn test(
        &self,
        user: &User,
        config: &ProviderConfig,
        saved: Option<&str>,
    ) -> Result<Vec<String>, AppError> {
        let config = match saved {
            Some(id) => {
                let stored = self.store.provider_with_key(&user.id, id).await?;
                config
                    .with_saved_secrets(&stored.config)
                    .map_err(switchboard_store::StoreError::from)?
            }
            None => config.clone(),
        };
        config.validate()?;
        check_saved_url(&self.rules, user.role, config.base_url.as_deref())?;
        self.list(user, &config).await
    }

    async fn list(&self, user: &User, config: &ProviderConfig) -> Result<Vec<String>, AppError> {
        let client = self.clients.client_for(&user.id, config).await?;
        Ok(client.models(&ListLimits::default()).await?)
    }

    /// The models `user`'s conversation `id` may pick from: its provider's (the one its runs
    /// use), with the model it uses without a choice of its own.
    pub async fn chat_models(&self, user: &User, id: &str) -> Result<ChatModels, AppError> {
        let conversation = self.store.conversation(&user.id, id).await?;
        let request = conversation_request(self.store.as_ref(), &user.id, &conversation).await?;
        let plan: ProviderPlan = resolve_provider(
            self.store.as_ref(),
            &user.id,
            &request,
            self.env_provider.as_ref(),
            &self.clients,
        )
        .await
        .map_err(resolve_error)?;
        let models = plan.provider.models(&ListLimits::default()).await?;
        Ok(ChatModels {
            provider: plan.stored,
            default_model: plan.default_model,
            models,
        })
    }

    /// The model servers on this machine's configured ports that list their models, for
    /// `user` to choose from. A member held to the destination guard may look only when the
    /// admin allows loopback.
    pub async fn find_local(&self, user: &User) -> Result<Vec<LocalServer>, AppError> {
        let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
        if user.role != Role::Admin
            && self.rules.guarded()
            && !self.rules.destinations.allows_ip(loopback)
        {
            return Err(Refusal::Destination {
                host: loopback.to_string(),
            }
            .into());
        }
        Ok(find_local_servers(&self.local_http, &self.local_ports.0, &LOCAL_LIMITS).await)
    }
}

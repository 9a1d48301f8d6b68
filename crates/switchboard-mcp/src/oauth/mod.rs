//! OAuth 2.1 sign-in to remote servers, as the MCP authorization specification describes it.
//!
//! rmcp's `auth` module does the protocol; this module decides where things live. Each
//! person's tokens for each server are in an [`OAuthVault`] (the HTTP server's store, sealed),
//! never in the spec. A connection to a server with [`Auth::OAuth`](switchboard_core::Auth)
//! sends the person's token on every request, refreshes it before it expires (once at a time
//! across replicas) and after a 401, and reports [`McpError::SignInRequired`] with the
//! server's challenge when the tokens are missing or cannot be refreshed. The challenge is
//! remembered, so the sign-in it calls for asks for the scopes the server named (step-up
//! included: the scopes already granted are kept).

mod credentials;
mod elsewhere;
mod http;
mod seen;
mod sign_in;
mod vault;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::transport::auth::OAuthClientConfig;
use rmcp::transport::{AuthClient, AuthError, AuthorizationManager, OAuthHttpClient};
use switchboard_core::{OwnerId, ServerId, ServerSpec};

use crate::error::McpError;
use crate::upstream_text::{MAX_DETAIL, short_text};
use credentials::{RefreshLocks, VaultCredentials};
pub(crate) use seen::SeenTokens;

pub(crate) use http::GuardedOAuthHttp;
pub use sign_in::{OAuthClientIdentity, PendingSignIn};
pub use vault::{MemoryVault, OAuthVault, VaultError, VaultLock};

/// The sign-ins of one manager: its vault, its identity towards authorization servers, and
/// the last challenge each server sent each person.
pub struct SignIns {
    vault: Arc<dyn OAuthVault>,
    locks: Arc<RefreshLocks>,
    identity: OAuthClientIdentity,
    challenges: Arc<Challenges>,
}

impl std::fmt::Debug for SignIns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIns")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl Default for SignIns {
    fn default() -> Self {
        Self::new(
            Arc::new(MemoryVault::default()),
            OAuthClientIdentity::default(),
        )
    }
}

/// The last `WWW-Authenticate` challenge per (person, server), bounded.
#[derive(Default)]
pub(crate) struct Challenges(Mutex<HashMap<(OwnerId, ServerId), String>>);

impl Challenges {
    pub(crate) fn remember(&self, owner: &OwnerId, server: &ServerId, challenge: &str) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if map.len() >= 4096 {
            map.clear();
        }
        // A header is at most a few hundred bytes from an honest server.
        map.insert(
            (owner.clone(), server.clone()),
            challenge
                .chars()
                .take(crate::error::MAX_CHALLENGE)
                .collect(),
        );
    }

    fn last(&self, owner: &OwnerId, server: &ServerId) -> Option<String> {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(&(owner.clone(), server.clone())).cloned()
    }

    fn forget(&self, owner: &OwnerId, server: &ServerId) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.remove(&(owner.clone(), server.clone()));
    }
}

/// What a connection to a server with OAuth sends its requests through.
#[derive(Clone)]
pub(crate) struct Authorized {
    pub client: AuthClient<reqwest::Client>,
    pub owner: OwnerId,
    pub server: ServerId,
    pub challenges: Arc<Challenges>,
    /// The tokens this client has sent, for the connection's redactor.
    pub seen: Arc<SeenTokens>,
}

impl Authorized {
    pub(crate) fn remember(&self, challenge: &str) {
        self.challenges
            .remember(&self.owner, &self.server, challenge);
    }

    /// `Bearer <token>` with a token good for a while yet, for a transport that sets its
    /// headers once (legacy SSE).
    pub(crate) async fn bearer(&self, spec: &ServerSpec) -> Result<::http::HeaderValue, McpError> {
        let token = self
            .client
            .get_access_token()
            .await
            .map_err(|e| failed(spec, e))?;
        let mut value = ::http::HeaderValue::try_from(format!("Bearer {token}")).map_err(|_| {
            McpError::AuthFailed {
                server: spec.name.clone(),
                detail: "the authorization server issued a token that is not a header value".into(),
            }
        })?;
        value.set_sensitive(true);
        Ok(value)
    }
}

fn failed(spec: &ServerSpec, error: AuthError) -> McpError {
    match error {
        AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_) => {
            McpError::SignInRequired {
                server: spec.name.clone(),
                scope: None,
                challenge: None,
            }
        }
        other => McpError::AuthFailed {
            server: spec.name.clone(),
            detail: short_text(&other.to_string(), MAX_DETAIL),
        },
    }
}

impl SignIns {
    pub fn new(vault: Arc<dyn OAuthVault>, identity: OAuthClientIdentity) -> Self {
        Self {
            vault,
            locks: Arc::default(),
            identity,
            challenges: Arc::default(),
        }
    }

    pub fn identity(&self) -> &OAuthClientIdentity {
        &self.identity
    }

    fn credentials(&self, owner: &OwnerId, server: &ServerId) -> VaultCredentials {
        VaultCredentials {
            vault: Arc::clone(&self.vault),
            locks: Arc::clone(&self.locks),
            owner: owner.clone(),
            server: server.clone(),
            seen: Arc::default(),
        }
    }

    /// Whether `owner` holds tokens for `server`.
    pub async fn signed_in(&self, owner: &OwnerId, server: &ServerId) -> Result<bool, McpError> {
        let record = self.credentials(owner, server).record().await;
        match record {
            Ok(record) => Ok(record.is_some_and(|r| r.credentials.token_response.is_some())),
            Err(error) => Err(McpError::AuthFailed {
                server: server.0.clone(),
                detail: short_text(&error.to_string(), MAX_DETAIL),
            }),
        }
    }

    /// Keeps the challenge a server that runs elsewhere (on a node) answered `owner` with,
    /// as a local connection keeps its server's: the next sign-in discovers from it.
    pub fn remember_challenge(&self, owner: &OwnerId, server: &ServerId, challenge: &str) {
        self.challenges.remember(owner, server, challenge);
    }

    /// Forgets `owner`'s tokens for `server`.
    pub async fn sign_out(&self, owner: &OwnerId, server: &ServerId) -> Result<(), VaultError> {
        self.challenges.forget(owner, server);
        self.vault.clear(owner, server).await
    }

    /// The client a connection to `spec` (with OAuth) sends its requests through: the
    /// person's tokens when they signed in, refreshed as needed; none otherwise, so the server
    /// answers with its challenge and the connection fails with [`McpError::SignInRequired`].
    pub(crate) async fn authorized(
        &self,
        http: Arc<dyn OAuthHttpClient>,
        plain: reqwest::Client,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<Authorized, McpError> {
        let credentials = self.credentials(owner, &spec.id);
        let seen = Arc::clone(&credentials.seen);
        let record = credentials.record().await.map_err(|e| failed(spec, e))?;
        if let Some(record) = &record {
            seen.note(&record.credentials);
        }
        let mut manager = sign_in::manager(spec, http, credentials)
            .await
            .map_err(|e| failed(spec, e))?;
        if let Some(record) = record.filter(|r| r.credentials.token_response.is_some()) {
            let challenge = self.challenges.last(owner, &spec.id);
            configure(&mut manager, &record, challenge.as_deref())
                .await
                .map_err(|e| failed(spec, e))?;
        }
        Ok(Authorized {
            client: AuthClient::new(plain, manager),
            owner: owner.clone(),
            server: spec.id.clone(),
            challenges: Arc::clone(&self.challenges),
            seen,
        })
    }

    /// Starts `owner`'s sign-in to `spec`: the URL to send the person to. The callback comes
    /// back to `redirect_uri` with a `state` that [`SignIns::take`] finds.
    pub(crate) async fn start(
        &self,
        http: Arc<dyn OAuthHttpClient>,
        owner: &OwnerId,
        spec: &ServerSpec,
        redirect_uri: &str,
    ) -> Result<String, McpError> {
        let challenge = self.challenges.last(owner, &spec.id);
        let (url, csrf, pending) = sign_in::start(
            spec,
            http,
            self.credentials(owner, &spec.id),
            &self.identity,
            redirect_uri,
            challenge.as_deref(),
        )
        .await
        .map_err(|e| failed(spec, e))?;
        let payload = pending.text().map_err(|e| failed(spec, e))?;
        self.vault
            .save_pending(owner, &spec.id, &csrf, &payload)
            .await
            .map_err(|e| McpError::AuthFailed {
                server: spec.name.clone(),
                detail: e.to_string(),
            })?;
        Ok(url)
    }

    /// The sign-in under way with `state`, taken (a `state` is good once); `None` when there
    /// is none or it expired.
    pub async fn take(&self, state: &str) -> Result<Option<PendingSignIn>, McpError> {
        let taken = self
            .vault
            .take_pending(state)
            .await
            .map_err(|e| McpError::AuthFailed {
                server: String::new(),
                detail: e.to_string(),
            })?;
        let Some((owner, server, payload)) = taken else {
            return Ok(None);
        };
        let pending = sign_in::Pending::parse(&payload).map_err(|e| McpError::AuthFailed {
            server: server.0.clone(),
            detail: e.to_string(),
        })?;
        Ok(Some(PendingSignIn {
            owner,
            server,
            csrf: state.to_owned(),
            pending,
        }))
    }

    /// Finishes a sign-in with the callback's `code` and `iss`.
    pub(crate) async fn finish(
        &self,
        http: Arc<dyn OAuthHttpClient>,
        spec: &ServerSpec,
        pending: PendingSignIn,
        code: &str,
        issuer: Option<&str>,
    ) -> Result<(), McpError> {
        let owner = pending.owner.clone();
        let credentials = self.credentials(&owner, &spec.id);
        sign_in::finish(spec, http, credentials, pending, code, issuer)
            .await
            .map_err(|e| match e {
                // A refused exchange is the sign-in failing, not a need to sign in again.
                AuthError::AuthorizationRequired => McpError::AuthFailed {
                    server: spec.name.clone(),
                    detail: "the authorization server refused the sign-in".into(),
                },
                other => failed(spec, other),
            })?;
        self.challenges.forget(&owner, &spec.id);
        Ok(())
    }
}

/// Configures `manager` from the stored sign-in: its metadata (discovered again, from the
/// server's last challenge when there is one: it is not kept), client and tokens.
async fn configure(
    manager: &mut AuthorizationManager,
    record: &credentials::Record,
    challenge: Option<&str>,
) -> Result<(), AuthError> {
    if challenge.is_some() {
        let resolution = manager.resolve_metadata_from_challenge(challenge).await?;
        manager.set_metadata(resolution.metadata);
    }
    if !manager.initialize_from_store().await? {
        // The authorization server changed since; its tokens are no good.
        return Err(AuthError::AuthorizationRequired);
    }
    if let Some(redirect_uri) = &record.redirect_uri {
        let mut client = OAuthClientConfig::new(&record.credentials.client_id, redirect_uri)
            .with_scopes(record.credentials.granted_scopes.clone());
        if let Some(secret) = &record.client_secret {
            client = client.with_client_secret(secret);
        }
        manager.configure_client(client)?;
    }
    Ok(())
}

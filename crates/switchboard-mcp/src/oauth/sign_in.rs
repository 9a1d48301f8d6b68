//! Signing in: the authorization-code flow with PKCE, started by one request and finished by
//! the callback, which may reach another replica.
//!
//! rmcp does the protocol (discovery from the server's challenge or the well-known paths,
//! client registration, PKCE, resource indicators, the `iss` check, the token exchange). What
//! is ours: which client identity to use (a pre-registered client, our Client ID Metadata
//! Document, or dynamic registration, in the specification's order, keeping a registered
//! client's secret), and carrying a flow from its start to its callback through the vault
//! instead of in memory, so nothing of it lives in one process.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::transport::auth::OAuthClientConfig;
use rmcp::transport::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession, OAuthHttpClient,
    StateStore, StoredAuthorizationState, StoredCredentials,
};
use serde::{Deserialize, Serialize};
use switchboard_core::{Auth, OwnerId, ServerId, ServerSpec};

use super::credentials::{Record, VaultCredentials};

/// Who Switchboard is to authorization servers.
#[derive(Debug, Clone)]
pub struct OAuthClientIdentity {
    /// The `client_name` of a dynamic registration.
    pub name: String,
    /// Where Switchboard's Client ID Metadata Document is served (an `https:` URL), when
    /// it has a public URL: authorization servers that support CIMD use it as the client id.
    pub metadata_url: Option<String>,
}

impl Default for OAuthClientIdentity {
    fn default() -> Self {
        Self {
            name: "Switchboard".into(),
            metadata_url: None,
        }
    }
}

/// A sign-in between its start and its callback, as the vault keeps it.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Pending {
    state: StoredAuthorizationState,
    client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    redirect_uri: String,
    /// The server's `WWW-Authenticate` challenge the flow was started from (discovery and
    /// scopes follow it), so the callback discovers the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    challenge: Option<String>,
}

/// A sign-in under way, found by its `state` ([`super::SignIns::take`]).
pub struct PendingSignIn {
    pub owner: OwnerId,
    pub server: ServerId,
    pub(crate) csrf: String,
    pub(crate) pending: Pending,
}

impl std::fmt::Debug for PendingSignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSignIn")
            .field("owner", &self.owner)
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

/// The one authorization state of one flow: rmcp writes it when it builds the authorization
/// URL and reads it back for the token exchange; the vault carries it in between.
#[derive(Clone, Default)]
struct FlowState(Arc<Mutex<Option<Held>>>);

/// The `state` (CSRF token) and what rmcp keeps under it.
type Held = (String, StoredAuthorizationState);

impl FlowState {
    fn holding(csrf: &str, state: StoredAuthorizationState) -> Self {
        Self(Arc::new(Mutex::new(Some((csrf.to_owned(), state)))))
    }

    fn take(&self) -> Option<Held> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

#[async_trait::async_trait]
impl StateStore for FlowState {
    async fn save(&self, csrf: &str, state: StoredAuthorizationState) -> Result<(), AuthError> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some((csrf.to_owned(), state));
        Ok(())
    }

    async fn load(&self, csrf: &str) -> Result<Option<StoredAuthorizationState>, AuthError> {
        let held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(held
            .as_ref()
            .filter(|(key, _)| key == csrf)
            .map(|(_, state)| state.clone()))
    }

    async fn delete(&self, csrf: &str) -> Result<(), AuthError> {
        let mut held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if held.as_ref().is_some_and(|(key, _)| key == csrf) {
            *held = None;
        }
        Ok(())
    }
}

/// A server's OAuth settings: the pre-registered client id and secret, and the scopes.
type Settings<'a> = (Option<&'a str>, Option<&'a str>, &'a [String]);

/// The OAuth settings of `spec`, or why it has none.
fn oauth_of(spec: &ServerSpec) -> Result<Settings<'_>, AuthError> {
    match &spec.auth {
        Auth::OAuth {
            client_id,
            client_secret,
            scopes,
        } => Ok((client_id.as_deref(), client_secret.as_deref(), scopes)),
        _ => Err(AuthError::InternalError(format!(
            "server `{}` is not set up for OAuth sign-in",
            spec.name
        ))),
    }
}

fn url_of(spec: &ServerSpec) -> Result<&str, AuthError> {
    spec.url
        .as_deref()
        .ok_or_else(|| AuthError::InternalError(format!("server `{}` has no URL", spec.name)))
}

/// A manager for `spec` that keeps its tokens in `credentials`.
pub(crate) async fn manager(
    spec: &ServerSpec,
    http: Arc<dyn OAuthHttpClient>,
    credentials: VaultCredentials,
) -> Result<AuthorizationManager, AuthError> {
    let mut manager = AuthorizationManager::new_with_oauth_http_client(url_of(spec)?, http).await?;
    manager.set_credential_store(credentials);
    Ok(manager)
}

/// Starts a sign-in: discovery, the client identity, the authorization URL (returned) and the
/// pending flow, kept under its `state`.
pub(crate) async fn start(
    spec: &ServerSpec,
    http: Arc<dyn OAuthHttpClient>,
    credentials: VaultCredentials,
    identity: &OAuthClientIdentity,
    redirect_uri: &str,
    challenge: Option<&str>,
) -> Result<(String, String, Pending), AuthError> {
    let (client_id, client_secret, scopes) = oauth_of(spec)?;
    // A sign-in again (a wider scope, step-up) keeps what was granted (SEP-2350).
    let granted = match credentials.record().await? {
        Some(record) => record.credentials.granted_scopes,
        None => Vec::new(),
    };
    let mut manager = manager(spec, http, credentials).await?;
    let flow = FlowState::default();
    manager.set_state_store(flow.clone());
    let resolution = manager.resolve_metadata_from_challenge(challenge).await?;
    let cimd_supported = resolution
        .metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    manager.set_metadata(resolution.metadata);

    let mut request = AuthorizationRequest::new(redirect_uri).with_client_name(&identity.name);
    let wanted: Vec<String> = if scopes.is_empty() {
        let mut wanted = granted;
        for scope in manager.select_scopes(None, &[]) {
            if !wanted.contains(&scope) {
                wanted.push(scope);
            }
        }
        wanted
    } else {
        scopes.to_vec()
    };
    if !wanted.is_empty() {
        request = request.with_scopes(wanted.iter().cloned());
    }
    // The specification's order: a pre-registered client, then a Client ID Metadata Document
    // where the server takes one, then dynamic registration. Registration is done here rather
    // than by rmcp's session so the secret it hands out is kept for refreshing later.
    let (client_id, client_secret, registered) = match (client_id, &identity.metadata_url) {
        (Some(id), _) => (id.to_owned(), client_secret.map(str::to_owned), true),
        (None, Some(url)) if cimd_supported => {
            request = request.with_client_metadata_url(url);
            (url.clone(), None, false)
        }
        (None, _) => {
            let wanted_refs: Vec<&str> = wanted.iter().map(String::as_str).collect();
            let registered = manager
                .register_client(&identity.name, redirect_uri, &wanted_refs)
                .await?;
            (registered.client_id, registered.client_secret, true)
        }
    };
    if registered {
        request = request.with_preregistered_client(&client_id);
    }
    if let Some(secret) = &client_secret {
        request = request.with_client_secret(secret);
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, error)| error)?;
    let (csrf, state) = flow.take().ok_or_else(|| {
        AuthError::InternalError("the authorization URL was made without a state".into())
    })?;
    let pending = Pending {
        state,
        client_id,
        client_secret,
        redirect_uri: redirect_uri.to_owned(),
        challenge: challenge.map(str::to_owned),
    };
    Ok((session.auth_url, csrf, pending))
}

/// Finishes a sign-in with the callback's `code` (and `iss`, RFC 9207): the tokens go to the
/// vault, with the client they belong to.
pub(crate) async fn finish(
    spec: &ServerSpec,
    http: Arc<dyn OAuthHttpClient>,
    credentials: VaultCredentials,
    pending: PendingSignIn,
    code: &str,
    issuer: Option<&str>,
) -> Result<(), AuthError> {
    let PendingSignIn { csrf, pending, .. } = pending;
    let mut manager = manager(spec, http, credentials.clone()).await?;
    manager.set_state_store(FlowState::holding(&csrf, pending.state));
    let resolution = manager
        .resolve_metadata_from_challenge(pending.challenge.as_deref())
        .await?;
    manager.set_metadata(resolution.metadata);
    let mut client = OAuthClientConfig::new(&pending.client_id, &pending.redirect_uri);
    if let Some(secret) = &pending.client_secret {
        client = client.with_client_secret(secret);
    }
    manager.configure_client(client)?;
    manager
        .exchange_code_for_token_with_issuer(code, &csrf, issuer)
        .await?;
    // rmcp saved the tokens; the client's secret and redirect URI go beside them.
    let saved = credentials.record().await?;
    let credentials_now = match saved {
        Some(record) => record.credentials,
        None => StoredCredentials::new(pending.client_id.clone(), None, Vec::new(), None),
    };
    credentials
        .keep(&Record {
            credentials: credentials_now,
            client_secret: pending.client_secret,
            redirect_uri: Some(pending.redirect_uri),
        })
        .await
}

impl Pending {
    pub(crate) fn parse(text: &str) -> Result<Pending, AuthError> {
        serde_json::from_str(text)
            .map_err(|e| AuthError::InternalError(format!("a pending sign-in does not read: {e}")))
    }

    pub(crate) fn text(&self) -> Result<String, AuthError> {
        serde_json::to_string(self)
            .map_err(|e| AuthError::InternalError(format!("a pending sign-in does not write: {e}")))
    }
}

//! The configuration of one MCP server: how to reach it and which of its tools to use.
//!
//! A [`ServerSpec`] is plain data that travels everywhere: it is stored (with its secrets
//! encrypted), edited through the API, printed by the CLI and handed to the connection manager.
//! Because it travels so far, three guarantees live here rather than in each consumer:
//!
//! - [`ServerSpec::validate`] is the one place that decides whether a spec can be used, with a
//!   message a person can act on and the name of the field at fault ([`SpecError::field`]);
//! - its `Debug` output never shows a secret (env values, header values, credentials, a URL's
//!   password or query values), so a spec can be logged without thinking twice;
//! - a URL given without a transport gets the same transport everywhere
//!   ([`TransportKind::infer_from_url`], the rule of seed 001).
//!
//! ```
//! use switchboard_core::{ServerSpec, TransportKind};
//!
//! let spec = ServerSpec::http("Docs Search", "https://example.com/mcp", None);
//! assert_eq!(spec.id.0, "docs-search");
//! assert_eq!(spec.transport, TransportKind::StreamableHttp);
//! assert!(spec.validate().is_ok());
//!
//! let broken = ServerSpec::stdio("files", "", Vec::<String>::new());
//! assert_eq!(broken.validate().unwrap_err().field(), "command");
//! ```

mod debug;
pub use debug::redact_url;
mod duration_secs_opt;
mod mask;
pub use mask::MASK;
mod redact;
pub use redact::{REDACTED, Redactor, redact_json, redact_text};
mod search;
mod url_secrets;
pub use url_secrets::{
    mask_url, restore_masked_url, url_has_secrets, url_holds_mask, url_secret_values,
};
mod validate;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use validate::{MAX_NAME_CHARS, SpecError, check_timeout, parse_http_url};

/// Stable identifier of a configured server (unique per owner).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(value_type = String))]
pub struct ServerId(pub String);

impl ServerId {
    /// The id a server gets from its display name: lowercase ASCII letters and digits, every
    /// other run of characters turned into one `-`, so it reads well in URLs and CLI arguments
    /// (`"My Files (local)"` becomes `my-files-local`). A name with no ASCII letter or digit
    /// (`"日本語"`) becomes `server-` and six hex digits of its SHA-256, which keeps it
    /// non-empty and distinct per name.
    pub fn from_name(name: &str) -> Self {
        const MAX_SLUG: usize = 64;
        let mut slug = String::with_capacity(name.len().min(MAX_SLUG));
        for c in name.chars() {
            if slug.len() >= MAX_SLUG {
                break;
            }
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.is_empty() && !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let slug = slug.trim_end_matches('-');
        if slug.is_empty() {
            let digest = Sha256::digest(name.as_bytes());
            let hex: String = digest.iter().take(3).map(|b| format!("{b:02x}")).collect();
            Self(format!("server-{hex}"))
        } else {
            Self(slug.to_owned())
        }
    }
}

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ServerId {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

/// Who a server belongs to: servers and their connections are kept per owner (a user, or
/// `local` for the single-user CLI).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OwnerId(pub String);

impl OwnerId {
    /// The owner used by the command line and single-user setups.
    pub fn local() -> Self {
        Self("local".to_owned())
    }
}

impl fmt::Display for OwnerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How Switchboard talks to a server.
///
/// Serialized as `stdio`, `streamable_http` or `sse`; the spellings of the seeds
/// (`streamableHttp` from seed 001, `http` from seed 002) are accepted when reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TransportKind {
    /// A local process speaking JSON-RPC lines on stdin/stdout.
    Stdio,
    /// MCP Streamable HTTP (2025-03-26 and later); the URL usually ends in `/mcp`.
    #[serde(alias = "streamableHttp", alias = "http")]
    StreamableHttp,
    /// The legacy HTTP+SSE transport of protocol 2024-11-05.
    Sse,
}

impl TransportKind {
    /// The transport of a URL configured without one (seed 001): Streamable HTTP when the path
    /// ends in `/mcp` or `/mcp/`, legacy SSE for any other URL. The query and fragment are
    /// ignored, and the comparison is exact (`/MCP` means SSE), as in the seed.
    pub fn infer_from_url(url: &str) -> TransportKind {
        let path = match url::Url::parse(url) {
            Ok(parsed) => parsed.path().to_owned(),
            // Not a URL we could use anyway (validate says so); look at the raw text so the
            // answer is still sensible for the form the user is typing into.
            Err(_) => url.split(['?', '#']).next().unwrap_or_default().to_owned(),
        };
        let path = path.strip_suffix('/').unwrap_or(&path);
        if path.ends_with("/mcp") {
            TransportKind::StreamableHttp
        } else {
            TransportKind::Sse
        }
    }

    /// The serialized name: `stdio`, `streamable_http` or `sse`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::StreamableHttp => "streamable_http",
            TransportKind::Sse => "sse",
        }
    }

    /// Whether the server is reached over HTTP (and so has a URL, headers and auth).
    pub fn is_http(self) -> bool {
        matches!(self, TransportKind::StreamableHttp | TransportKind::Sse)
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Credentials sent to HTTP servers.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Auth {
    #[default]
    None,
    /// The key goes in `header` (for example `X-API-Key`).
    ApiKey { header: String, key: String },
    /// `Authorization: Bearer <token>`.
    Bearer { token: String },
    /// OAuth 2.1 sign-in as the MCP authorization specification describes it: each person
    /// signs in to the server once, and their tokens are kept apart from the spec (per person
    /// and server, encrypted) and refreshed before they expire. Without `clientId`,
    /// Switchboard registers itself (Client ID Metadata Document, else dynamic registration).
    #[serde(rename = "oauth", rename_all = "camelCase")]
    OAuth {
        /// A client registered with the authorization server beforehand.
        #[serde(default, alias = "client_id", skip_serializing_if = "Option::is_none")]
        client_id: Option<String>,
        /// Its secret, when it is a confidential client.
        #[serde(
            default,
            alias = "client_secret",
            skip_serializing_if = "Option::is_none"
        )]
        client_secret: Option<String>,
        /// Scopes to ask for; empty: those the server names (its challenge or metadata).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        scopes: Vec<String>,
    },
}

impl fmt::Debug for Auth {
    // Secrets never reach logs, so Debug names the kind and hides the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::None => f.write_str("None"),
            Auth::ApiKey { header, .. } => write!(f, "ApiKey {{ header: {header:?}, key: *** }}"),
            Auth::Bearer { .. } => f.write_str("Bearer { token: *** }"),
            Auth::OAuth {
                client_id,
                client_secret,
                scopes,
            } => {
                let secret = client_secret.as_ref().map(|_| "***");
                write!(
                    f,
                    "OAuth {{ client_id: {client_id:?}, client_secret: {secret:?}, scopes: {scopes:?} }}"
                )
            }
        }
    }
}

/// One configured MCP server.
///
/// Its JSON is camelCase like the rest of the API; the snake_case names of earlier versions
/// (`secret_env`, `disabled_tools`, `auto_approved_tools`) are still read.
/// `Debug` hides every secret; see the module docs.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ServerSpec {
    pub id: ServerId,
    pub name: String,
    pub transport: TransportKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Merged over the environment of the Switchboard process.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// The names of `env` entries whose values are secrets (tokens, passwords): they are
    /// encrypted at rest and masked on display like header values and credentials.
    #[serde(
        default,
        alias = "secret_env",
        skip_serializing_if = "BTreeSet::is_empty"
    )]
    pub secret_env: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub cwd: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub auth: Auth,
    /// Per-call timeout, written as a number of seconds (`30`, `2.5`); the manager's default
    /// applies when absent.
    #[serde(
        default,
        with = "duration_secs_opt",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub timeout: Option<Duration>,
    #[serde(default = "default_true")]
    pub enabled: bool,
    #[serde(
        default,
        alias = "disabled_tools",
        skip_serializing_if = "BTreeSet::is_empty"
    )]
    pub disabled_tools: BTreeSet<String>,
    #[serde(
        default,
        alias = "auto_approved_tools",
        skip_serializing_if = "BTreeSet::is_empty"
    )]
    pub auto_approved_tools: BTreeSet<String>,
    /// The MCP node (`[nodes.NAME]` in the settings file) this server runs on; absent: in the
    /// Switchboard process itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The folders the server may work in (MCP roots), as absolute paths or `file:` URIs:
    /// answered to the server's `roots/list`, and announced with `roots/list_changed` when
    /// they change (filesystem servers confine themselves to them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<String>,
    /// How the server's `sampling/createMessage` requests during a chat are answered; absent:
    /// each reviewed by the person, capped at [`SamplingPolicy::DEFAULT_MAX_TOKENS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingPolicy>,
    /// Whether the server's tools are started as tasks (MCP tasks); absent:
    /// [`TasksPolicy::Auto`](crate::task::TasksPolicy::Auto).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<crate::task::TasksPolicy>,
}

fn default_true() -> bool {
    true
}

/// A server's sampling setting (MCP `sampling/createMessage`): whether its requests go to the
/// model without the person reviewing them, and the most tokens one may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SamplingPolicy {
    /// Requests go to the model and its answer back to the server without review.
    #[serde(default)]
    pub auto_approve: bool,
    /// A request's `maxTokens` is cut to this (1 ..= 32,768).
    #[serde(default = "SamplingPolicy::default_max_tokens")]
    pub max_tokens: u32,
}

impl SamplingPolicy {
    pub const DEFAULT_MAX_TOKENS: u32 = 1024;
    pub const MAX_TOKENS_LIMIT: u32 = 32_768;

    fn default_max_tokens() -> u32 {
        Self::DEFAULT_MAX_TOKENS
    }
}

impl Default for SamplingPolicy {
    fn default() -> Self {
        Self {
            auto_approve: false,
            max_tokens: Self::DEFAULT_MAX_TOKENS,
        }
    }
}

impl ServerSpec {
    /// A local process server, enabled, with its id derived from the name
    /// ([`ServerId::from_name`]).
    pub fn stdio<N, C, A, S>(name: N, command: C, args: A) -> Self
    where
        N: Into<String>,
        C: Into<String>,
        A: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut spec = Self::empty(name.into(), TransportKind::Stdio);
        spec.command = Some(command.into());
        spec.args = args.into_iter().map(Into::into).collect();
        spec
    }

    /// A remote server, enabled, with its id derived from the name. Without an explicit
    /// `transport`, it is inferred from the URL ([`TransportKind::infer_from_url`]).
    pub fn http(
        name: impl Into<String>,
        url: impl Into<String>,
        transport: Option<TransportKind>,
    ) -> Self {
        let url = url.into();
        let transport = transport.unwrap_or_else(|| TransportKind::infer_from_url(&url));
        let mut spec = Self::empty(name.into(), transport);
        spec.url = Some(url);
        spec
    }

    /// The same spec with these credentials.
    pub fn with_auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }

    /// The same spec with one more HTTP header (replacing a header of the same name).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// The same spec with one more environment variable for the process.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// The same spec with one more environment variable whose value is a secret.
    pub fn with_secret_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let key = key.into();
        self.secret_env.insert(key.clone());
        self.env.insert(key, value.into());
        self
    }

    /// The same spec with a per-call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    fn empty(name: String, transport: TransportKind) -> Self {
        Self {
            id: ServerId::from_name(&name),
            name,
            transport,
            url: None,
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            secret_env: BTreeSet::new(),
            cwd: None,
            headers: BTreeMap::new(),
            auth: Auth::None,
            timeout: None,
            enabled: true,
            disabled_tools: BTreeSet::new(),
            auto_approved_tools: BTreeSet::new(),
            node: None,
            roots: Vec::new(),
            sampling: None,
            tasks: None,
        }
    }

    /// Whether `tool` is offered at all: the server is enabled and the tool not switched off.
    /// Every listing and every call asks this, so the rule is written once.
    pub fn offers(&self, tool: &str) -> bool {
        self.enabled && !self.disabled_tools.contains(tool)
    }

    /// Whether a call of `tool` runs without asking a person (its owner approved it for
    /// good). Whoever would ask (a chat, the gateway) asks this.
    pub fn auto_approves(&self, tool: &str) -> bool {
        self.auto_approved_tools.contains(tool)
    }

    /// `roots`, each as the `file:` URI a server is sent (a path is turned into one).
    pub fn root_uris(&self) -> Vec<String> {
        self.roots
            .iter()
            .filter_map(|root| {
                if root.starts_with("file:") {
                    return Some(root.clone());
                }
                url::Url::from_file_path(root).ok().map(String::from)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;

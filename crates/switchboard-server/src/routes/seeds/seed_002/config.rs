//! Seed 002's `MCPServerConfig`, to and from the house [`ServerSpec`].
//!
//! The seed's configuration is an HTTP server with flat credentials: `authType` is `none`,
//! `api-key` (sent as `X-API-Key`, or the header the stored server already names) or `bearer`,
//! with the secret in `apiKey`. `apiKey` is write-only: it is sealed at rest with the other
//! secrets and never answered; a write without it (or with it empty) keeps the stored one, as a
//! masked house secret does. `timeout` is in milliseconds. `isPreset` and `presetType` are
//! kept beside the spec ([`ServerShape`]).

use std::collections::BTreeMap;
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use switchboard_core::{Auth, ErrorCode, MASK, ServerId, ServerSpec, TransportKind};
use switchboard_store::{ServerShape, StoredServer, Timestamp, WrittenShape};
use utoipa::ToSchema;

use crate::error::ApiError;

/// The header an `api-key` server sends its key in, unless the stored server names another.
const API_KEY_HEADER: &str = "X-API-Key";
/// The only preset type seed 002 names.
const MODELSCOPE: &str = "modelscope";

/// Seed 002's `MCPServerConfig`: an HTTP MCP server with flat credentials.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = MCPServerConfig)]
pub(in crate::routes) struct McpServerConfig {
    /// The server's id, used in later paths; when left out it comes from the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The display name.
    pub name: String,
    /// The server's http(s) URL.
    pub url: String,
    /// `sse` or `http` (Streamable HTTP), in any case; when left out, a URL ending in `/mcp`
    /// means `http` and any other `sse`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// `none`, `api-key` or `bearer`.
    #[serde(default = "no_auth")]
    pub auth_type: String,
    /// The API key or bearer token. Write-only: never answered; left out or empty on a
    /// replace, the stored one is kept.
    #[serde(default, skip_serializing_if = "never_answered")]
    #[schema(write_only)]
    pub api_key: Option<String>,
    /// Extra request headers; values are answered masked.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Per-call timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub is_preset: bool,
    /// `modelscope`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset_type: Option<String>,
    /// Read-only (RFC 3339); ignored when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(read_only)]
    pub created_at: Option<String>,
    /// Read-only (RFC 3339); ignored when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(read_only)]
    pub updated_at: Option<String>,
}

/// `apiKey` is not serialized, whatever it holds (written so, rather than `skip_serializing`,
/// for the OpenAPI schema to keep the field).
fn never_answered(_: &Option<String>) -> bool {
    true
}

fn no_auth() -> String {
    "none".to_owned()
}

impl McpServerConfig {
    /// The id the server is stored under.
    pub fn server_id(&self) -> ServerId {
        match &self.id {
            Some(id) => ServerId(id.clone()),
            None => ServerId::from_name(&self.name),
        }
    }
}

/// The house spec of `config`, replacing `stored` when there is one (its tool switches are
/// kept; a missing `apiKey` keeps its secret), and the shape to remember.
pub(in crate::routes) fn spec_of(
    config: McpServerConfig,
    stored: Option<&ServerSpec>,
) -> Result<(ServerSpec, ServerShape), ApiError> {
    let transport = transport_of(config.transport.as_deref(), &config.url)?;
    let id = config.server_id();
    let mut spec = match stored {
        Some(old) => old.clone(),
        None => ServerSpec::http(&config.name, &config.url, Some(transport)),
    };
    let old_auth = stored.map(|old| &old.auth);
    spec.auth = auth_of(&config.auth_type, config.api_key, old_auth)?;
    spec.id = id;
    spec.name = config.name;
    spec.transport = transport;
    spec.url = Some(config.url);
    // An HTTP server: nothing of a process is kept from a replaced stdio one.
    spec.command = None;
    spec.args.clear();
    spec.env.clear();
    spec.secret_env.clear();
    spec.cwd = None;
    spec.headers = config.headers;
    spec.timeout = config.timeout.map(Duration::from_millis);
    if let Some(kind) = config.preset_type.as_deref()
        && kind != MODELSCOPE
    {
        return Err(ApiError::new(
            ErrorCode::ValidationError,
            format!("presetType {kind:?} is not one this server knows; use \"{MODELSCOPE}\""),
        )
        .key("error.msg.preset_type_unknown")
        .param("kind", format!("{kind:?}"))
        .param("preset", MODELSCOPE));
    }
    let shape = ServerShape {
        shape: WrittenShape::Seed002,
        is_preset: config.is_preset,
        preset_type: config.preset_type,
    };
    Ok((spec, shape))
}

fn transport_of(transport: Option<&str>, url: &str) -> Result<TransportKind, ApiError> {
    let Some(given) = transport else {
        return Ok(TransportKind::infer_from_url(url));
    };
    match given.to_ascii_lowercase().as_str() {
        "sse" => Ok(TransportKind::Sse),
        "http" => Ok(TransportKind::StreamableHttp),
        _ => Err(ApiError::new(
            ErrorCode::UnsupportedTransport,
            format!("Unsupported transport type: {given}; use sse or http"),
        )
        .key("error.msg.seed002_transport")
        .param("transport", given)),
    }
}

fn auth_of(auth_type: &str, api_key: Option<String>, old: Option<&Auth>) -> Result<Auth, ApiError> {
    // Left out or empty: the stored secret of the same kind (the mask asks the store to keep
    // it), else nothing, which validation refuses.
    let secret = |same_kind: bool| match api_key.filter(|key| !key.is_empty()) {
        Some(key) => key,
        None if same_kind => MASK.to_owned(),
        None => String::new(),
    };
    match auth_type {
        "none" => Ok(Auth::None),
        "api-key" => {
            let (header, same_kind) = match old {
                Some(Auth::ApiKey { header, .. }) => (header.clone(), true),
                _ => (API_KEY_HEADER.to_owned(), false),
            };
            Ok(Auth::ApiKey {
                header,
                key: secret(same_kind),
            })
        }
        "bearer" => Ok(Auth::Bearer {
            token: secret(matches!(old, Some(Auth::Bearer { .. }))),
        }),
        other => Err(ApiError::new(
            ErrorCode::ValidationError,
            format!("authType {other:?} is not one of none, api-key, bearer"),
        )
        .key("error.msg.auth_type_unknown")
        .param("kind", format!("{other:?}"))),
    }
}

/// `server` (read for display: secrets masked) as seed 002 writes it; `apiKey` is never
/// answered.
pub(in crate::routes) fn view_of(server: &StoredServer, shape: &ServerShape) -> McpServerConfig {
    let spec = &server.spec;
    let auth_type = match spec.auth {
        Auth::ApiKey { .. } => "api-key",
        Auth::Bearer { .. } => "bearer",
        _ => "none",
    };
    let transport = match spec.transport {
        TransportKind::Sse => "sse",
        _ => "http",
    };
    McpServerConfig {
        id: Some(spec.id.0.clone()),
        name: spec.name.clone(),
        url: spec.url.clone().unwrap_or_default(),
        transport: Some(transport.to_owned()),
        auth_type: auth_type.to_owned(),
        api_key: None,
        headers: spec.headers.clone(),
        timeout: spec
            .timeout
            .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
        is_preset: shape.is_preset,
        preset_type: shape.preset_type.clone(),
        created_at: Some(instant(server.created_at)),
        updated_at: Some(instant(server.updated_at)),
    }
}

/// A stored time as the seeds write instants: RFC 3339 in UTC.
pub(in crate::routes) fn instant(at: Timestamp) -> String {
    let millis = u64::try_from(at.0).unwrap_or(0);
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(millis)).to_string()
}

//! Seed 000's `MCPServerController` at `/api/mcp/servers`, and the path it shares with seed
//! 002.
//!
//! Seed 000 registers a `McpServerSpec` (`POST`, add or replace by `id`, 200), lists them
//! (`GET`), deletes one (`DELETE /{id}`, 204) and reports its health (`GET /{id}/health`:
//! `serverId`, `connected`, `lastCheck`, then the house's `status`, `lastError`,
//! `lastActiveAt`). Seed 002 `POST`s and `GET`s the same path with its `MCPServerConfig`.
//!
//! Which seed a `POST` body is written for, in this order:
//! 1. it has `authType`: seed 002;
//! 2. it has `command`, `args` or `env`: seed 000;
//! 3. it has `name`: seed 002;
//! 4. anything else: seed 000.
//!
//! (Seed 002 always sends `name` and `authType`, seed 000 never does; the one field whose
//! value clashes is `transport`: seed 000's `STDIO | SSE | STREAMABLE_HTTP` in any case,
//! seed 002's `sse | http`.) The shape is remembered with the server, and `GET` answers each
//! server in the shape it was last written in; a server created through the house API is
//! answered as seed 000's. Replacing a server closes its connection; a seed 000 register then
//! connects again at once, as the seed's registry builds its client on register (a failure
//! shows in the health, the server stays saved).
//!
//! Everything goes through the house's checked paths (`routes/servers.rs`): quotas, launch
//! templates, destination rules, secret sealing, name uniqueness.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_core::{ErrorCode, ServerId, ServerSpec, TransportKind};
use switchboard_mcp::ConnectionStatus;
use switchboard_store::{ServerShape, StoreError, StoredServer, WrittenShape};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::json::Json;
use crate::routes::responses::Unauthorized;
use crate::routes::seeds::seed_002::config::{self, McpServerConfig, instant};
use crate::routes::servers::{
    create_checked, delete_checked, health_of, replace_checked, tools_of,
};
use crate::state::AppState;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, register))
        .routes(routes!(remove))
        .routes(routes!(remove_test))
        .routes(routes!(health))
}

/// Seed 000's `McpServerSpec`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(in crate::routes) struct McpServerSpec {
    /// Chosen by the client; it names the server in later paths (ASCII letters, digits, `-`,
    /// `_`, `.`, `~`).
    pub id: String,
    /// `STDIO`, `SSE` or `STREAMABLE_HTTP`, in any case.
    pub transport: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// One whitespace-separated string, or an array; answered as the seed's column holds it,
    /// one string (the arguments joined with single spaces), unless an argument holds
    /// whitespace: then as an array, so that registering what was read keeps it whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Args>,
    /// Merged over the host's environment. Variables whose names look like credentials
    /// (`…TOKEN`, `…KEY`, `…SECRET`, `…PASSWORD`, ...) are sealed at rest and answered masked,
    /// as an import does, since the seed cannot mark them.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default = "enabled")]
    pub enabled: bool,
    /// Read-only (RFC 3339); ignored when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(read_only)]
    pub created_at: Option<String>,
    /// Read-only (RFC 3339); ignored when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(read_only)]
    pub updated_at: Option<String>,
}

fn enabled() -> bool {
    true
}

/// A process's arguments: one string split at whitespace, or one array element each.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub(in crate::routes) enum Args {
    Line(String),
    List(Vec<String>),
}

/// The body of `POST /api/mcp/servers`: seed 000's `McpServerSpec` or seed 002's
/// `MCPServerConfig`, told apart as the module docs say.
#[derive(Debug, ToSchema)]
#[serde(untagged)]
pub(in crate::routes) enum ServerBody {
    Seed000(McpServerSpec),
    Seed002(McpServerConfig),
}

impl<'de> Deserialize<'de> for ServerBody {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let body = Map::<String, Value>::deserialize(deserializer)?;
        let has = |key: &str| body.contains_key(key);
        let seed_002 =
            has("authType") || (!has("command") && !has("args") && !has("env") && has("name"));
        let body = Value::Object(body);
        if seed_002 {
            serde_json::from_value(body)
                .map(ServerBody::Seed002)
                .map_err(D::Error::custom)
        } else {
            serde_json::from_value(body)
                .map(ServerBody::Seed000)
                .map_err(D::Error::custom)
        }
    }
}

/// One listed server, in the shape it was written in.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub(in crate::routes) enum ListedServer {
    Seed000(McpServerSpec),
    Seed002(McpServerConfig),
}

/// Seed 000's `MCPServerHealth`, with the house's connection details after it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(in crate::routes) struct McpServerHealth {
    pub server_id: String,
    pub connected: bool,
    /// When this answer was made (RFC 3339).
    pub last_check: String,
    /// `disconnected`, `connecting`, `connected` or `error`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Milliseconds since the Unix epoch of the last request on the connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_active_at: Option<u64>,
}

/// Lists the caller's MCP servers, each in the seed shape it was written in.
#[utoipa::path(
    get,
    path = "/api/mcp/servers",
    tag = "seed 000",
    operation_id = "list_servers_seed_000_002",
    responses(
        (status = 200, description = "Every server of the caller, secrets masked: seed 000's \
            McpServerSpec, or seed 002's MCPServerConfig for a server written in it",
            body = Vec<ListedServer>),
        Unauthorized,
    )
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<ListedServer>>, ApiError> {
    let servers = state.store.servers(&caller.user.id).await?;
    let shapes = state.store.server_shapes(&caller.user.id).await?;
    Ok(axum::Json(
        servers
            .iter()
            .map(|server| listed(server, shapes.get(&server.spec.id)))
            .collect(),
    ))
}

/// Adds a server, or replaces the one with the same `id`.
///
/// A replaced server's connection is closed; for seed 000 it is built again at once.
#[utoipa::path(
    post,
    path = "/api/mcp/servers",
    tag = "seed 000",
    operation_id = "register_server_seed_000_002",
    request_body(
        content = ServerBody,
        description = "Seed 000's McpServerSpec or seed 002's MCPServerConfig: a body with \
            authType, or with name and none of command/args/env, is seed 002's"
    ),
    responses(
        (status = 200, description = "Saved; the server as it will be listed", body = ListedServer),
        (status = 400, description = "Bad input, an invalid id, or UNSUPPORTED_TRANSPORT", body = ErrorBody),
        Unauthorized,
        (status = 403, description = "Not allowed for this user", body = ErrorBody),
        (status = 409, description = "The name is taken by another server", body = ErrorBody),
        (status = 413, description = "The body is too large", body = ErrorBody),
    )
)]
async fn register(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<ServerBody>,
) -> Result<axum::Json<ListedServer>, ApiError> {
    let id = match &body {
        ServerBody::Seed000(spec) => ServerId(spec.id.clone()),
        ServerBody::Seed002(config) => config.server_id(),
    };
    let stored = match state.store.server(&caller.user.id, &id).await {
        Ok(server) => Some(server.spec),
        Err(StoreError::NotFound { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let (spec, shape) = match body {
        ServerBody::Seed000(written) => (
            spec_of(written, stored.as_ref())?,
            ServerShape::plain(WrittenShape::Seed000),
        ),
        ServerBody::Seed002(written) => config::spec_of(written, stored.as_ref())?,
    };
    let saved = match stored {
        Some(_) => replace_checked(&state, &caller, &spec).await?,
        None => create_checked(&state, &caller, &spec).await?,
    };
    state
        .store
        .set_server_shape(&caller.user.id, &spec.id, &shape)
        .await?;
    if shape.shape == WrittenShape::Seed000 && saved.spec.enabled {
        // The seed's registry builds the client on register; a failure is in the health.
        if let Err(e) = tools_of(&state, &caller, &spec.id).await {
            tracing::warn!(server = %spec.id, error = %e.message, "registered server did not connect");
        }
    }
    Ok(axum::Json(listed(&saved, Some(&shape))))
}

/// Deletes a server and closes its connection.
#[utoipa::path(
    delete,
    path = "/api/mcp/servers/{id}",
    tag = "seed 000",
    operation_id = "delete_server_seed_000",
    params(("id" = String, Path, description = "The server's id")),
    responses(
        (status = 204, description = "Deleted"),
        Unauthorized,
        (status = 404, description = "MCP_SERVER_NOT_FOUND", body = ErrorBody),
    )
)]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    delete_checked(&state, &caller, &ServerId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Deletes the server whose id is `test`.
///
/// Seed 002's `POST /api/mcp/servers/test` makes that path a static one, which
/// `DELETE /api/mcp/servers/{id}` would no longer reach.
#[utoipa::path(
    delete,
    path = "/api/mcp/servers/test",
    tag = "seed 000",
    operation_id = "delete_server_test_seed_000",
    responses(
        (status = 204, description = "Deleted"),
        Unauthorized,
        (status = 404, description = "MCP_SERVER_NOT_FOUND", body = ErrorBody),
    )
)]
async fn remove_test(state: State<AppState>, caller: Caller) -> Result<StatusCode, ApiError> {
    remove(state, caller, Path("test".to_owned())).await
}

/// Whether the server's connection is up, now.
#[utoipa::path(
    get,
    path = "/api/mcp/servers/{id}/health",
    tag = "seed 000",
    operation_id = "server_health_seed_000",
    params(("id" = String, Path, description = "The server's id")),
    responses(
        (status = 200, description = "serverId, connected, lastCheck, then the connection's \
            status, last error and last activity", body = McpServerHealth),
        Unauthorized,
        (status = 404, description = "MCP_SERVER_NOT_FOUND", body = ErrorBody),
    )
)]
async fn health(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<McpServerHealth>, ApiError> {
    let id = ServerId(id);
    let (snapshot, last_check) = health_of(&state, &caller, &id).await?;
    let status = match snapshot.status {
        ConnectionStatus::Disconnected => "disconnected",
        ConnectionStatus::Connecting => "connecting",
        ConnectionStatus::Connected => "connected",
        ConnectionStatus::Error => "error",
        ConnectionStatus::NeedsSignIn => "needs_sign_in",
    };
    Ok(axum::Json(McpServerHealth {
        server_id: id.0,
        connected: snapshot.status == ConnectionStatus::Connected,
        last_check,
        status,
        last_error: snapshot.last_error,
        last_active_at: snapshot.last_active_at,
    }))
}

/// `server` in the shape it was written in (seed 000's when unknown, or when a seed 002
/// server was since changed to stdio through the house API).
fn listed(server: &StoredServer, shape: Option<&ServerShape>) -> ListedServer {
    match shape {
        Some(shape) if shape.shape == WrittenShape::Seed002 && server.spec.transport.is_http() => {
            ListedServer::Seed002(config::view_of(server, shape))
        }
        _ => ListedServer::Seed000(view_of(server)),
    }
}

/// The house spec of a seed 000 body, replacing `stored` when there is one: the seed's
/// fields are taken from the body, the rest (name, headers, credentials, tool switches) is
/// kept.
fn spec_of(written: McpServerSpec, stored: Option<&ServerSpec>) -> Result<ServerSpec, ApiError> {
    let transport = transport_of(&written.transport)?;
    let mut spec = match stored {
        Some(old) => old.clone(),
        None => ServerSpec::stdio(&written.id, "", Vec::<String>::new()),
    };
    spec.id = ServerId(written.id);
    spec.transport = transport;
    spec.url = written.url;
    spec.command = written.command;
    spec.args = match written.args {
        Some(Args::Line(line)) => line.split_whitespace().map(str::to_owned).collect(),
        Some(Args::List(list)) => list,
        None => Vec::new(),
    };
    // Secret env names stay secret where the variable is still set. The seed has no way to
    // say which variables are credentials, so those whose names look like one
    // (`GITHUB_TOKEN`, `OPENAI_API_KEY`, ...) are sealed and masked, as an import does.
    let env = written.env;
    spec.secret_env.retain(|name| env.contains_key(name));
    spec.env = env;
    switchboard_core::import::credentials::mark_secret_env(&mut spec);
    spec.enabled = written.enabled;
    Ok(spec)
}

fn transport_of(written: &str) -> Result<TransportKind, ApiError> {
    match written.to_ascii_lowercase().as_str() {
        "stdio" => Ok(TransportKind::Stdio),
        "sse" => Ok(TransportKind::Sse),
        "streamable_http" => Ok(TransportKind::StreamableHttp),
        _ => Err(ApiError::new(
            ErrorCode::UnsupportedTransport,
            format!("Unsupported transport type: {written}; use STDIO, SSE or STREAMABLE_HTTP"),
        )
        .key("error.msg.seed000_transport")
        .param("transport", written)),
    }
}

/// `server` (read for display: secrets masked) as seed 000 writes it.
fn view_of(server: &StoredServer) -> McpServerSpec {
    let spec = &server.spec;
    let transport = match spec.transport {
        TransportKind::Stdio => "STDIO",
        TransportKind::Sse => "SSE",
        _ => "STREAMABLE_HTTP",
    };
    McpServerSpec {
        id: spec.id.0.clone(),
        transport: transport.to_owned(),
        url: spec.url.clone(),
        command: spec.command.clone(),
        // One line, as the seed's column holds it, unless an argument holds whitespace: that
        // line would not split back into the same arguments, so the list is answered.
        args: Some(
            if spec.args.iter().any(|a| a.contains(char::is_whitespace)) {
                Args::List(spec.args.clone())
            } else {
                Args::Line(spec.args.join(" "))
            },
        ),
        env: spec.env.clone(),
        enabled: spec.enabled,
        created_at: Some(instant(server.created_at)),
        updated_at: Some(instant(server.updated_at)),
    }
}

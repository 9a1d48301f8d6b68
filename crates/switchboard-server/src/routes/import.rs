//! Importing another client's MCP server list (Claude Desktop, Cursor, VS Code) in one
//! request, as `switchboard import` does on the command line; both parse with
//! [`switchboard_core::import`].
//!
//! The file travels as a string, so VS Code's comments and trailing commas survive. A file
//! that does not parse, or has no server list, is refused whole and nothing is written.
//! Otherwise every entry is imported or skipped on its own: an entry that does not convert,
//! whose name or id is taken, or that the caller may not add (for a member, a stdio server
//! that fits no launch template) is skipped with its error code and message, and the rest are
//! created. Nothing is replaced. Past the caller's server quota the import stops: that entry
//! and every one after it are skipped with `QUOTA_EXCEEDED`. A failure of the store itself
//! ends the request with that error, keeping the entries created before it.

use std::collections::BTreeSet;

use axum::extract::State;
use serde::{Deserialize, Serialize};
use switchboard_core::import::{self, EntryError};
use switchboard_core::{ErrorCode, ServerSpec};
use switchboard_store::StoredServer;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::servers::create_checked;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(import_servers))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ImportRequest {
    /// The file's contents.
    text: String,
    /// Only these entries of the file; all of them when left out.
    #[serde(default)]
    names: Option<BTreeSet<String>>,
}

#[derive(Serialize)]
struct Report {
    /// Which client's shape the file has, e.g. `mcpServers (Claude Desktop / Cursor)`.
    format: &'static str,
    /// The servers created, as the list shows them (secrets masked).
    imported: Vec<StoredServer>,
    skipped: Vec<Skipped>,
}

#[derive(Serialize)]
struct Skipped {
    name: String,
    code: ErrorCode,
    message: String,
}

impl Skipped {
    fn new(name: String, error: ApiError) -> Self {
        Skipped {
            name,
            code: error.code,
            message: error.message,
        }
    }
}

/// Imports the MCP servers of a Claude Desktop, Cursor or VS Code configuration file.
#[utoipa::path(post, path = "/api/import/mcp-servers", tag = "servers", operation_id = "import_servers", request_body = serde_json::Value, responses((status = 200, description = "{format, imported, skipped}: the servers created (secrets masked) and the entries skipped, each with its code and message", body = serde_json::Value), (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, a file that is not JSON or has no server list", body = crate::error::ErrorBody), (status = 401, description = "No valid API token", body = crate::error::ErrorBody), (status = 413, description = "The body is too large", body = crate::error::ErrorBody)))]
async fn import_servers(
    State(state): State<AppState>,
    caller: Caller,
    Json(request): Json<ImportRequest>,
) -> Result<axum::Json<Report>, ApiError> {
    let parsed = import::parse(&request.text)?;
    let mut report = Report {
        format: parsed.format.describe(),
        imported: Vec::new(),
        skipped: Vec::new(),
    };
    let mut wanted = request.names;
    // Once the caller's quota is reached, the remaining entries are skipped unread.
    let mut quota: Option<ApiError> = None;
    for entry in parsed.entries {
        if let Some(wanted) = &mut wanted
            && !wanted.remove(&entry.name)
        {
            continue;
        }
        if let Some(full) = &quota {
            let error = ApiError::new(full.code, full.message.clone());
            report.skipped.push(Skipped::new(entry.name, error));
            continue;
        }
        match create(&state, &caller, entry.outcome).await {
            Ok(server) => report.imported.push(server),
            Err(error) if error.code == ErrorCode::QuotaExceeded => {
                quota = Some(ApiError::new(error.code, error.message.clone()));
                report.skipped.push(Skipped::new(entry.name, error));
            }
            Err(error) if is_entry_problem(&error) => {
                report.skipped.push(Skipped::new(entry.name, error));
            }
            Err(error) => return Err(error),
        }
    }
    // Names asked for that the file does not have.
    for name in wanted.into_iter().flatten() {
        let message = format!("the file has no server called {name:?}");
        report.skipped.push(Skipped::new(
            name,
            ApiError::new(ErrorCode::NotFound, message),
        ));
    }
    Ok(axum::Json(report))
}

/// Creates the server of one entry, or says why not.
async fn create(
    state: &AppState,
    caller: &Caller,
    outcome: Result<ServerSpec, EntryError>,
) -> Result<StoredServer, ApiError> {
    create_checked(state, caller, &outcome?).await
}

/// Whether `error` is about the entry (it does not convert, its name is taken, the caller may
/// not add it), so the import goes on without it, rather than about the store.
fn is_entry_problem(error: &ApiError) -> bool {
    matches!(
        error.code,
        ErrorCode::ValidationError
            | ErrorCode::UnsupportedTransport
            | ErrorCode::Conflict
            | ErrorCode::Forbidden
            | ErrorCode::LaunchNotAllowed
            | ErrorCode::DestinationNotAllowed
    )
}

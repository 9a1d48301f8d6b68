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
use axum::http::{HeaderMap, header};
use serde::{Deserialize, Serialize};
use switchboard_core::import::{self, EntryError};
use switchboard_core::{ErrorCode, Locale, ServerSpec};
use switchboard_store::StoredServer;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::i18n::LocaleTexts;
use crate::json::Json;
use crate::routes::responses::{TooLarge, Unauthorized};
use crate::routes::schemas::McpServer;
use crate::routes::servers::create_checked;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(import_servers))
}

/// A configuration file to import.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ImportRequest {
    /// The file's contents.
    text: String,
    /// Only these entries of the file; all of them when left out.
    #[serde(default)]
    names: Option<BTreeSet<String>>,
}

/// What an import did.
#[derive(Serialize, utoipa::ToSchema)]
struct Report {
    /// Which client's shape the file has, e.g. `mcpServers (Claude Desktop / Cursor)`.
    format: &'static str,
    /// The servers created, as the list shows them (secrets masked).
    #[schema(value_type = Vec<McpServer>)]
    imported: Vec<StoredServer>,
    skipped: Vec<Skipped>,
}

/// An entry of the file that was not imported, and why.
#[derive(Serialize, utoipa::ToSchema)]
struct Skipped {
    name: String,
    /// The error code, e.g. `CONFLICT` or `QUOTA_EXCEEDED`.
    #[schema(value_type = String)]
    code: ErrorCode,
    message: String,
}

impl Skipped {
    /// `error` of the entry `name`, worded in the caller's language.
    fn new(name: String, error: ApiError, words: (&LocaleTexts, Locale)) -> Self {
        Skipped {
            name,
            code: error.code,
            message: error.message_in(words.0, words.1),
        }
    }
}

/// Imports the MCP servers of a Claude Desktop, Cursor or VS Code configuration file.
#[utoipa::path(
    post,
    path = "/api/import/mcp-servers",
    tag = "servers",
    operation_id = "import_servers",
    request_body = ImportRequest,
    responses(
        (status = 200, description = "The servers created (secrets masked) and the entries skipped, each with its code and message", body = Report),
        (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, a file that is not JSON or has no server list", body = ErrorBody),
        Unauthorized,
        TooLarge,
    ),
)]
async fn import_servers(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Json(request): Json<ImportRequest>,
) -> Result<axum::Json<Report>, ApiError> {
    // The skipped entries' reasons are in the language an error answer would be in.
    let locale = caller.user.locale.unwrap_or_else(|| {
        crate::i18n::negotiate(
            headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        )
    });
    let words = (&*state.locales, locale);
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
            let error = full.clone();
            report.skipped.push(Skipped::new(entry.name, error, words));
            continue;
        }
        match create(&state, &caller, entry.outcome).await {
            Ok(server) => report.imported.push(server),
            Err(error) if error.code == ErrorCode::QuotaExceeded => {
                quota = Some(error.clone());
                report.skipped.push(Skipped::new(entry.name, error, words));
            }
            Err(error) if is_entry_problem(&error) => {
                report.skipped.push(Skipped::new(entry.name, error, words));
            }
            Err(error) => return Err(error),
        }
    }
    // Names asked for that the file does not have.
    for name in wanted.into_iter().flatten() {
        let quoted = format!("{name:?}");
        let message = format!("the file has no server called {quoted}");
        report.skipped.push(Skipped::new(
            name,
            ApiError::new(ErrorCode::NotFound, message)
                .key("error.msg.import_no_such_server")
                .param("name", quoted),
            words,
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

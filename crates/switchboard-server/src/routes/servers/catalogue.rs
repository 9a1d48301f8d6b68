//! The catalogue of ready servers (seed 002's presets): what it offers, and adding an entry
//! with its settings filled in.
//!
//! Adding is the application's ([`switchboard_app::presets`]): the same checked create as
//! `POST /api/mcp-servers`, then the preset marks beside the server.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use switchboard_app::presets;
use switchboard_core::catalogue::{Entry, Source};
use switchboard_core::{Advice, MissingProgram};
use switchboard_store::StoredServer;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::json::Json;
use crate::routes::responses::{BadInput, Conflict, NotFound, TooLarge, Unauthorized};
use crate::state::AppState;

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(presets))
        .routes(routes!(add))
}

/// What `POST /api/catalogue/{name}/add` takes.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct AddFromCatalogue {
    /// The server's name; the entry's name when left out.
    #[serde(default)]
    name: Option<String>,
    /// The entry's settings by name (`{"root": "/srv/notes"}`); an empty value is unset.
    #[serde(default)]
    settings: BTreeMap<String, String>,
}

/// The server added, secrets masked, marked as a preset.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct AddedServer {
    #[serde(flatten)]
    server: StoredServer,
    /// Always `true`.
    is_preset: bool,
    /// The entry's source: `reference` or `modelscope`.
    preset_type: Source,
    /// The entry it was added from.
    catalogue_entry: String,
}

/// A catalogue entry, and whether it can start on this machine.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ListedEntry {
    #[serde(flatten)]
    entry: Entry,
    /// The program the entry starts its server with, when it is not found on this server's
    /// `PATH`: Set up would add a server that cannot start. Absent when the program is
    /// there, and for remote entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    missing_launcher: Option<MissingLauncher>,
}

/// A program that is not on this machine, and what to do about it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct MissingLauncher {
    /// The program, e.g. `npx`.
    command: String,
    /// What provides it: `install_node` (Node.js provides `npx`), `install_uv` (uv provides
    /// `uvx`), `install` (another program, to install or to give the full path of) or
    /// `check_path` (a path that leads nowhere).
    advice: &'static str,
}

impl From<MissingProgram> for MissingLauncher {
    fn from(missing: MissingProgram) -> Self {
        let advice = match missing.advice() {
            Advice::InstallNode => "install_node",
            Advice::InstallUv => "install_uv",
            Advice::CheckPath => "check_path",
            _ => "install",
        };
        Self {
            command: missing.command,
            advice,
        }
    }
}

/// One of the caller's servers that was added from the catalogue.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PresetMark {
    server_id: String,
    preset_type: String,
}

/// Every entry of the catalogue, each saying whether its launcher is missing here.
#[utoipa::path(
    get,
    path = "/api/catalogue",
    tag = "servers",
    operation_id = "list_catalogue",
    responses(
        (status = 200, description = "The catalogue's entries; `missingLauncher` on those \
            whose program (`npx`, `uvx`) this machine lacks", body = Vec<ListedEntry>),
        Unauthorized,
    ),
)]
async fn list(State(state): State<AppState>, _caller: Caller) -> axum::Json<Vec<ListedEntry>> {
    let listed = (state.catalogue.entries().iter())
        .map(|entry| ListedEntry {
            missing_launcher: state.launchers.missing_for_entry(entry).map(Into::into),
            entry: entry.clone(),
        })
        .collect();
    axum::Json(listed)
}

/// The caller's servers marked as presets.
///
/// Added from the catalogue, or written through seed 002's routes with `isPreset`.
#[utoipa::path(
    get,
    path = "/api/catalogue/servers",
    tag = "servers",
    operation_id = "list_catalogue_servers",
    responses(
        (status = 200, description = "The caller's preset servers", body = Vec<PresetMark>),
        Unauthorized,
    ),
)]
async fn presets(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<PresetMark>>, ApiError> {
    let shapes = state.store.server_shapes(&caller.user.id).await?;
    let marks = (shapes.into_iter())
        .filter(|(_, shape)| shape.is_preset)
        .map(|(id, shape)| PresetMark {
            server_id: id.0,
            preset_type: shape.preset_type.unwrap_or_default(),
        })
        .collect();
    Ok(axum::Json(marks))
}

/// Adds a catalogue entry as one of the caller's servers.
///
/// The entry's settings are filled in from the body; the server is then created as by
/// `POST /api/mcp-servers`.
#[utoipa::path(
    post,
    path = "/api/catalogue/{name}/add",
    tag = "servers",
    operation_id = "add_from_catalogue",
    params(("name" = String, Path, description = "The entry's name")),
    request_body = AddFromCatalogue,
    responses(
        (status = 201, description = "Added, secrets masked", body = AddedServer),
        BadInput,
        Unauthorized,
        (status = 403, description = "Not allowed for this user (LAUNCH_NOT_ALLOWED, a refused destination, QUOTA_EXCEEDED)", body = ErrorBody),
        NotFound,
        Conflict,
        TooLarge,
    ),
)]
async fn add(
    State(state): State<AppState>,
    caller: Caller,
    Path(name): Path<String>,
    Json(body): Json<AddFromCatalogue>,
) -> Result<(StatusCode, axum::Json<AddedServer>), ApiError> {
    let entry = presets::entry(&state.catalogue, &name)?;
    let preset = presets::fill(entry, body.name.as_deref(), &body.settings)
        .map_err(switchboard_app::AppError::from)?;
    let created = state.servers.add_preset(&caller.user, &preset).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(AddedServer {
            server: created,
            is_preset: true,
            preset_type: entry.source,
            catalogue_entry: entry.name.clone(),
        }),
    ))
}

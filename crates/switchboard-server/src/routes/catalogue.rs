//! The catalogue of ready servers (seed 002's presets): what it offers, and adding an entry
//! with its settings filled in.
//!
//! Adding goes through the same checked create as `POST /api/mcp-servers`
//! ([`create_checked`]): a member's launch templates, the destination guard and the server
//! quota apply to a catalogue entry exactly as to a server typed by hand. The server is then
//! marked as a preset (seed 002's `isPreset`, `presetType`) beside it, in the server shapes
//! store, which is where the seed routes already keep those marks.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use switchboard_core::catalogue::{Entry, FillError, Launch, Source, ValueProblem};
use switchboard_core::{ErrorCode, ServerId};
use switchboard_store::{ServerShape, StoredServer, WrittenShape};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::responses::{BadInput, Conflict, NotFound, TooLarge, Unauthorized};
use super::servers::create_checked;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody, Words};
use crate::error_words::spec::spec as spec_words;
use crate::json::Json;
use crate::state::AppState;

pub(super) fn routes() -> OpenApiRouter<AppState> {
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

/// One of the caller's servers that was added from the catalogue.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PresetMark {
    server_id: String,
    preset_type: String,
}

/// Every entry of the catalogue.
#[utoipa::path(
    get,
    path = "/api/catalogue",
    tag = "servers",
    operation_id = "list_catalogue",
    responses(
        (status = 200, description = "The catalogue's entries", body = Vec<Entry>),
        Unauthorized,
    ),
)]
async fn list(State(state): State<AppState>, _caller: Caller) -> axum::Json<Vec<Entry>> {
    axum::Json(state.catalogue.entries().to_vec())
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
    let entry = state.catalogue.entry(&name).ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotFound,
            format!("the catalogue has no entry {name:?}"),
        )
        .key("error.msg.catalogue_no_entry")
        .param("name", format!("{name:?}"))
    })?;
    let spec = entry
        .server_spec(body.name.as_deref(), &body.settings)
        .map_err(|e| fill_error(&e))?;
    let created = create_checked(&state, &caller, &spec).await?;
    let shape = ServerShape {
        shape: match entry.launch {
            // Seed 002 lists HTTP servers in its own shape; a process is seed 000's.
            Launch::Remote(_) => WrittenShape::Seed002,
            Launch::Process(_) => WrittenShape::Seed000,
        },
        is_preset: true,
        preset_type: Some(entry.source.as_str().to_owned()),
    };
    mark(&state, &caller, &created.spec.id, &shape).await?;
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

/// Records the preset marks; a server left unmarked by a failure here is taken back, so an
/// add either happens whole or not at all.
async fn mark(
    state: &AppState,
    caller: &Caller,
    id: &ServerId,
    shape: &ServerShape,
) -> Result<(), ApiError> {
    if let Err(error) = state
        .store
        .set_server_shape(&caller.user.id, id, shape)
        .await
    {
        if let Err(undo) = state.store.delete_server(&caller.user.id, id).await {
            tracing::error!(%undo, server = %id.0, "an unmarked catalogue server stays");
        }
        return Err(error.into());
    }
    Ok(())
}

/// A setting that does not fit, named (its value never quoted: it may be a secret).
fn fill_error(e: &FillError) -> ApiError {
    let error = ApiError::new(ErrorCode::ValidationError, e.to_string());
    match e {
        FillError::UnknownSetting(setting) => error
            .key("error.msg.catalogue_unknown_setting")
            .param("setting", format!("{setting:?}")),
        FillError::MissingSetting(setting) => error
            .key("error.msg.catalogue_missing_setting")
            .param("setting", format!("{setting:?}")),
        FillError::BadValue { setting, problem } => error
            .key("error.msg.catalogue_bad_value")
            .param("setting", format!("{setting:?}"))
            .param_words("problem", Words::new(problem_key(*problem))),
        FillError::Spec(spec) => error.words(spec_words(spec)),
        _ => error,
    }
}

fn problem_key(problem: ValueProblem) -> &'static str {
    match problem {
        ValueProblem::ControlCharacter => "error.msg.catalogue_value_control",
        ValueProblem::TooLong => "error.msg.catalogue_value_too_long",
        ValueProblem::NotAbsolute => "error.msg.catalogue_value_not_absolute",
        ValueProblem::LeadingDash => "error.msg.catalogue_value_leading_dash",
        _ => "error.msg.catalogue_value_bad",
    }
}

//! The catalogue of ready servers as a person's servers: an entry filled in with their
//! settings and marked as a preset (seed 002's `isPreset`, `presetType`, kept beside the server
//! in the server shapes the seed routes read), added through the same checked create as a
//! server typed by hand, so a member's launch templates, the destination guard and the
//! server quota apply to it exactly. `POST /api/catalogue/{name}/add` and
//! `switchboard servers add --preset` both fill and mark here.

use std::collections::BTreeMap;

use switchboard_core::catalogue::{Catalogue, Entry, FillError, Launch};
use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_store::{ServerShape, StoredServer, User, WrittenShape};

use crate::error::AppError;
use crate::servers::Servers;

/// An entry filled in: the server to save, and how it is marked.
#[derive(Debug, Clone)]
pub struct Preset {
    pub spec: ServerSpec,
    pub shape: ServerShape,
}

/// The entry `name` of `catalogue`, or why there is none (naming the entries there are).
pub fn entry<'a>(catalogue: &'a Catalogue, name: &str) -> Result<&'a Entry, AppError> {
    catalogue
        .entry(name)
        .ok_or_else(|| AppError::NoCatalogueEntry {
            name: name.to_owned(),
            known: catalogue
                .entries()
                .iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// `entry` with `settings` filled in (the server named `name`, or as the entry is), marked as
/// a preset of the entry's source.
pub fn fill(
    entry: &Entry,
    name: Option<&str>,
    settings: &BTreeMap<String, String>,
) -> Result<Preset, FillError> {
    let spec = entry.server_spec(name, settings)?;
    let shape = ServerShape {
        shape: match entry.launch {
            // Seed 002 lists HTTP servers in its own shape; a process is seed 000's.
            Launch::Remote(_) => WrittenShape::Seed002,
            _ => WrittenShape::Seed000,
        },
        is_preset: true,
        preset_type: Some(entry.source.as_str().to_owned()),
    };
    Ok(Preset { spec, shape })
}

impl Servers {
    /// Adds `preset` for `user` within their rules and quota, marked; a server that cannot be
    /// marked is taken away again, so none is left half-added.
    pub async fn add_preset(&self, user: &User, preset: &Preset) -> Result<StoredServer, AppError> {
        let created = self.create(user, &preset.spec).await?;
        self.mark(&user.id, &created.spec.id, &preset.shape).await?;
        Ok(created)
    }

    /// Marks `owner`'s server `id` with `shape`; when that fails the server is deleted, since
    /// it was just saved for the mark.
    pub async fn mark(
        &self,
        owner: &OwnerId,
        id: &ServerId,
        shape: &ServerShape,
    ) -> Result<(), AppError> {
        if let Err(error) = self.store().set_server_shape(owner, id, shape).await {
            if let Err(undo) = self.delete(owner, id).await {
                tracing::error!(%undo, server = %id.0, "an unmarked catalogue server stays");
            }
            return Err(error.into());
        }
        Ok(())
    }
}

//! Saving a view of the MCP gateway: what must hold before a view is stored, beyond the
//! rules of the spec itself. Its servers (pinned ones too) and its assistant must be the
//! person's (another person's answers "not found", like one that does not exist), and no two
//! of its tools may be exported under the same name: a collision is refused now, naming the
//! tools, rather than suffixed later where the person would find a tool under a name they
//! did not expect; in `search` mode no tool may take a name of the search tools either. The
//! names come from the gateway ([`Gateway::view_collisions`]), which lists the servers' tools
//! as they are now; one that is added later is reported by `GET /api/mcp/views/{id}`.

use std::sync::Arc;

use switchboard_core::{OwnerId, ViewSpec};
use switchboard_gateway::{Collision, Gateway, GatewayError};
use switchboard_store::{Store, StoreError, StoredView, User};

use crate::error::AppError;

/// Why a view cannot be saved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewSaveError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Gateway(#[from] GatewayError),
    /// Several tools of the view would be exported under one name.
    #[error("these tool names would be exported more than once in the view: {}; give the servers different prefixes or leave some tools out", describe(.0))]
    Collisions(Vec<Collision>),
}

impl ViewSaveError {
    /// The documented code the error is reported under.
    pub fn code(&self) -> switchboard_core::ErrorCode {
        match self {
            ViewSaveError::Store(e) => e.code(),
            ViewSaveError::Gateway(e) => e.code(),
            ViewSaveError::Collisions(_) => switchboard_core::ErrorCode::Conflict,
        }
    }
}

/// How many collisions an error names; the rest are counted.
const NAMED: usize = 8;
/// How much of one upstream name an error quotes.
const NAME_CHARS: usize = 80;

/// The collisions as one line: `name (server/tool, server/tool); ...`. Tool and server names
/// come from the servers, so each is cut short and kept on one line.
pub fn describe(collisions: &[Collision]) -> String {
    let short = |text: &str| switchboard_core::upstream_text::short_text(text, NAME_CHARS);
    let mut parts: Vec<String> = collisions
        .iter()
        .take(NAMED)
        .map(|c| {
            let tools: Vec<String> = c
                .tools
                .iter()
                .map(|(server, tool)| format!("{}/{}", short(server), short(tool)))
                .collect();
            format!("{} ({})", short(&c.name), tools.join(", "))
        })
        .collect();
    if collisions.len() > NAMED {
        parts.push(format!("+{}", collisions.len() - NAMED));
    }
    parts.join("; ")
}

/// Checks `spec`, a view of `user`'s, for saving: its own rules, its links, its names.
pub async fn check_for_save(
    store: &dyn Store,
    gateway: &Gateway,
    user: &User,
    spec: &ViewSpec,
) -> Result<(), ViewSaveError> {
    spec.validate().map_err(StoreError::from)?;
    for server in &spec.servers {
        store.server(&user.id, &server.server_id).await?;
    }
    if let Some(assistant) = &spec.assistant_id {
        store.assistant(&user.id, assistant).await?;
    }
    for pin in &spec.pinned_tools {
        store.server(&user.id, &pin.server_id).await?;
    }
    let collisions = gateway.view_collisions(user, spec).await?;
    if collisions.is_empty() {
        Ok(())
    } else {
        Err(ViewSaveError::Collisions(collisions))
    }
}

/// A person's views: checked, saved within their quota, and announced to their MCP sessions.
pub struct Views {
    store: Arc<dyn Store>,
    gateway: Arc<Gateway>,
    max_views: u32,
}

impl Views {
    pub(crate) fn new(store: Arc<dyn Store>, gateway: Arc<Gateway>, max_views: u32) -> Self {
        Self {
            store,
            gateway,
            max_views,
        }
    }

    /// Creates `spec` for `user` once it passes [`check_for_save`], within their quota.
    pub async fn create(&self, user: &User, spec: &ViewSpec) -> Result<StoredView, AppError> {
        check_for_save(self.store.as_ref(), &self.gateway, user, spec).await?;
        let created = self
            .store
            .create_view_within(&user.id, spec, self.max_views)
            .await?;
        self.gateway.announce(&user.id);
        Ok(created)
    }

    /// Replaces `user`'s view `id` with `spec` (another person's view is not found before
    /// anything of the new spec is looked at).
    pub async fn replace(
        &self,
        user: &User,
        id: &str,
        spec: &ViewSpec,
    ) -> Result<StoredView, AppError> {
        self.store.view(&user.id, id).await?;
        check_for_save(self.store.as_ref(), &self.gateway, user, spec).await?;
        let updated = self.store.update_view(&user.id, id, spec).await?;
        self.gateway.announce(&user.id);
        Ok(updated)
    }

    /// Deletes `owner`'s view `id`, with its tokens.
    pub async fn delete(&self, owner: &OwnerId, id: &str) -> Result<(), AppError> {
        self.store.delete_view(owner, id).await?;
        self.gateway.announce(owner);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collision(name: &str, tools: &[(&str, &str)]) -> Collision {
        Collision {
            name: name.into(),
            tools: tools
                .iter()
                .map(|(s, t)| ((*s).to_owned(), (*t).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn collisions_are_named_on_one_short_line() {
        let one = [collision(
            "search",
            &[("files", "search"), ("web", "search")],
        )];
        assert_eq!(describe(&one), "search (files/search, web/search)");
        let evil = [collision(
            "x\nINJECTED",
            &[("a", &"y".repeat(500)), ("b", "x")],
        )];
        let line = describe(&evil);
        assert!(!line.contains('\n'));
        assert!(line.len() < 250, "{line}");
        let many: Vec<Collision> = (0..10)
            .map(|i| collision(&format!("t{i}"), &[("a", "t"), ("b", "t")]))
            .collect();
        assert!(describe(&many).ends_with("; +2"));
    }
}

//! Which servers and tools a scope sees: every enabled server of the person, or a view's,
//! and how a view lists them (every tool, or the search tools and its pinned ones).

use std::collections::BTreeSet;
use std::sync::Arc;

use switchboard_core::{PinnedTool, ServerSpec, ViewExposure, ViewSpec};
use switchboard_store::{Store, StoreError};

use crate::error::GatewayError;
use crate::session::Scope;

/// The servers a scope sees, secrets in clear (for connecting), only enabled ones.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub servers: Vec<SelectedServer>,
    /// How `tools/list` shows the tools (`/mcp` without a view: every tool).
    pub exposure: ViewExposure,
    /// The tools listed in full in `search` mode.
    pub pinned: Vec<PinnedTool>,
}

#[derive(Debug, Clone)]
pub struct SelectedServer {
    pub spec: Arc<ServerSpec>,
    /// The tools offered, by their names on the server; `None`: every enabled tool.
    pub tools: Option<BTreeSet<String>>,
    /// The view's prefix for this server (see [`switchboard_core::ViewServer::prefix`]).
    pub prefix: Option<String>,
}

impl SelectedServer {
    /// Whether the scope may use `tool` of this server (its enabled state is the pool's).
    pub fn offers(&self, tool: &str) -> bool {
        self.tools.as_ref().is_none_or(|tools| tools.contains(tool))
    }
}

impl Selection {
    /// What `scope` sees now, read from the store.
    pub async fn of(store: &dyn Store, scope: &Scope) -> Result<Selection, GatewayError> {
        let owner = &scope.user.id;
        let specs = store.connection_specs(owner).await?;
        let Some(view_name) = &scope.view else {
            let servers = specs
                .into_iter()
                .filter(|spec| spec.enabled)
                .map(|spec| SelectedServer {
                    spec: Arc::new(spec),
                    tools: None,
                    prefix: None,
                })
                .collect();
            return Ok(Selection {
                servers,
                ..Selection::default()
            });
        };
        let view = match store.view_by_name(owner, view_name).await {
            Ok(view) => view.spec,
            Err(StoreError::NotFound { .. }) => {
                return Err(GatewayError::ViewNotFound(view_name.clone()));
            }
            Err(e) => return Err(e.into()),
        };
        Self::of_view(store, scope, &view, specs).await
    }

    pub(crate) async fn of_view(
        store: &dyn Store,
        scope: &Scope,
        view: &ViewSpec,
        specs: Vec<ServerSpec>,
    ) -> Result<Selection, GatewayError> {
        let chosen: Vec<switchboard_core::ViewServer> = match &view.assistant_id {
            Some(assistant) => {
                let assistant = store.assistant(&scope.user.id, assistant).await?;
                assistant
                    .server_ids
                    .into_iter()
                    .map(|server_id| switchboard_core::ViewServer {
                        server_id,
                        tools: None,
                        prefix: None,
                    })
                    .collect()
            }
            None => view.servers.clone(),
        };
        let servers = chosen
            .into_iter()
            .filter_map(|chosen| {
                let spec = specs
                    .iter()
                    .find(|spec| spec.id == chosen.server_id && spec.enabled)?;
                Some(SelectedServer {
                    spec: Arc::new(spec.clone()),
                    tools: chosen.tools,
                    prefix: chosen.prefix,
                })
            })
            .collect();
        Ok(Selection {
            servers,
            exposure: view.tool_exposure,
            pinned: view.pinned_tools.clone(),
        })
    }
}

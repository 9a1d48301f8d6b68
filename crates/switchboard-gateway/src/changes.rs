//! `notifications/{tools,resources,prompts}/list_changed` to connected clients: when an
//! upstream's list changes ([`ServerPool::list_changes`]) or the person changes their servers
//! or views ([`crate::Gateway::announce`]); for 2026-07-28 clients through
//! `subscriptions/listen`.

use rmcp::model::SubscriptionFilter;
use rmcp::service::{NotificationContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer};
use switchboard_core::OwnerId;
use switchboard_mcp::ServerPool;

use crate::handler::GatewayHandler;

/// Fans list changes out to sessions.
#[derive(Debug)]
pub struct ChangeHub {}

impl ChangeHub {
    /// A hub following `servers`' list changes (inside a Tokio runtime).
    pub(crate) fn follow(_servers: &dyn ServerPool) -> Self {
        Self {}
    }

    /// Every list of `owner`'s sessions may have changed.
    pub(crate) fn announce_owner(&self, _owner: &OwnerId) {}
}

/// Runs for a session once it is initialized: sends it the list changes of its scope.
pub(crate) async fn watch_session(
    _handler: &GatewayHandler,
    _context: NotificationContext<RoleServer>,
) {
}

pub(crate) fn accepted_filter(_requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
    None
}

pub(crate) async fn listen(
    _handler: &GatewayHandler,
    context: SubscriptionContext,
) -> Result<(), ErrorData> {
    context.cancelled().await;
    Ok(())
}

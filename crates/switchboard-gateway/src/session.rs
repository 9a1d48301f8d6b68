//! Who a request is from ([`Scope`]), and keeping a session to the one who opened it.

use std::sync::OnceLock;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use switchboard_store::User;

use crate::error::GatewayError;

/// The person a request acts for, and the view it is limited to. The HTTP server puts one in
/// each request's extensions after authenticating it (a view-scoped token's view wins over the
/// path's); `switchboard mcp --stdio` fixes one for the whole process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub user: User,
    /// The view's name; `None`: every enabled tool of every enabled server.
    pub view: Option<String>,
}

/// What a session remembers of its scope: the first request binds it, and a later request of
/// another person or view on the same session is refused (a session id is not a credential).
#[derive(Debug, Default)]
pub(crate) struct Binding {
    bound: OnceLock<(switchboard_core::OwnerId, Option<String>)>,
}

impl Binding {
    pub(crate) fn check(&self, scope: &Scope) -> Result<(), GatewayError> {
        let key = (scope.user.id.clone(), scope.view.clone());
        let bound = self.bound.get_or_init(|| key.clone());
        if *bound == key {
            Ok(())
        } else {
            Err(GatewayError::SessionMismatch)
        }
    }
}

/// The scope of a request: `fixed`, or the one the HTTP server attached.
pub(crate) fn scope_of(
    fixed: Option<&Scope>,
    context: &RequestContext<RoleServer>,
) -> Result<Scope, GatewayError> {
    if let Some(scope) = fixed {
        return Ok(scope.clone());
    }
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Scope>())
        .cloned()
        .ok_or(GatewayError::NoScope)
}

//! Who may connect to what, asked again before every new connection.
//!
//! The connection manager does not know users or roles; the layer that does (the HTTP server)
//! gives it a [`ConnectPolicy`]. The policy is asked before every spawn and every HTTP connect
//! (reconnects included), never only when a server is saved: a rule an admin removes stops
//! the servers that relied on it at their next start.

use switchboard_core::{DestinationRules, OwnerId, ServerSpec};

use crate::error::McpError;

/// Decides whether `owner` may open a connection to `spec`, and under which rules.
#[async_trait::async_trait]
pub trait ConnectPolicy: Send + Sync + 'static {
    /// `Err` refuses the connection (reported as the connection's error); `Ok` says how.
    async fn admit(&self, owner: &OwnerId, spec: &ServerSpec) -> Result<Admission, McpError>;

    /// What a connection admitted with [`Admission::guard_destinations`] may reach besides
    /// public addresses (the admin's allow list). Read once, when the manager is created.
    fn destination_rules(&self) -> DestinationRules {
        DestinationRules::default()
    }
}

/// The rules one connection is opened under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Admission {
    /// The owner may start any stdio command (an admin, or the person at the command line);
    /// otherwise only the launch templates apply. The local manager does not read it (its
    /// policy already checked the templates); a node does, to check its own templates too.
    pub any_command: bool,
    /// Whether the destination guard applies: the connection may only reach public addresses
    /// (and the hosts an admin allowed).
    pub guard_destinations: bool,
}

/// Admits every connection without a guard: the command line, where the person at the
/// keyboard is the only user, and tests.
#[derive(Debug, Default, Clone, Copy)]
pub struct AdmitAll;

#[async_trait::async_trait]
impl ConnectPolicy for AdmitAll {
    async fn admit(&self, _owner: &OwnerId, _spec: &ServerSpec) -> Result<Admission, McpError> {
        Ok(Admission {
            any_command: true,
            guard_destinations: false,
        })
    }
}

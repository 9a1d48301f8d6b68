use serde::{Deserialize, Serialize};
use switchboard_core::{Locale, OwnerId};

use super::Timestamp;

/// What a user may do beyond their own rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// Manages users and may configure stdio servers (which run commands on the host).
    Admin,
    Member,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Member => "member",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        match text {
            "admin" => Some(Role::Admin),
            "member" => Some(Role::Member),
            _ => None,
        }
    }
}

/// A person (or the local owner of a single-user setup).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: OwnerId,
    pub name: String,
    pub role: Role,
    pub created_at: Timestamp,
    /// The language they chose for messages and the web UI; `None`: follow the browser.
    pub locale: Option<Locale>,
}

/// An API token as listed: its secret is not kept, only a hash of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiToken {
    pub id: String,
    pub user_id: OwnerId,
    pub label: String,
    pub created_at: Timestamp,
    /// When the token stops being accepted; `None`: when revoked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
    /// The view of the MCP gateway the token is limited to; `None`: the whole
    /// account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view_id: Option<String>,
}

/// What a live bearer token opens: its user, and the view it is limited to, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenAccess {
    pub user: User,
    pub view: Option<TokenView>,
}

/// The view a token is limited to, as it is named now (a view can be renamed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenView {
    pub id: String,
    pub name: String,
}

/// A token just created: the only time its secret is available.
#[derive(Clone, PartialEq, Eq)]
pub struct IssuedToken {
    pub token: ApiToken,
    pub secret: String,
}

impl std::fmt::Debug for IssuedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedToken")
            .field("token", &self.token)
            .field("secret", &"***")
            .finish()
    }
}

//! The caller of a request, as an extractor: handlers that take a [`Caller`] are
//! authenticated, and scope everything they touch to `caller.user.id`.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use switchboard_core::ErrorCode;
use switchboard_store::{Role, User};

use crate::error::ApiError;
use crate::state::{AppState, AuthMode};

#[derive(Debug, Clone)]
pub struct Caller {
    pub user: User,
    /// The token the request was authenticated with (none in single-user mode), so a long
    /// response (an event stream) can check it again.
    pub token: Option<crate::stream_auth::PresentedToken>,
}

impl Caller {
    /// Refuses callers that are not admins (changing stdio servers runs commands on the host).
    pub fn require_admin(&self, why: &str) -> Result<(), ApiError> {
        if self.user.role == Role::Admin {
            Ok(())
        } else {
            Err(ApiError::new(
                ErrorCode::Forbidden,
                format!("{why} needs the admin role"),
            ))
        }
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let unauthorized = |m: &str| ApiError::new(ErrorCode::Unauthorized, m.to_owned());
        let token = match &state.auth {
            AuthMode::SingleUser(owner) => {
                let user = state.store.user(owner).await?;
                return Ok(Caller { user, token: None });
            }
            AuthMode::Tokens => parts
                .headers
                .get(axum::http::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::trim)
                .ok_or_else(|| unauthorized("send an API token: Authorization: Bearer <token>"))?,
        };
        let user = state
            .store
            .user_by_token(token)
            .await?
            .ok_or_else(|| unauthorized("the API token is not valid"))?;
        Ok(Caller {
            user,
            token: Some(crate::stream_auth::PresentedToken::new(token)),
        })
    }
}

//! The caller of a request, as an extractor: handlers that take a [`Caller`] are
//! authenticated, and scope everything they touch to `caller.user.id`.
//!
//! It also applies the rate limits of [`crate::limits`]: failed authentications are counted
//! per peer address and per presented token. A token that failed too often is refused with
//! 429 before it is looked up; an address that failed too often gets 429 for its failed
//! attempts only, so a valid token is never refused for others' failures (behind a reverse
//! proxy every client shares one address). Writes (POST, PUT, PATCH, DELETE) are counted per
//! user.
//!
//! The peer address is the TCP peer that [`crate::serve()`] records (`ConnectInfo`).
//! `X-Forwarded-For` is not trusted: anyone can send it, so honouring it by default would let
//! a client pick a fresh address for every guess. Behind a reverse proxy every request comes
//! from the proxy's address, so the per-address limit then applies to all clients together
//! (the per-token limit still applies per token); limit per client at the proxy.
//!
//! A token limited to a view of the MCP gateway opens only the gateway's endpoint
//! paths, `/mcp` and `/mcp/v/{its view}`: it is refused here, with 403, on every other route,
//! so no route can forget the check. Such tokens go into MCP clients' configuration files
//! (Claude Desktop, Cursor), which are less guarded than a person's browser.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use switchboard_core::ErrorCode;
use switchboard_store::{Role, TokenAccess, TokenView, User};

use crate::error::ApiError;
use crate::state::{AppState, AuthMode};

#[derive(Debug, Clone)]
pub struct Caller {
    pub user: User,
    /// The token the request was authenticated with (none in single-user mode), so a long
    /// response (an event stream) can check it again.
    pub token: Option<crate::stream_auth::PresentedToken>,
    /// The id of the gateway view the token is limited to; `None`: the whole account (every
    /// token that is not view-scoped, and single-user mode). Only the MCP endpoint paths
    /// ([`is_mcp_endpoint`]) ever see a caller with a view.
    pub view: Option<String>,
    /// That view's name as it is now (a view can be renamed while its tokens live).
    pub view_name: Option<String>,
}

impl Caller {
    /// Refuses callers that are not admins (changing stdio servers runs commands on the host).
    pub fn require_admin(&self, why: &str) -> Result<(), ApiError> {
        if self.user.role == Role::Admin {
            Ok(())
        } else {
            Err(
                ApiError::new(ErrorCode::Forbidden, format!("{why} needs the admin role"))
                    .key("error.msg.admin_required")
                    .param("action", why),
            )
        }
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let (access, token) = identify(parts, state).await?;
        let TokenAccess { user, view } = access;
        crate::i18n::remember_preference(&parts.extensions, &user);
        if let Some(view) = &view {
            limit_to_view(parts.uri.path(), view)?;
        }
        let path = parts.uri.path();
        if crate::guard::changes_state(&parts.method)
            && !is_tool_call(path)
            && !is_mcp_endpoint(path)
        {
            state.gate.write(&user.id)?;
        }
        let (view, view_name) = match view {
            Some(TokenView { id, name }) => (Some(id), Some(name)),
            None => (None, None),
        };
        Ok(Caller {
            user,
            token,
            view,
            view_name,
        })
    }
}

/// Whether `path` is one of the MCP gateway's endpoints: `/mcp` or `/mcp/v/{name}`.
pub fn is_mcp_endpoint(path: &str) -> bool {
    path == "/mcp"
        || path
            .strip_prefix("/mcp/v/")
            .is_some_and(|name| !name.is_empty() && !name.contains('/'))
}

/// A view-scoped token opens `/mcp` (where it gets its view) and `/mcp/v/{its view}`, and
/// nothing else.
fn limit_to_view(path: &str, view: &TokenView) -> Result<(), ApiError> {
    let allowed = path == "/mcp" || path.strip_prefix("/mcp/v/") == Some(view.name.as_str());
    if allowed {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::Forbidden,
        format!(
            "this API token is limited to the MCP view {:?}: use it at /mcp or /mcp/v/{}",
            view.name, view.name
        ),
    )
    .key("error.msg.view_token_forbidden")
    .param("view", &view.name))
}

/// The user of the request (with the view its token is limited to) and the token it came
/// with, with failed attempts counted.
async fn identify(
    parts: &Parts,
    state: &AppState,
) -> Result<(TokenAccess, Option<crate::stream_auth::PresentedToken>), ApiError> {
    let unauthorized =
        |key: &'static str, m: &str| ApiError::new(ErrorCode::Unauthorized, m.to_owned()).key(key);
    if let AuthMode::SingleUser(owner) = &state.auth {
        let user = state.store.user(owner).await?;
        return Ok((TokenAccess { user, view: None }, None));
    }
    let address = peer(parts);
    let token = parts
        .headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_token);
    let Some(token) = token else {
        state.gate.check_address(address)?;
        state.gate.auth_failed(address, None);
        return Err(unauthorized(
            "error.msg.token_missing",
            "send an API token: Authorization: Bearer <token>",
        ));
    };
    state.gate.check_token(token)?;
    match state.store.token_access(token).await? {
        Some(access) => Ok((access, Some(crate::stream_auth::PresentedToken::new(token)))),
        None => {
            state.gate.check_address(address)?;
            state.gate.auth_failed(address, Some(token));
            Err(unauthorized(
                "error.msg.token_invalid",
                "the API token is not valid",
            ))
        }
    }
}

/// The token of an `Authorization: Bearer <token>` value; the scheme is case-insensitive
/// (RFC 7235), so `bearer` and `BEARER` are taken too.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim_start().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The TCP peer's address, when the server recorded it.
fn peer(parts: &Parts) -> Option<IpAddr> {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(address)| address.ip())
}

/// Tool calls are POSTs but change nothing Switchboard stores: they are what the gateway is
/// for, thousands a second, and are bounded by the MCP server's own connection instead. The
/// write limit is for creating and changing stored things.
fn is_tool_call(path: &str) -> bool {
    path == "/api/mcp/tools/call"
        || (path.starts_with("/api/mcp/proxy/") && path.ends_with("/call"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(name: &str) -> TokenView {
        TokenView {
            id: "v1".into(),
            name: name.into(),
        }
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        for value in [
            "Bearer sb_x",
            "bearer sb_x",
            "BEARER  sb_x ",
            " Bearer sb_x",
        ] {
            assert_eq!(bearer_token(value), Some("sb_x"), "{value:?}");
        }
        for value in ["Basic sb_x", "Bearer", "Bearer   ", "Bearersb_x", ""] {
            assert_eq!(bearer_token(value), None, "{value:?}");
        }
    }

    #[test]
    fn a_view_token_opens_the_gateway_endpoint_and_its_view_only() {
        let desktop = view("desktop");
        for allowed in ["/mcp", "/mcp/v/desktop"] {
            assert!(limit_to_view(allowed, &desktop).is_ok(), "{allowed}");
        }
        for refused in [
            "/api/me",
            "/api/mcp/views",
            "/mcp/v/other",
            "/mcp/v/desktop/x",
            "/mcp/v/desktop2",
            "/mcp/v/",
            "/mcp/",
            "/mcpx",
            "/",
            "/metrics",
        ] {
            let error = limit_to_view(refused, &desktop).unwrap_err();
            assert_eq!(error.code, ErrorCode::Forbidden, "{refused}");
            assert_eq!(error.key, Some("error.msg.view_token_forbidden"));
        }
    }

    #[test]
    fn the_gateway_endpoints_are_mcp_and_its_views() {
        assert!(is_mcp_endpoint("/mcp"));
        assert!(is_mcp_endpoint("/mcp/v/desktop"));
        assert!(!is_mcp_endpoint("/mcp/v/"));
        assert!(!is_mcp_endpoint("/mcp/v/a/b"));
        assert!(!is_mcp_endpoint("/api/mcp/views"));
    }
}

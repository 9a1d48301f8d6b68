//! Remote servers over Streamable HTTP, through rmcp's client transport, with our headers and
//! credentials on every request.

use std::collections::HashMap;
use std::sync::Arc;

use http::{HeaderMap, HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use switchboard_core::{Auth, ServerSpec};

use crate::error::McpError;
use crate::oauth::Authorized;
use crate::transport::session_aware::SessionAwareClient;
use crate::transport::upstream_limit::UpstreamLimit;

/// The custom headers plus an API-key header, as configured. Bearer tokens are separate because
/// rmcp sets `Authorization` itself.
pub(crate) fn headers(spec: &ServerSpec) -> Result<HeaderMap, McpError> {
    let mut map = HeaderMap::new();
    let invalid = |field: &str, reason: String| McpError::InvalidHeader {
        field: field.to_owned(),
        reason,
    };
    for (name, value) in &spec.headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|e| invalid("headers", format!("`{name}` is not a header name: {e}")))?;
        let value = HeaderValue::try_from(value.as_str())
            .map_err(|e| invalid("headers", format!("value of `{name}` is invalid: {e}")))?;
        map.insert(name, value);
    }
    match &spec.auth {
        Auth::ApiKey { header, key } => {
            let name = HeaderName::try_from(header.as_str())
                .map_err(|e| invalid("auth", format!("`{header}` is not a header name: {e}")))?;
            let mut value = HeaderValue::try_from(key.as_str())
                .map_err(|e| invalid("auth", format!("the API key is not a header value: {e}")))?;
            value.set_sensitive(true);
            map.insert(name, value);
        }
        Auth::Bearer { token } => {
            let mut value = HeaderValue::try_from(format!("Bearer {token}"))
                .map_err(|e| invalid("auth", format!("the token is not a header value: {e}")))?;
            value.set_sensitive(true);
            map.insert(http::header::AUTHORIZATION, value);
        }
        _ => {}
    }
    Ok(map)
}

pub(crate) fn streamable(
    client: reqwest::Client,
    spec: &ServerSpec,
    url: &str,
    auth: Option<Authorized>,
    limit: UpstreamLimit,
) -> Result<StreamableHttpClientTransport<SessionAwareClient>, McpError> {
    let mut custom_headers: HashMap<HeaderName, HeaderValue> = HashMap::new();
    let mut auth_header = None;
    for (name, value) in headers(spec)? {
        let Some(name) = name else { continue };
        if name == http::header::AUTHORIZATION
            && let Auth::Bearer { token } = &spec.auth
        {
            auth_header = Some(token.clone());
            continue;
        }
        custom_headers.insert(name, value);
    }
    let mut config = StreamableHttpClientTransportConfig::default();
    config.uri = Arc::from(url);
    config.auth_header = auth_header;
    config.custom_headers = custom_headers;
    config.reinit_on_expired_session = true;
    Ok(StreamableHttpClientTransport::with_client(
        SessionAwareClient::new(client, auth, limit),
        config,
    ))
}

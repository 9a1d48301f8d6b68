//! Where the OAuth sign-in routes are served (see `routes/oauth.rs`).

/// Where the authorization server sends the browser back.
pub const CALLBACK: &str = "/oauth/callback";
/// Switchboard's Client ID Metadata Document.
pub const CLIENT_METADATA: &str = "/oauth/client-metadata.json";

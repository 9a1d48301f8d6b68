-- Issue 17: OAuth 2.1 sign-in to remote MCP servers.
--
-- A server that asks for OAuth keeps its client settings in `oauth_config` (JSON: the
-- pre-registered client id, if any, and the scopes to ask for; the client secret sealed in
-- `auth_secret` as the other credentials are), with `auth_type` 'none': SQLite cannot change
-- the CHECK on `auth_type` without rebuilding `mcp_servers`, which a dozen tables reference,
-- and both backends keep one schema. A non-null `oauth_config` is the OAuth kind of auth.
ALTER TABLE mcp_servers ADD COLUMN oauth_config TEXT;

-- Each person's tokens for each server: rmcp's stored credentials (client id, token response,
-- granted scopes, issuer) and a dynamically registered client's secret, as sealed JSON.
CREATE TABLE mcp_oauth_tokens (
    user_id     TEXT NOT NULL,
    server_id   TEXT NOT NULL,
    credentials TEXT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (user_id, server_id),
    FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);

-- One row per (person, server) that replicas lock (SELECT ... FOR UPDATE, Postgres) while one
-- of them refreshes the tokens, so two never spend the same refresh token. A row of its own,
-- not the tokens' row: the refresh saves the new tokens while it holds the lock.
CREATE TABLE mcp_oauth_refresh_locks (
    user_id   TEXT NOT NULL,
    server_id TEXT NOT NULL,
    PRIMARY KEY (user_id, server_id),
    FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);

-- Sign-ins under way, by their OAuth `state`: the PKCE verifier and what the callback needs
-- to finish on whichever replica it reaches, sealed. Short-lived: read once, and swept.
CREATE TABLE mcp_oauth_pending (
    state      TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    server_id  TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);
CREATE INDEX mcp_oauth_pending_owner ON mcp_oauth_pending (user_id, created_at);

-- Issue 16: the MCP gateway's views (`/mcp/v/{name}`), owned like everything else: the name is
-- unique per owner (it is in the URL), the spec is the view's JSON (`ViewSpec`: an assistant
-- to follow, or servers with their tools and prefixes). Servers are named inside the JSON,
-- not by foreign keys: a view that names a deleted server simply offers nothing of it.
CREATE TABLE mcp_views (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    spec       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (user_id, name)
);
-- A token limited to one view (NULL: the whole account, as before). Deleting the view deletes
-- its tokens: a token that outlived its view must not fall back to full access.
ALTER TABLE api_tokens ADD COLUMN view_id TEXT REFERENCES mcp_views (id) ON DELETE CASCADE;
CREATE INDEX api_tokens_view ON api_tokens (view_id);

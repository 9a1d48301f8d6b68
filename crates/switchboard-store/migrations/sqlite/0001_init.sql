-- Switchboard's schema on SQLite. Times are milliseconds since the Unix epoch; JSON is TEXT;
-- secrets (header values, secret env values, auth_secret, api_key) are sealed by the store
-- before they get here.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    role       TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    created_at BIGINT NOT NULL
);

CREATE TABLE api_tokens (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label      TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE mcp_servers (
    user_id            TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id                 TEXT NOT NULL,
    name               TEXT NOT NULL,
    type               TEXT NOT NULL CHECK (type IN ('stdio', 'streamable_http', 'sse')),
    is_active          BOOLEAN NOT NULL,
    base_url           TEXT,
    headers            TEXT NOT NULL,
    timeout_ms         BIGINT,
    command            TEXT,
    args               TEXT NOT NULL,
    env                TEXT NOT NULL,
    secret_env         TEXT NOT NULL,
    cwd                TEXT,
    auth_type          TEXT NOT NULL CHECK (auth_type IN ('none', 'api_key', 'bearer')),
    auth_header        TEXT,
    auth_secret        TEXT,
    disabled_tools     TEXT NOT NULL,
    auto_approve_tools TEXT NOT NULL,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    PRIMARY KEY (user_id, id),
    UNIQUE (user_id, name)
);

CREATE TABLE providers (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('openai', 'anthropic')),
    base_url      TEXT,
    api_key       TEXT,
    default_model TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    UNIQUE (user_id, name)
);

CREATE TABLE assistants (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    system_prompt TEXT NOT NULL,
    provider_id   TEXT REFERENCES providers (id) ON DELETE SET NULL,
    model         TEXT,
    tool_mode     TEXT NOT NULL CHECK (tool_mode IN ('native', 'prompt', 'meta')),
    max_rounds    BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    UNIQUE (user_id, name)
);

CREATE TABLE assistant_mcp_servers (
    assistant_id TEXT NOT NULL REFERENCES assistants (id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL,
    server_id    TEXT NOT NULL,
    position     BIGINT NOT NULL,
    PRIMARY KEY (assistant_id, server_id),
    FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);
CREATE INDEX assistant_mcp_servers_server ON assistant_mcp_servers (user_id, server_id);

CREATE TABLE conversations (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title        TEXT NOT NULL,
    assistant_id TEXT REFERENCES assistants (id) ON DELETE SET NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE INDEX conversations_user ON conversations (user_id, updated_at);

CREATE TABLE messages (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
    content         TEXT NOT NULL,
    tool_calls      TEXT NOT NULL,
    metadata        TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX messages_conversation ON messages (conversation_id, created_at, id);

CREATE TABLE tool_presets (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    server_id      TEXT NOT NULL,
    selected_tools TEXT NOT NULL,
    retry_on_error BOOLEAN NOT NULL,
    max_retries    BIGINT NOT NULL,
    timeout_ms     BIGINT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    UNIQUE (user_id, name),
    FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);

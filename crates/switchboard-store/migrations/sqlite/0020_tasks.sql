-- Tasks: tool calls a server runs in the background (MCP tasks), kept so that whichever
-- process claims one next polls it on, after a restart or on another replica. `id` is ours;
-- `upstream_id` is the server's task id and never leaves Switchboard. Times are ms since the
-- Unix epoch. A row is live while its status is `working` or `input_required`; one poller
-- at a time holds it (`holder`, until `lease_until`). Arguments are never stored.
CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    server_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    origin TEXT NOT NULL CHECK (origin IN ('chat', 'api', 'proxy', 'node', 'gateway')),
    conversation_id TEXT REFERENCES conversations (id) ON DELETE CASCADE,
    message_id TEXT,
    call_id TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('legacy', 'extension', 'local')),
    upstream_id TEXT,
    status TEXT NOT NULL
        CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
    status_message TEXT,
    poll_interval_ms BIGINT,
    ttl_ms BIGINT,
    -- JSON: the tool's result, or the error that ended the task.
    outcome TEXT,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    holder TEXT,
    lease_until BIGINT,
    next_poll_at BIGINT NOT NULL,
    failures BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX tasks_due ON tasks (next_poll_at) WHERE status IN ('working', 'input_required');
CREATE INDEX tasks_owner ON tasks (user_id, created_at);
CREATE INDEX tasks_server ON tasks (user_id, server_id) WHERE status IN ('working', 'input_required');
CREATE UNIQUE INDEX tasks_call ON tasks (message_id, call_id);

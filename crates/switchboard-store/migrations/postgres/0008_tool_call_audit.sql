-- One row per tool call made through the tool-call service (issue 14): who called, through
-- what (caller kind, server, tool, node), how it ended and how long it took. Never the
-- arguments or the result: they may hold secrets. Kept bounded per owner by the writer,
-- which prunes the oldest rows. The server id is not a foreign key: the record of a call
-- outlives the server it was made to.
CREATE TABLE tool_call_audit (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    at          BIGINT NOT NULL,
    caller      TEXT NOT NULL,
    server_id   TEXT NOT NULL,
    tool        TEXT NOT NULL,
    node_id     TEXT,
    outcome     TEXT NOT NULL,
    attempts    BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL
);
CREATE INDEX tool_call_audit_owner ON tool_call_audit (user_id, id);

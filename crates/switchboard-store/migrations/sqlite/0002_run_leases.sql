-- Which process is running a conversation's turn, until when (ms since the Unix epoch). A
-- process renews its lease while it runs; one that died leaves it to expire.
CREATE TABLE run_leases (
    conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
    holder TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);

-- Seed 000's chat: a conversation's variables (`ChatRequest.context`, a JSON object), the
-- session key a client chose for it (`ChatRequest.sessionId`, unique per owner; NULL for
-- conversations made otherwise), and the one server its runs are limited to
-- (`ChatRequest.serverId`; NULL: no limit).
ALTER TABLE conversations ADD COLUMN variables TEXT NOT NULL DEFAULT '{}';
ALTER TABLE conversations ADD COLUMN session_key TEXT;
ALTER TABLE conversations ADD COLUMN server_id TEXT;
CREATE UNIQUE INDEX conversations_session ON conversations (user_id, session_key);

-- A person's messages by conversation: searching them (GET /api/conversations?q=) reads that
-- person's rows alone, whichever plan the database picks. Without it, Postgres answers the
-- search's EXISTS from a scan of every person's messages.
CREATE INDEX messages_user ON messages (user_id, conversation_id);

-- How many messages each person keeps, counted as they are stored and deleted (conversations
-- deleted with theirs included), so the quota on them is one read, not a count.
ALTER TABLE users ADD COLUMN message_count BIGINT NOT NULL DEFAULT 0;
UPDATE users SET message_count = (SELECT COUNT(*) FROM messages WHERE user_id = users.id);

CREATE TRIGGER messages_count_insert AFTER INSERT ON messages
BEGIN
    UPDATE users SET message_count = message_count + 1 WHERE id = NEW.user_id;
END;

CREATE TRIGGER messages_count_delete AFTER DELETE ON messages
BEGIN
    UPDATE users SET message_count = message_count - 1 WHERE id = OLD.user_id;
END;

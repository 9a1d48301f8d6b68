-- How many messages each person keeps, counted as they are stored and deleted (conversations
-- deleted with theirs included), so the quota on them is one read, not a count.
ALTER TABLE users ADD COLUMN message_count BIGINT NOT NULL DEFAULT 0;
UPDATE users SET message_count = (SELECT COUNT(*) FROM messages WHERE user_id = users.id);

CREATE FUNCTION messages_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE users SET message_count = message_count + 1 WHERE id = NEW.user_id;
    ELSE
        UPDATE users SET message_count = message_count - 1 WHERE id = OLD.user_id;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER messages_count AFTER INSERT OR DELETE ON messages
    FOR EACH ROW EXECUTE FUNCTION messages_count();

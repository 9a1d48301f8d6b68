-- A new message makes its conversation the most recently active, in the same statement that
-- stores it (the SQLite store appends a message in one statement; see its migration 0014).
CREATE FUNCTION messages_touch_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE conversations SET updated_at = NEW.created_at WHERE id = NEW.conversation_id;
    RETURN NULL;
END;
$$;

CREATE TRIGGER messages_touch_conversation AFTER INSERT ON messages
    FOR EACH ROW EXECUTE FUNCTION messages_touch_conversation();

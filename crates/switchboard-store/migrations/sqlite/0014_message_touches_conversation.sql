-- A new message makes its conversation the most recently active, in the same statement that
-- stores it: appending a message is one statement instead of a transaction of four.
CREATE TRIGGER messages_touch_conversation AFTER INSERT ON messages
BEGIN
    UPDATE conversations SET updated_at = NEW.created_at WHERE id = NEW.conversation_id;
END;

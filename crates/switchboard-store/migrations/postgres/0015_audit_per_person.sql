-- Each person's audit records are numbered on their own (`seq`, shown as the record's id),
-- so no one can count another person's calls from the gaps in theirs. The person's counter is
-- `users.audit_seq`, taken under its row lock in the statement that stores the record, so
-- replicas writing at once never give two records one number.
ALTER TABLE users ADD COLUMN audit_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tool_call_audit ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;

UPDATE tool_call_audit SET seq = numbered.n
FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY id) AS n
      FROM tool_call_audit) AS numbered
WHERE tool_call_audit.id = numbered.id;
UPDATE users SET audit_seq =
    COALESCE((SELECT MAX(seq) FROM tool_call_audit WHERE user_id = users.id), 0);

CREATE FUNCTION tool_call_audit_seq() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE users SET audit_seq = audit_seq + 1 WHERE id = NEW.user_id
        RETURNING audit_seq INTO NEW.seq;
    RETURN NEW;
END;
$$;

CREATE TRIGGER tool_call_audit_seq BEFORE INSERT ON tool_call_audit
    FOR EACH ROW EXECUTE FUNCTION tool_call_audit_seq();

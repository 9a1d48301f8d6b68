-- Issue 17: how a server's sampling/createMessage requests are answered during a chat,
-- `{"autoApprove": bool, "maxTokens": n}` as JSON; NULL: each reviewed, the default cap.
ALTER TABLE mcp_servers ADD COLUMN sampling TEXT;

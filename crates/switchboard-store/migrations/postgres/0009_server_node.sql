-- Issue 15: the node a server runs on, by the name of a `[nodes.NAME]` table in the settings
-- file; NULL: in this process, as before. A name, not a foreign key: nodes live in the
-- configuration, not the database, and a server whose node is no longer configured stays
-- readable (its calls fail MCP_UNREACHABLE until the node is declared again).
ALTER TABLE mcp_servers ADD COLUMN node TEXT;

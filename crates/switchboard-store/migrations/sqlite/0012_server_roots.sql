-- Issue 17: the folders a server may work in (MCP roots), a JSON list of absolute paths or
-- file: URIs, answered to the server's roots/list; NULL: none.
ALTER TABLE mcp_servers ADD COLUMN roots TEXT;

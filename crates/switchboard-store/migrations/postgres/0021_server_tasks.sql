-- Whether a server's tools are started as tasks (MCP tasks): 'auto', 'always' or 'never';
-- NULL: auto (tools that run only as tasks are, the others when the caller asks).
ALTER TABLE mcp_servers ADD COLUMN tasks TEXT;

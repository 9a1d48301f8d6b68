-- Which seed's shape a server was last written in through the seeds' shared path
-- `POST /api/mcp/servers` (seed 000's McpServerSpec or seed 002's MCPServerConfig), so a
-- listing answers each server in the shape its client wrote, and seed 002's preset marks.
-- A server written only through the house API has no row here.
CREATE TABLE mcp_server_shapes (
    user_id     TEXT NOT NULL,
    server_id   TEXT NOT NULL,
    shape       TEXT NOT NULL CHECK (shape IN ('seed_000', 'seed_002')),
    is_preset   BOOLEAN NOT NULL,
    preset_type TEXT,
    PRIMARY KEY (user_id, server_id),
    FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);

-- Issue 14, workflow tool nodes (seed 002 `MCPToolNodeConfig`): the table keeps its name
-- `tool_presets` (the rows are the same), and gains the variables a node declares (a JSON
-- array of `{name, type, default?, description?}`) and, for a node of an assistant, that
-- assistant: deleting the assistant deletes its nodes, as deleting the server does. The
-- assistant must be the node's owner's; the store checks that in the writing transaction.
-- An assistant declares variables too, which its nodes' mappings may use.
ALTER TABLE tool_presets ADD COLUMN variables TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tool_presets ADD COLUMN assistant_id TEXT REFERENCES assistants (id) ON DELETE CASCADE;
CREATE INDEX tool_presets_assistant ON tool_presets (assistant_id);
ALTER TABLE assistants ADD COLUMN variables TEXT NOT NULL DEFAULT '[]';

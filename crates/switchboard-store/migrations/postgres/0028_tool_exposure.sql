-- Which tools an assistant's model sees in full on every request (`all`, `deferred`, `auto`)
-- and the tools it always sees (a JSON array of `{serverId, tool?}`).
ALTER TABLE assistants ADD COLUMN tool_exposure TEXT NOT NULL DEFAULT 'auto';
ALTER TABLE assistants ADD COLUMN pinned_tools TEXT NOT NULL DEFAULT '[]';

-- The gateway view a task of a gateway client was started through (`mcp_views.id`; NULL for
-- `/mcp` without a view, and for tasks of other origins): a gateway client finds a task only
-- through the view that started it. No foreign key: a deleted view's tasks stay the owner's
-- (the API shows them) and are found through no view again, even one made under the same name.
ALTER TABLE tasks ADD COLUMN view_id TEXT;

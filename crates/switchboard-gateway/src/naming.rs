//! Exported names: `mcp__{server}__{tool}` (the configured template), a view's prefix, or
//! none; the same rules name prompts.

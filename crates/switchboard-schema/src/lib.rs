//! JSON Schema from MCP tools, converted into what each LLM provider accepts.

//! The integration tests of `switchboard-mcp`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod common;

mod content_notices;
mod credentials;
mod first_connect;
mod held_back;
mod http_servers;
mod killed_while_asking;
mod misbehaving_servers;
mod no_orphans;
mod pool;
mod protocol_generations;
mod request_log;
mod retry_policy;
mod roots;
mod server_requests;
mod sse_transport;
mod stdio_servers;
mod tool_backend;
mod tool_tasks;
mod upstream_connections;

//! The integration tests of `switchboard-testkit`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod aimock_start;
mod catalog;
mod chat_restart_2026;
mod chat_task_questions_2026;
mod chat_tasks_restart;
mod conformance_server;
mod extension_tasks;
mod peers_start;
mod scripted_llm;
mod scripted_tool_search;
mod served;
mod upstream_2026;

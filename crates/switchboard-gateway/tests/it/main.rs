//! The integration tests of `switchboard-gateway`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod content_support;
mod relay_support;
mod tasks_support;
mod tools_support;

mod changes;
mod content;
mod content_views;
mod relay;
mod tasks;
mod tools;
mod tools_search;
mod tools_views;

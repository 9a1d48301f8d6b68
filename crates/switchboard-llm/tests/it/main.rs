//! The integration tests of `switchboard-llm`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod common;

mod aimock;
mod errors;
mod models;
mod request_mapping;
mod streaming;
